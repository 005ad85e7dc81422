package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSettingsLayers: --setting-sources loads only the layers it names,
// their Claude Code hook files alike, and --settings merges over them all,
// trusted folder or not, checked as a file is.
func TestSettingsLayers(t *testing.T) {
	novaHome, proj, home := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(novaHome, "settings.json"), `{"permissions": {"allow": ["Bash(make)"], "defaultMode": "plan"}}`)
	writeFile(t, filepath.Join(proj, ".nova", "settings.json"), `{"permissions": {"allow": ["Bash(npm test)"]}}`)
	writeFile(t, filepath.Join(proj, ".nova", "settings.local.json"), `{"permissions": {"allow": ["Edit(src/**)"]}}`)
	writeFile(t, filepath.Join(proj, ".claude", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)

	if all, _, err := LoadSettings(novaHome, proj, home, true); err != nil || len(all.HookSets) != 1 || len(all.Permissions.Allow) != 3 {
		t.Fatalf("all layers: %+v (%v), want three allow rules and the project's hooks", all, err)
	}
	st, files, err := LoadSettingsLayers(novaHome, proj, home, true, SettingsLayers{Sources: []string{SourceUser, SourceLocal}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.Permissions.Allow, []string{"Bash(make)", "Edit(src/**)"}) || len(files) != 2 {
		t.Errorf("user,local: allow %v from %v, want the project file's left out", st.Permissions.Allow, files)
	}
	if len(st.HookSets) != 0 {
		t.Errorf("user,local: hooks of %v loaded, want .claude/settings.json's (project) left out", st.HookSets)
	}
	st, files, err = LoadSettingsLayers(novaHome, proj, home, true, SettingsLayers{Sources: []string{}})
	if err != nil || len(files) != 0 || len(st.Permissions.Allow) != 0 {
		t.Errorf("no sources: %v from %v (%v), want nothing", st.Permissions.Allow, files, err)
	}

	// --settings, inline: its values win, and it grants in an untrusted
	// folder, where the project's grants are left out.
	st, files, err = LoadSettingsLayers(novaHome, proj, home, false, SettingsLayers{
		Flag: `{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read(/opt/**)"], "defaultMode": "acceptEdits"}}`})
	if err != nil {
		t.Fatal(err)
	}
	if st.Permissions.DefaultMode != "acceptEdits" || st.Sources["permissions.defaultMode"] != FlagSettingsName {
		t.Errorf("defaultMode %q from %q, want --settings' over the user file's", st.Permissions.DefaultMode, st.Sources["permissions.defaultMode"])
	}
	if !slices.Contains(st.Permissions.Allow, "Read(/opt/**)") || !slices.Contains(st.Permissions.Deny, "Bash(rm:*)") || slices.Contains(st.Permissions.Allow, "Bash(npm test)") {
		t.Errorf("untrusted with --settings: allow %v deny %v", st.Permissions.Allow, st.Permissions.Deny)
	}
	if last := st.RuleSets[len(st.RuleSets)-1]; last.Source != FlagSettingsName || files[len(files)-1] != FlagSettingsName {
		t.Errorf("last rule set from %q, files %v: want --settings last", last.Source, files)
	}

	// A file, relative to Dir.
	writeFile(t, filepath.Join(proj, "ci.json"), `{"env": {"CI_MODE": "1"}}`)
	st, _, err = LoadSettingsLayers(novaHome, proj, home, false, SettingsLayers{Flag: "ci.json", Dir: proj})
	if err != nil || st.Env["CI_MODE"] != "1" {
		t.Errorf("--settings ci.json: env %v (%v)", st.Env, err)
	}

	for _, bad := range []struct{ flag, want string }{
		{`{"permissions": {"allow": [1]}}`, "--settings JSON"},
		{`{"permissions": {"deny": ["Bash(unclosed"]}}`, "--settings JSON: line 1"},
		{`{"permissions": {"defaultMode": "yolo"}}`, `unknown defaultMode "yolo"`},
		{"missing.json", "--settings: open"},
	} {
		_, _, err := LoadSettingsLayers(novaHome, proj, home, true, SettingsLayers{Flag: bad.flag, Dir: proj})
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--settings %s: %v, want an error with %q", bad.flag, err, bad.want)
		}
	}
}

func TestParseSettingSources(t *testing.T) {
	for in, want := range map[string][]string{"": {}, "user,project,local": {"user", "project", "local"}, " user , user": {"user"}} {
		got, err := ParseSettingSources(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseSettingSources(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseSettingSources("user,policy"); err == nil || !strings.Contains(err.Error(), `"policy"`) {
		t.Errorf("policy: %v", err)
	}
}
