package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm/llmtest"
)

// docSkill runs the example of docs/skills.md's "Hooks in a skill" as a
// reader pastes it, with HOME at home.
func docSkill(t *testing.T, home string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "skills.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Hooks in a skill\n")
	_, block, ok2 := strings.Cut(sec, "```sh\n")
	block, _, ok3 := strings.Cut(block, "\n```\n")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/skills.md has no sh example under \"Hooks in a skill\"")
	}
	cmd := exec.Command("sh", "-e", "-c", block)
	cmd.Env = append(os.Environ(), "HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the example failed: %v\n%s", err, out)
	}
}

// A skill's frontmatter hooks (the example of docs/skills.md) guard the
// run the model loads it in, and only that run: its next prompt runs the
// same kind of command unguarded.
func TestSkillHooksLastTheRun(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	docSkill(t, home)
	srv := llmtest.New(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "Skill", Input: `{"skill":"release"}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash", Input: `{"command":"echo during"}`}}},
		llmtest.Turn{Text: "blocked"},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b2", Name: "Bash", Input: `{"command":"echo after"}`}}},
		llmtest.Turn{Text: "ran"},
	)
	defer srv.Close()
	rt := buildWith(t, srv, home, ws)
	runText(t, rt, "write the release notes")
	runText(t, rt, "again")
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	if got := decode(t, reqs[2]).userText(); !strings.Contains(got, "PreToolUse:Bash hook error") || !strings.Contains(got, "the release skill runs no commands: echo during") {
		t.Errorf("the skill's hook did not block its run's Bash call:\n%s", got)
	}
	last := decode(t, reqs[4])
	if got := last.Messages[len(last.Messages)-1]; len(got.Content) == 0 || !strings.Contains(string(got.Content[0].Content), "after") || got.Content[0].IsError {
		t.Errorf("the next run's Bash call did not run: %+v", got)
	}
}

// A project's command brings hooks only in a trusted folder: untrusted,
// it is not loaded and its hook never runs; trusted, its hook guards the
// command's own shell lines.
func TestCommandHooksNeedTrust(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".claude", "commands", "probe.md"), `---
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: "echo ran > hook-ran.txt; echo 'probe forbids the shell' >&2; exit 2"
---
Status: !`+"`echo shell-line-ran`"+`
`)
	srv := llmtest.New(llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	defer srv.Close()
	sentinel := filepath.Join(ws, "hook-ran.txt")

	rt := buildWith(t, srv, home, ws)
	if d := runText(t, rt, "/probe"); d == nil || !d.IsError || !strings.Contains(d.Error, "not trusted") {
		t.Errorf("untrusted /probe: %+v, want an error saying the folder is not trusted", d)
	}
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatal("an untrusted project's command hook ran")
	}

	if _, _, err := config.NewTrustStore(filepath.Join(home, ".nova")).Trust(ws); err != nil {
		t.Fatal(err)
	}
	rt = buildWith(t, srv, home, ws)
	runText(t, rt, "/probe")
	if _, err := os.Stat(sentinel); err != nil {
		t.Errorf("the trusted command's hook did not run: %v", err)
	}
	got := decode(t, srv.Requests()[0]).userText()
	if strings.Contains(got, "Status: shell-line-ran") || !strings.Contains(got, "probe forbids the shell") {
		t.Errorf("the command's hook did not guard its shell line:\n%s", got)
	}
}

// Skill(name) deny rules hold: a denied skill's body never reaches the
// model, by its name or an alias (namespace:name), while a skill no rule
// names loads; a person's /name is theirs, as in Claude Code, and runs.
func TestSkillDenyRule(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	nova := filepath.Join(home, ".nova")
	writeFile(t, filepath.Join(nova, "settings.json"), `{"permissions": {"deny": ["Skill(deploy)", "Skill(ship)"]}}`)
	writeFile(t, filepath.Join(nova, "skills", "deploy", "SKILL.md"), "---\ndescription: Deploy\n---\nSECRET-DEPLOY-BODY\n")
	writeFile(t, filepath.Join(nova, "commands", "ops", "ship.md"), "---\ndescription: Ship\n---\nSECRET-SHIP-BODY\n")
	writeFile(t, filepath.Join(nova, "skills", "notes", "SKILL.md"), "---\ndescription: Notes\n---\nNOTES-BODY\n")
	srv := llmtest.New(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "s1", Name: "Skill", Input: `{"skill":"deploy"}`},
			{ID: "s2", Name: "Skill", Input: `{"skill":"ops:ship"}`},
			{ID: "s3", Name: "Skill", Input: `{"skill":"/notes"}`},
		}},
		llmtest.Turn{Text: "done"},
		llmtest.Turn{Text: "deployed"},
	)
	defer srv.Close()
	rt := buildWith(t, srv, home, ws)
	d := runText(t, rt, "go")
	got := decode(t, srv.Requests()[1]).userText()
	if strings.Contains(got, "SECRET") {
		t.Errorf("a denied skill's body reached the model:\n%s", got)
	}
	if !strings.Contains(got, "NOTES-BODY") {
		t.Errorf("the skill no rule names did not load:\n%s", got)
	}
	if n := strings.Count(got, "Permission to use Skill was denied (rule layer)"); n != 2 {
		t.Errorf("%d denials said, want 2:\n%s", n, got)
	}
	if d == nil || len(d.Denials) != 2 {
		t.Errorf("permission_denials = %+v, want the two skills", d)
	}
	runText(t, rt, "/deploy")
	if got := decode(t, srv.Requests()[2]).userText(); !strings.Contains(got, "SECRET-DEPLOY-BODY") {
		t.Errorf("a person's /deploy did not run:\n%s", got)
	}
}
