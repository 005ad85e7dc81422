package permission

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaterFileTools checks that the file tools ask before they write a
// path that runs later, in every mode but bypassPermissions, whatever broad
// rule or mode would allow the edit, and that the ask says why.
func TestLaterFileTools(t *testing.T) {
	write := func(tool, p string) Request {
		return Request{Tool: tool, Kind: KindEdit, Paths: []Access{{Path: p, Write: true}}}
	}
	tests := []struct {
		name  string
		mode  Mode
		allow []string
		req   Request
		want  Behavior
	}{
		{"claude settings acceptEdits", ModeAcceptEdits, nil, write("Write", "/work/ws/.claude/settings.json"), Ask},
		{"claude local settings acceptEdits", ModeAcceptEdits, nil, write("Edit", "/work/ws/.claude/settings.local.json"), Ask},
		{"skill acceptEdits", ModeAcceptEdits, nil, write("Write", "/work/ws/.claude/skills/x/SKILL.md"), Ask},
		{"mcp.json acceptEdits", ModeAcceptEdits, nil, write("Write", "/work/ws/.mcp.json"), Ask},
		{"vscode tasks default", "", nil, write("Write", "/work/ws/.vscode/tasks.json"), Ask},
		{"envrc MultiEdit", ModeAcceptEdits, nil, write("MultiEdit", "/work/ws/.envrc"), Ask},
		{"workflow ApplyPatch", ModeAcceptEdits, nil, write("ApplyPatch", "/work/ws/.github/workflows/ci.yml"), Ask},
		{"notebook in .idea", ModeAcceptEdits, nil, write("NotebookEdit", "/work/ws/.idea/x.ipynb"), Ask},
		{"nested project's vscode", ModeAcceptEdits, nil, write("Write", "/work/ws/apps/web/.vscode/settings.json"), Ask},
		{"added dir", ModeAcceptEdits, nil, write("Write", "/work/extra/.husky/pre-commit"), Ask},
		{"nova dir", ModeAcceptEdits, nil, write("Write", "/work/ws/.nova/agents/x.md"), Ask},
		{"fish config", ModeAcceptEdits, nil, write("Write", "/work/ws/.config/fish/config.fish"), Ask},
		{"bare Edit rule", "", []string{"Edit"}, write("Write", "/work/ws/.claude/settings.json"), Ask},
		{"Edit(**)", "", []string{"Edit(**)"}, write("Write", "/work/ws/.vscode/tasks.json"), Ask},
		{"Write(*)", "", []string{"Write(*)"}, write("Write", "/work/ws/.mcp.json"), Ask},
		{"Edit(.*/**)", "", []string{"Edit(.*/**)"}, write("Write", "/work/ws/.vscode/tasks.json"), Ask},
		{"Edit(apps/**)", "", []string{"Edit(apps/**)"}, write("Write", "/work/ws/apps/web/.vscode/settings.json"), Ask},
		{"hook allow stands in for bypass", "", nil, Request{Tool: "Write", Kind: KindEdit, HookAllowed: true, Paths: []Access{{Path: "/work/ws/.mcp.json", Write: true}}}, Allow},
		// Controls: bypassPermissions, and rules that name the path.
		{"bypass", ModeBypass, nil, write("Write", "/work/ws/.claude/settings.json"), Allow},
		{"named directory", "", []string{"Edit(.vscode/**)"}, write("Write", "/work/ws/.vscode/tasks.json"), Allow},
		{"named file", ModeAcceptEdits, []string{"Edit(./.mcp.json)"}, write("Write", "/work/ws/.mcp.json"), Allow},
		{"named by bare name", "", []string{"Write(.envrc)"}, write("Write", "/work/ws/.envrc"), Allow},
		{"named nested", "", []string{"Edit(.github/workflows/**)"}, write("Edit", "/work/ws/.github/workflows/ci.yml"), Allow},
		{"ordinary file acceptEdits", ModeAcceptEdits, nil, write("Write", "/work/ws/src/a.go"), Allow},
		{"look-alike name", ModeAcceptEdits, nil, write("Write", "/work/ws/.vscodeignore"), Allow},
		{"other .github file", ModeAcceptEdits, nil, write("Write", "/work/ws/.github/dependabot.yml"), Allow},
		{"reads are not asked", "", nil, Request{Tool: "Read", Kind: KindRead, Paths: []Access{{Path: "/work/ws/.vscode/tasks.json"}}}, Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestChecker(t, Config{Mode: tt.mode, AddDirs: []string{"/work/extra"}, Rules: Rules{Allow: tt.allow}})
			d := c.Check(context.Background(), tt.req)
			if d.Behavior != tt.want {
				t.Fatalf("got %s (%s: %s), want %s", d.Behavior, d.Layer, d.Reason, tt.want)
			}
			if tt.want == Ask && !strings.Contains(d.Reason, "runs commands outside the sandbox") {
				t.Errorf("the ask does not say why: %s", d.Reason)
			}
		})
	}
}

// TestLaterSuggestionNamesThePath checks that "allow always" on such an
// ask writes a rule that names the path, so the answer is remembered.
func TestLaterSuggestionNamesThePath(t *testing.T) {
	c := newTestChecker(t, Config{Mode: ModeAcceptEdits})
	req := Request{Tool: "Write", Kind: KindEdit, Paths: []Access{{Path: "/work/ws/.vscode/tasks.json", Write: true}}}
	d := c.Check(context.Background(), req)
	if d.Behavior != Ask || len(d.Suggestions) != 1 {
		t.Fatalf("got %s %v", d.Behavior, d.Suggestions)
	}
	if err := c.AllowAlways(d.Suggestions[0]); err != nil {
		t.Fatal(err)
	}
	if d := c.Check(context.Background(), req); d.Behavior != Allow {
		t.Errorf("after allowing %s: %s (%s)", d.Suggestions, d.Behavior, d.Reason)
	}
}

// TestLaterBash checks the Bash path layer: redirections, tee and cp into
// a path that runs later ask, inside the sandbox with sandbox.autoAllow,
// under acceptEdits and under a rule allowing the command.
func TestLaterBash(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".github", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		mode      Mode
		allow     []string
		autoAllow bool
		cmd       string
		want      Behavior
	}{
		{"redirect sandboxed autoAllow", "", nil, true, `echo '{"hooks":{}}' > .claude/settings.json`, Ask},
		{"tee acceptEdits", ModeAcceptEdits, nil, false, `echo x | tee .envrc`, Ask},
		{"cp with a rule for cp", "", []string{"Bash(cp:*)"}, false, `cp evil.json .mcp.json`, Ask},
		{"whole Bash rule", "", []string{"Bash"}, false, `echo x > .vscode/tasks.json`, Ask},
		{"mkdir", ModeAcceptEdits, nil, false, `mkdir -p .husky`, Ask},
		{"mv a directory to .github", ModeAcceptEdits, nil, false, `mv staged .github`, Ask},
		{"rm -r the tree holding workflows", "", []string{"Bash(rm:*)"}, false, `rm -rf .github`, Ask},
		{"broad Edit rule", ModeAcceptEdits, []string{"Edit(**)"}, false, `echo x > .idea/workspace.xml`, Ask},
		// Controls.
		{"bypass", ModeBypass, nil, false, `echo x > .envrc`, Allow},
		{"rule naming it", "", []string{"Bash(echo:*)", "Edit(./.envrc)"}, false, `echo x > .envrc`, Allow},
		{"ordinary redirect sandboxed", "", nil, true, `echo x > out.txt`, Allow},
		{"reading it", "", nil, false, `cat .vscode/tasks.json`, Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestChecker(t, Config{Workspace: ws, Mode: tt.mode, SandboxAutoAllow: tt.autoAllow, Rules: Rules{Allow: tt.allow}})
			d := c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: tt.cmd, Workdir: ws, Sandboxed: tt.autoAllow})
			if d.Behavior != tt.want {
				t.Fatalf("%s: got %s (%s: %s), want %s", tt.cmd, d.Behavior, d.Layer, d.Reason, tt.want)
			}
			if tt.want == Ask && !strings.Contains(d.Reason, "runs commands outside the sandbox") {
				t.Errorf("the ask does not say why: %s", d.Reason)
			}
		})
	}
}

// TestNamesLater pins down what "names the path specifically" means.
func TestNamesLater(t *testing.T) {
	hit := func(rel string) laterHit {
		for _, e := range RunsLater() {
			if e.Rel == rel {
				return laterHit{entry: e}
			}
		}
		t.Fatalf("%s is not in the list", rel)
		return laterHit{}
	}
	for _, tt := range []struct {
		rule, entry string
		want        bool
	}{
		{"Edit(.vscode/**)", ".vscode", true},
		{"Edit(./.vscode/tasks.json)", ".vscode", true},
		{"Edit(**/.claude/**)", ".claude", true},
		{"Edit(//work/ws/.mcp.json)", ".mcp.json", true},
		{"Edit(.github/workflows/**)", ".github/workflows", true},
		{"Edit(.github/**)", ".github/workflows", false},
		{"Edit(.vscode*/**)", ".vscode", false},
		{"Edit(**)", ".vscode", false},
		{"Edit", ".vscode", false},
		{"Edit(src/**)", ".vscode", false},
	} {
		r, err := ParseRule(tt.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := namesLater(r, hit(tt.entry)); got != tt.want {
			t.Errorf("namesLater(%s, %s) = %v, want %v", tt.rule, tt.entry, got, tt.want)
		}
	}
}

// TestRunsLaterList keeps the list well formed: relative, unique, and a
// reason for each entry.
func TestRunsLaterList(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range RunsLater() {
		if e.Rel == "" || strings.HasPrefix(e.Rel, "/") || strings.Contains(e.Rel, "..") || e.Why == "" || seen[e.Rel] {
			t.Errorf("bad entry %+v", e)
		}
		seen[e.Rel] = true
	}
}

// TestWorktreeRoot checks that a call made in a worktree nova made for it
// (Request.Worktree) may write there as in the workspace, and that the
// paths that run later ask there too.
func TestWorktreeRoot(t *testing.T) {
	c := newTestChecker(t, Config{Mode: ModeAcceptEdits})
	write := func(p, wt string) Decision {
		return c.Check(context.Background(), Request{Tool: "Write", Kind: KindEdit, Worktree: wt, Workdir: wt,
			Paths: []Access{{Path: p, Write: true}}})
	}
	if d := write("/nova/worktrees/ws-1/agent-a/x.go", ""); d.Behavior != Ask {
		t.Errorf("outside the workspace, no worktree: %s (%s)", d.Behavior, d.Reason)
	}
	if d := write("/nova/worktrees/ws-1/agent-a/x.go", "/nova/worktrees/ws-1/agent-a"); d.Behavior != Allow {
		t.Errorf("in its worktree: %s (%s)", d.Behavior, d.Reason)
	}
	if d := write("/nova/worktrees/ws-1/agent-a/.claude/settings.json", "/nova/worktrees/ws-1/agent-a"); d.Behavior != Ask {
		t.Errorf("the worktree's .claude: %s (%s)", d.Behavior, d.Reason)
	}
	if d := write("/nova/worktrees/ws-1/agent-b/x.go", "/nova/worktrees/ws-1/agent-a"); d.Behavior != Ask {
		t.Errorf("another agent's worktree: %s (%s)", d.Behavior, d.Reason)
	}
}
