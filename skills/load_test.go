package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// world is a home, NOVA_HOME inside it, and a workspace.
func world(t *testing.T) Dirs {
	home := t.TempDir()
	return Dirs{NovaHome: filepath.Join(home, ".nova"), ClaudeHome: filepath.Join(home, ".claude"), Workdir: t.TempDir()}
}

func skillFile(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nDo " + name + ".\n"
}

func names(s *Set) []string {
	var out []string
	for _, sk := range s.All() {
		out = append(out, sk.Name)
	}
	return out
}

// Skills come from the four directories, and commands from theirs; the
// project's only in a trusted workspace, reported otherwise.
func TestLoadFromEveryDirectory(t *testing.T) {
	d := world(t)
	write(t, filepath.Join(d.NovaHome, "skills", "nova-user", "SKILL.md"), skillFile("nova-user", "from NOVA_HOME"))
	write(t, filepath.Join(d.ClaudeHome, "skills", "claude-user", "SKILL.md"), skillFile("claude-user", "from ~/.claude"))
	write(t, filepath.Join(d.Workdir, ".nova", "skills", "nova-project", "SKILL.md"), skillFile("nova-project", "from .nova"))
	write(t, filepath.Join(d.Workdir, ".claude", "skills", "claude-project", "SKILL.md"), skillFile("claude-project", "from .claude"))
	write(t, filepath.Join(d.NovaHome, "commands", "ucmd.md"), "User command.\n")
	write(t, filepath.Join(d.ClaudeHome, "commands", "ccmd.md"), "Claude user command.\n")
	write(t, filepath.Join(d.Workdir, ".nova", "commands", "pcmd.md"), "Project command.\n")
	write(t, filepath.Join(d.Workdir, ".claude", "commands", "frontend", "component.md"), "---\ndescription: Make a component\n---\nBuild $0.\n")

	untrusted := Load(d)
	if got, want := names(untrusted), []string{"ccmd", "claude-user", "nova-user", "ucmd"}; !slices.Equal(got, want) {
		t.Errorf("untrusted: %v, want the user's alone %v", got, want)
	}
	var ignored []string
	for _, ig := range untrusted.Ignored {
		ignored = append(ignored, ig.Names...)
	}
	slices.Sort(ignored)
	if want := []string{"claude-project", "component", "nova-project", "pcmd"}; !slices.Equal(ignored, want) {
		t.Errorf("ignored %v, want %v", ignored, want)
	}
	if dir := untrusted.IgnoredDir("/component"); dir != filepath.Join(d.Workdir, ".claude", "commands") {
		t.Errorf("IgnoredDir(component) = %q", dir)
	}

	d.Trusted = true
	set := Load(d)
	if got, want := names(set), []string{"ccmd", "claude-project", "claude-user", "component", "nova-project", "nova-user", "pcmd", "ucmd"}; !slices.Equal(got, want) {
		t.Errorf("trusted: %v, want %v", got, want)
	}
	c := set.Lookup("frontend:component")
	if c == nil || c != set.Lookup("/component") || c.Namespace != "frontend" || c.Source() != "project:frontend" || c.Description != "Make a component" {
		t.Errorf("namespaced command = %+v", c)
	}
	if sk := set.Lookup("claude-user"); sk.Kind != KindSkill || sk.Scope != ScopeUser || sk.Dir != filepath.Join(d.ClaudeHome, "skills", "claude-user") {
		t.Errorf("claude-user = %+v", sk)
	}
	if sk := set.Lookup("pcmd"); sk.Description != "Project command." || sk.Kind != KindCommand || sk.Scope != ScopeProject {
		t.Errorf("pcmd = %+v (the description is the first paragraph when none is given)", sk)
	}
	if len(set.Warnings) != 0 {
		t.Errorf("warnings: %v", set.Warnings)
	}
}

// A name is the user's before the project's, and a skill's before a
// command's; two namespaced commands of one name are both reachable.
func TestLoadPrecedence(t *testing.T) {
	d := world(t)
	d.Trusted = true
	write(t, filepath.Join(d.Workdir, ".claude", "skills", "deploy", "SKILL.md"), skillFile("deploy", "the project's"))
	write(t, filepath.Join(d.ClaudeHome, "skills", "deploy", "SKILL.md"), skillFile("deploy", "the user's"))
	write(t, filepath.Join(d.Workdir, ".claude", "commands", "review.md"), "---\ndescription: the command\n---\nx\n")
	write(t, filepath.Join(d.Workdir, ".claude", "skills", "review", "SKILL.md"), skillFile("review", "the skill"))
	write(t, filepath.Join(d.Workdir, ".claude", "commands", "a", "build.md"), "---\ndescription: a's build\n---\n")
	write(t, filepath.Join(d.Workdir, ".claude", "commands", "b", "build.md"), "---\ndescription: b's build\n---\n")
	set := Load(d)
	if got := set.Lookup("deploy").Description; got != "the user's" {
		t.Errorf("deploy is %q, want the user's", got)
	}
	if got := set.Lookup("review").Description; got != "the skill" {
		t.Errorf("review is %q, want the skill", got)
	}
	if a, b := set.Lookup("build"), set.Lookup("b:build"); a == nil || b == nil || a.Description != "a's build" || b.Description != "b's build" || b.Name != "b:build" {
		t.Errorf("build = %+v, b:build = %+v", a, b)
	}
}

// A workspace at the home directory does not load ~/.claude twice, and
// files that cannot be skills are told of, not fatal.
func TestLoadOddities(t *testing.T) {
	d := world(t)
	d.Workdir, d.Trusted = filepath.Dir(d.ClaudeHome), true
	write(t, filepath.Join(d.ClaudeHome, "skills", "one", "SKILL.md"), skillFile("one", "once"))
	write(t, filepath.Join(d.ClaudeHome, "skills", "bad", "SKILL.md"), "---\nname: has space\n---\nbody\n")
	write(t, filepath.Join(d.ClaudeHome, "skills", "nofile", "README.md"), "not a skill\n")
	write(t, filepath.Join(d.ClaudeHome, "commands", "big.md"), strings.Repeat("x", maxFile+1))
	set := Load(d)
	if got := names(set); !slices.Equal(got, []string{"bad", "one"}) {
		t.Errorf("names = %v", got)
	}
	joined := strings.Join(set.Warnings, "\n")
	if !strings.Contains(joined, `name "has space" may hold only`) || !strings.Contains(joined, "big.md: left out") {
		t.Errorf("warnings = %v", set.Warnings)
	}
}
