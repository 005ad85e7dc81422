package plugins

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixture is the guard-kit plugin of testdata, copied so a test may
// change it.
func fixture(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "guard-kit")
	if err := copyTree(filepath.Join("testdata", "guard-kit"), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadFixture(t *testing.T) {
	dir := fixture(t)
	p, err := Load(dir, "", OriginFlag)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "guard-kit" || p.ID != "guard-kit@inline" || p.Version != "1.0.0" || len(p.Warnings) > 0 {
		t.Fatalf("loaded %+v", p)
	}
	for what, got := range map[string][]string{"skills": p.SkillDirs, "commands": p.CommandPaths, "agents": p.AgentPaths} {
		if want := []string{filepath.Join(p.Root, what)}; !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	if len(p.Hooks) != 1 || p.Hooks[0].File != filepath.Join(p.Root, "hooks", "hooks.json") || !strings.Contains(string(p.Hooks[0].Hooks), "PreToolUse") {
		t.Errorf("hooks: %+v", p.Hooks)
	}
	if len(p.MCP) != 1 || p.MCP[0].Servers["where"] == nil {
		t.Errorf("MCP: %+v", p.MCP)
	}
	if p.Vars()["CLAUDE_PLUGIN_ROOT"] != p.Root {
		t.Errorf("vars %v", p.Vars())
	}
}

// TestManifestPaths: what plugin.json's paths do, as Claude Code 2.1.333
// reads them (claude plugin validate's "provides"): commands and agents
// replace the default directories, skills, hooks and MCP servers add to
// them; a path out of the plugin is refused with a warning.
func TestManifestPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "commands", "a.md"), "a")
	writeFile(t, filepath.Join(dir, "extra", "one.md"), "one")
	writeFile(t, filepath.Join(dir, "agents", "ag0.md"), "---\nname: ag0\ndescription: d\n---\n")
	writeFile(t, filepath.Join(dir, "more", "ag1.md"), "---\nname: ag1\ndescription: d\n---\n")
	writeFile(t, filepath.Join(dir, "skills", "s0", "SKILL.md"), "s0")
	writeFile(t, filepath.Join(dir, "myskills", "s1", "SKILL.md"), "s1")
	writeFile(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"s0": {"command": "echo"}}}`)
	writeFile(t, filepath.Join(dir, "m.json"), `{"s2": {"command": "echo"}}`)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ManifestPath), `{"name": "cp", "commands": ["./extra/one.md"], "agents": ["./more/ag1.md"],
		"skills": ["./myskills/", "./link", "../elsewhere", "./missing"],
		"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
		"mcpServers": "./m.json"}`)
	p, err := Load(dir, "mk", OriginNova)
	if err != nil {
		t.Fatal(err)
	}
	root := p.Root
	if want := []string{filepath.Join(root, "extra", "one.md")}; !slices.Equal(p.CommandPaths, want) {
		t.Errorf("commands %v, want only the manifest's %v", p.CommandPaths, want)
	}
	if want := []string{filepath.Join(root, "more", "ag1.md")}; !slices.Equal(p.AgentPaths, want) {
		t.Errorf("agents %v, want %v", p.AgentPaths, want)
	}
	if want := []string{filepath.Join(root, "skills"), filepath.Join(root, "myskills")}; !slices.Equal(p.SkillDirs, want) {
		t.Errorf("skills %v, want %v", p.SkillDirs, want)
	}
	if len(p.Hooks) != 2 {
		t.Errorf("hooks %+v, want hooks.json's and the manifest's", p.Hooks)
	}
	var servers []string
	for _, f := range p.MCP {
		for n := range f.Servers {
			servers = append(servers, n)
		}
	}
	slices.Sort(servers)
	if !slices.Equal(servers, []string{"s0", "s2"}) {
		t.Errorf("MCP servers %v, want s0 and s2", servers)
	}
	warns := strings.Join(p.Warnings, "\n")
	for _, want := range []string{`"./link" leads out of the plugin`, `"../elsewhere": paths are relative`, "./missing is not there"} {
		if !strings.Contains(warns, want) {
			t.Errorf("warnings lack %q:\n%s", want, warns)
		}
	}
	if p.ID != "cp@mk" {
		t.Errorf("id %s", p.ID)
	}
}

func TestLoadRefuses(t *testing.T) {
	for name, manifest := range map[string]string{
		"no name":  `{"version": "1"}`,
		"bad json": `{"name": `,
		"bad name": `{"name": "two words"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, ManifestPath), manifest)
			if _, err := Load(dir, "", OriginFlag); err == nil {
				t.Fatal("loaded")
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none"), "", OriginFlag); err == nil {
		t.Error("a missing directory loaded")
	}
	// No manifest: the directory's name, its default directories.
	dir := filepath.Join(t.TempDir(), "bare")
	writeFile(t, filepath.Join(dir, "commands", "x.md"), "x")
	p, err := Load(dir, "", OriginFlag)
	if err != nil || p.Name != "bare" || len(p.CommandPaths) != 1 {
		t.Fatalf("%+v %v", p, err)
	}
}
