package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// TestHooksFromEveryLayer: the "hooks" of nova's three settings files and
// of Claude Code's three all load, layer by layer (Claude Code's file of
// a layer before nova's), each with its file; the
// project's four only in a trusted folder, and otherwise they are listed
// as ignored grants like any other.
func TestHooksFromEveryLayer(t *testing.T) {
	novaHome, proj, home := t.TempDir(), t.TempDir(), t.TempDir()
	hook := func(ev string) string {
		return `{"hooks": {"` + ev + `": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	}
	files := map[string]string{
		filepath.Join(novaHome, "settings.json"):                  hook("SessionStart"),
		filepath.Join(proj, ".nova", "settings.json"):             hook("PreToolUse"),
		filepath.Join(proj, ".nova", "settings.local.json"):       hook("PostToolUse"),
		filepath.Join(home, ".claude", "settings.json"):           hook("Stop"),
		filepath.Join(proj, ".claude", "settings.json"):           `{"permissions": {"allow": ["Bash"]}, "hooks": {"UserPromptSubmit": [], "Stop": []}}`,
		filepath.Join(proj, ".claude", "settings.local.json"):     hook("Notification"),
		filepath.Join(proj, ".claude", "unrelated-settings.json"): hook("SessionEnd"),
	}
	for p, data := range files {
		writeFile(t, p, data)
	}
	all := []string{
		filepath.Join(home, ".claude", "settings.json"), filepath.Join(novaHome, "settings.json"),
		filepath.Join(proj, ".claude", "settings.json"), filepath.Join(proj, ".nova", "settings.json"),
		filepath.Join(proj, ".claude", "settings.local.json"), filepath.Join(proj, ".nova", "settings.local.json"),
	}
	s, _, err := LoadSettings(novaHome, proj, home, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := hookFiles(s); !slices.Equal(got, all) {
		t.Errorf("trusted: hooks from %v, want %v", got, all)
	}
	// Claude Code's allow rule is read too, with its file, in a trusted folder.
	if !slices.ContainsFunc(s.RuleSets, func(rs permission.RuleSet) bool {
		return rs.Source == all[2] && slices.Equal(rs.Allow, []string{"Bash"})
	}) {
		t.Errorf("no allow rule from %s in %+v", all[2], s.RuleSets)
	}

	s, _, err = LoadSettings(novaHome, proj, home, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hookFiles(s), []string{all[0], all[1]}; !slices.Equal(got, want) {
		t.Errorf("untrusted: hooks from %v, want only the user's %v", got, want)
	}
	var ignored []string
	for _, ig := range s.Ignored {
		if ig.Setting == "hooks" {
			ignored = append(ignored, ig.File+": "+ig.Value)
		}
	}
	want := []string{all[2] + ": Stop, UserPromptSubmit", all[3] + ": PreToolUse", all[4] + ": Notification", all[5] + ": PostToolUse"}
	if !slices.Equal(ignored, want) {
		t.Errorf("ignored hooks = %q, want %q", ignored, want)
	}
}

func hookFiles(s *Settings) []string {
	var out []string
	for _, hs := range s.HookSets {
		out = append(out, hs.File)
	}
	return out
}

// TestClaudeSettingsThatDoNotParse: a Claude Code settings file nova
// cannot read stops it, naming the file, since a guard in it would
// otherwise be off without a word.
func TestClaudeSettingsThatDoNotParse(t *testing.T) {
	novaHome, proj, home := t.TempDir(), t.TempDir(), t.TempDir()
	path := filepath.Join(proj, ".claude", "settings.json")
	writeFile(t, path, `{"hooks": {"PreToolUse": [}`)
	_, _, err := LoadSettings(novaHome, proj, home, true)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want one naming %s", err, path)
	}
}

// TestHomeAsWorkspace: in the home directory, .claude/settings.json is
// the user's own file: it applies untrusted, and once.
func TestHomeAsWorkspace(t *testing.T) {
	novaHome, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	s, _, err := LoadSettings(novaHome, home, home, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.HookSets) != 1 || len(s.Ignored) != 0 {
		t.Errorf("hook sets %v, ignored %v", hookFiles(s), s.Ignored)
	}
}
