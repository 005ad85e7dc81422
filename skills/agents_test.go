package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Agent files in Claude Code's format: tools as a comma list or a YAML
// list, a description YAML cannot read (Claude Code's own examples have
// "Examples: <example>..." after a colon), the project's first, and the
// project's only in a trusted workspace.
func TestLoadAgents(t *testing.T) {
	home, nova, ws := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Project reviewer\ntools: Read, Grep, Bash(git diff:*)\nmaxTurns: 5\npermissionMode: plan\n---\nProject prompt.\n")
	writeFile(t, filepath.Join(home, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Personal reviewer\n---\nPersonal prompt.\n")
	writeFile(t, filepath.Join(nova, "agents", "tester.md"), "---\nname: tester\ndescription: Use this agent when: tests fail. Examples: <example>Context: x</example>\ntools:\n  - Bash\n  - Read\ndisallowedTools: Write\nmodel: haiku\n---\nRun the tests.\n")
	writeFile(t, filepath.Join(nova, "agents", "nodesc.md"), "---\nname: nodesc\n---\nbody\n")
	writeFile(t, filepath.Join(nova, "agents", "main", "agent.json"), "{}") // an agents API directory
	set := LoadAgents(Dirs{NovaHome: nova, ClaudeHome: filepath.Join(home, ".claude"), Workdir: ws, Trusted: true})
	var names []string
	for _, a := range set.Agents {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, []string{"reviewer", "tester"}) {
		t.Fatalf("agents = %v (warnings %v)", names, set.Warnings)
	}
	rev, tester := set.Agents[0], set.Agents[1]
	if rev.Description != "Project reviewer" || rev.Prompt != "Project prompt." || rev.MaxTurns != 5 || rev.PermissionMode != "plan" ||
		!slices.Equal(rev.Tools, []string{"Read", "Grep", "Bash(git diff:*)"}) || rev.Scope != ScopeProject {
		t.Errorf("reviewer = %+v, want the project's", rev)
	}
	if !strings.Contains(tester.Description, "<example>") || !slices.Equal(tester.Tools, []string{"Bash", "Read"}) ||
		!slices.Equal(tester.DisallowedTools, []string{"Write"}) || tester.Model != "haiku" {
		t.Errorf("tester = %+v", tester)
	}
	if !slices.ContainsFunc(set.Warnings, func(w string) bool { return strings.Contains(w, "nodesc.md") && strings.Contains(w, "no description") }) {
		t.Errorf("warnings = %v, want nodesc.md left out", set.Warnings)
	}
	untrusted := LoadAgents(Dirs{NovaHome: nova, ClaudeHome: filepath.Join(home, ".claude"), Workdir: ws})
	if untrusted.Agents[0].Description != "Personal reviewer" {
		t.Errorf("untrusted: reviewer = %+v, want the personal one", untrusted.Agents[0])
	}
	if len(untrusted.Ignored) != 1 || untrusted.Ignored[0].Names[0] != "reviewer" {
		t.Errorf("ignored = %+v", untrusted.Ignored)
	}
}
