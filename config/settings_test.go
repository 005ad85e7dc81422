package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/permission"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSettingsMerges(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), `{
  "permissions": {"allow": ["Bash(make)"], "deny": ["Read(./secrets/**)"], "defaultMode": "plan"},
  "sandbox": {"enabled": true, "autoAllow": true},
  "env": {"A": "user", "B": "user"},
  "theme": "dark",
  "screen": "alternate"
}`)
	writeFile(t, filepath.Join(proj, ".nova", "settings.json"), `{
  "permissions": {"allow": ["Bash(npm run test:*)"], "ask": ["Bash(git push:*)"], "additionalDirectories": ["../shared"]},
  "env": {"B": "project"}
}`)
	writeFile(t, filepath.Join(proj, ".nova", "settings.local.json"), `{
  "permissions": {"defaultMode": "acceptEdits", "allow": ["Edit(src/**)"]},
  "sandbox": {"autoAllow": false},
  "screen": "inline"
}`)
	s, files, err := LoadSettings(home, proj, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("files %v", files)
	}
	if want := []string{"Bash(make)", "Bash(npm run test:*)", "Edit(src/**)"}; !slices.Equal(s.Permissions.Allow, want) {
		t.Errorf("allow %v", s.Permissions.Allow)
	}
	if s.Permissions.DefaultMode != "acceptEdits" {
		t.Errorf("defaultMode %q: the local file should win", s.Permissions.DefaultMode)
	}
	if s.Screen != "inline" || s.Sources["screen"] != files[2] {
		t.Errorf("screen %q from %q: the local file's should win", s.Screen, s.Sources["screen"])
	}
	if s.Env["A"] != "user" || s.Env["B"] != "project" {
		t.Errorf("env %v", s.Env)
	}
	if *s.Sandbox.Enabled != true || *s.Sandbox.AutoAllow != false {
		t.Errorf("sandbox %+v", s.Sandbox)
	}
	if want := filepath.Join(filepath.Dir(proj), "shared"); !slices.Equal(s.Permissions.AdditionalDirectories, []string{want}) {
		t.Errorf("dirs %v", s.Permissions.AdditionalDirectories)
	}
	if len(s.RuleSets) != 3 || s.RuleSets[0].Source != files[0] || s.RuleSets[1].Base != proj {
		t.Errorf("rule sets %+v", s.RuleSets)
	}
}

func TestLoadSettingsErrors(t *testing.T) {
	tests := []struct {
		name, file, data, want string
	}{
		{"syntax", "local", "{\n  \"permissions\": {\n    \"allow\": [\"Bash\",]\n  }\n}", "line 3, column"},
		{"type", "user", `{"permissions": {"allow": "Bash"}}`, "line 1, column"},
		{"bad rule", "project", "{\"permissions\": {\n\"deny\": [\"Bash(\"]}}", "line 2, column 10"},
		{"bad mode", "local", `{"permissions": {"defaultMode": "yolo"}}`, "unknown defaultMode"},
		{"committed bypass", "project", `{"permissions": {"defaultMode": "bypassPermissions"}}`, "only in user or local"},
		{"bad passthrough glob", "user", "{\"envPassthrough\": [\"GITHUB_TOKEN\",\n \"AWS_[\"]}", "line 2, column 2"},
		{"empty passthrough", "local", `{"envPassthrough": [""]}`, "not a variable name or a glob"},
		{"passthrough not a list", "user", `{"envPassthrough": "GITHUB_TOKEN"}`, "line 1, column"},
		{"bad screen", "project", "{\n \"screen\": \"fullscreen\"}", `line 2, column 2: screen "fullscreen": want "alternate" or "inline"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, proj := t.TempDir(), t.TempDir()
			path := map[string]string{
				"user":    filepath.Join(home, "settings.json"),
				"project": filepath.Join(proj, ".nova", "settings.json"),
				"local":   filepath.Join(proj, ".nova", "settings.local.json"),
			}[tt.file]
			writeFile(t, path, tt.data)
			_, _, err := LoadSettings(home, proj, "", true)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to name %s and %q", err, path, tt.want)
			}
		})
	}
}

func TestLoadSettingsNone(t *testing.T) {
	s, files, err := LoadSettings(t.TempDir(), t.TempDir(), "", false)
	if err != nil || len(files) != 0 || len(s.Permissions.Allow) != 0 {
		t.Fatalf("%+v %v %v", s, files, err)
	}
}

// TestLoadSettingsHomeDirs checks "~/" in directory settings stands for
// the home directory the caller names, not the process's.
func TestLoadSettingsHomeDirs(t *testing.T) {
	novaHome, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", "/not/this/one")
	writeFile(t, filepath.Join(novaHome, "settings.json"), `{
  "permissions": {"additionalDirectories": ["~/shared", "~", "rel"]},
  "sandbox": {"denyRead": ["~/.vault"]}
}`)
	s, _, err := LoadSettings(novaHome, proj, "/home/u", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/home/u/shared", "/home/u", filepath.Join(proj, "rel")}; !slices.Equal(s.Permissions.AdditionalDirectories, want) {
		t.Errorf("additionalDirectories %v, want %v", s.Permissions.AdditionalDirectories, want)
	}
	if want := []string{"/home/u/.vault"}; !slices.Equal(s.Sandbox.DenyRead, want) {
		t.Errorf("sandbox mask %v, want %v", s.Sandbox.DenyRead, want)
	}
	// Without a home, "~/" is a directory of that name in the project.
	s, _, err = LoadSettings(novaHome, proj, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Permissions.AdditionalDirectories[0]; got != filepath.Join(proj, "~", "shared") {
		t.Errorf("without a home: %s", got)
	}
}

func TestPermissionConfig(t *testing.T) {
	proj := t.TempDir()
	on, off := true, false
	s := &Settings{Permissions: Permissions{DefaultMode: "plan", AdditionalDirectories: []string{"/data"}}, Sandbox: SandboxSettings{Enabled: &on, AutoAllow: &on}}
	s.RuleSets = []permission.RuleSet{{Source: "x", Base: proj, Allow: []string{"Bash(make)"}}}
	cfg, err := s.PermissionConfig(PermissionOptions{
		Workspace: proj, Home: "/home/u",
		AllowedTools:    []string{"Bash(git log:*),Read", "Edit"},
		DisallowedTools: []string{"Bash(curl:*)"},
		AddDirs:         []string{"/extra"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mode != permission.ModePlan || !cfg.SandboxAutoAllow {
		t.Errorf("cfg %+v", cfg)
	}
	if !slices.Equal(cfg.AddDirs, []string{"/data", "/extra"}) {
		t.Errorf("dirs %v", cfg.AddDirs)
	}
	last := cfg.RuleSets[len(cfg.RuleSets)-2:]
	if !slices.Equal(last[0].Allow, []string{"Bash(git log:*)", "Read", "Edit"}) || !slices.Equal(last[1].Deny, []string{"Bash(curl:*)"}) {
		t.Errorf("cli rules %+v", last)
	}
	c, err := permission.NewChecker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AllowAlways("Bash(npm run test:*)"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(proj, ".nova", "settings.local.json"))
	if err != nil || !strings.Contains(string(data), "npm run test") {
		t.Fatalf("allow always was not persisted: %s %v", data, err)
	}

	s.Sandbox.AutoAllow = &off
	cfg, err = s.PermissionConfig(PermissionOptions{Workspace: proj, Mode: permission.ModeAcceptEdits})
	if err != nil || cfg.Mode != permission.ModeAcceptEdits || cfg.SandboxAutoAllow {
		t.Errorf("cfg %+v %v", cfg, err)
	}
	if _, err := s.PermissionConfig(PermissionOptions{Workspace: proj, AllowedTools: []string{"Bash("}}); err == nil || !strings.Contains(err.Error(), "--allowedTools") {
		t.Errorf("bad CLI rule: %v", err)
	}
}

func TestAddLocalRule(t *testing.T) {
	proj := t.TempDir()
	path := filepath.Join(proj, ".nova", "settings.local.json")
	writeFile(t, path, `{"theme": "dark", "permissions": {"allow": ["Read"], "defaultMode": "plan"}}`)
	if err := AddLocalRule(proj, "allow", "Bash(npm run test:*)"); err != nil {
		t.Fatal(err)
	}
	if err := AddLocalRule(proj, "allow", "Bash(npm run test:*)"); err != nil {
		t.Fatal(err)
	}
	if err := AddLocalRule(proj, "deny", "Bash(curl:*)"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Theme       string      `json:"theme"`
		Permissions Permissions `json:"permissions"`
	}
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Theme != "dark" || doc.Permissions.DefaultMode != "plan" ||
		!slices.Equal(doc.Permissions.Allow, []string{"Read", "Bash(npm run test:*)"}) || !slices.Equal(doc.Permissions.Deny, []string{"Bash(curl:*)"}) {
		t.Errorf("file %s", data)
	}
	if err := AddLocalRule(proj, "maybe", "Read"); err == nil {
		t.Error("unknown list accepted")
	}
	if err := AddLocalRule(proj, "allow", "Bash("); err == nil {
		t.Error("bad rule accepted")
	}
	writeFile(t, path, `{broken`)
	if err := AddLocalRule(proj, "allow", "Read"); err == nil {
		t.Error("a broken file was overwritten")
	}
}

func TestAddLocalRuleConcurrent(t *testing.T) {
	proj := t.TempDir()
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := AddLocalRule(proj, "allow", "Bash(make t"+string(rune('0'+i))+")"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	home := t.TempDir()
	s, _, err := LoadSettings(home, proj, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Permissions.Allow) != 10 {
		t.Errorf("lost updates: %v", s.Permissions.Allow)
	}
}

func TestRemoveRule(t *testing.T) {
	const start = `{
  "theme": "dark",
  "env": {"A": "1"},
  "permissions": {"allow": ["Read", " Bash(make) ", "Bash(make)"], "deny": ["Bash(curl:*)"], "defaultMode": "plan", "additionalDirectories": ["../x"]}
}`
	for _, tc := range []struct {
		name, list, rule string
		wantAllow        []string
		wantDeny         []string
		wantErr          string
	}{
		// Every copy goes, however it was spaced, or the rule still applies.
		{name: "allow rule, all copies", list: "allow", rule: "Bash(make)", wantAllow: []string{"Read"}, wantDeny: []string{"Bash(curl:*)"}},
		{name: "last deny rule drops the list", list: "deny", rule: "Bash(curl:*)", wantAllow: []string{"Read", " Bash(make) ", "Bash(make)"}},
		{name: "not there", list: "ask", rule: "Read", wantErr: "not in permissions.ask"},
		{name: "unknown list", list: "maybe", rule: "Read", wantErr: "unknown list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			writeFile(t, path, start)
			if err := os.Chmod(path, 0o640); err != nil {
				t.Fatal(err)
			}
			err := RemoveRule(path, tc.list, tc.rule)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if data, _ := os.ReadFile(path); string(data) != start {
					t.Errorf("a failed removal changed the file:\n%s", data)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			var doc struct {
				Theme       string            `json:"theme"`
				Env         map[string]string `json:"env"`
				Permissions map[string]any    `json:"permissions"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Theme != "dark" || doc.Env["A"] != "1" || doc.Permissions["defaultMode"] != "plan" || doc.Permissions["additionalDirectories"] == nil {
				t.Errorf("other keys lost:\n%s", data)
			}
			var p Permissions
			raw, _ := json.Marshal(doc.Permissions)
			_ = json.Unmarshal(raw, &p)
			if !slices.Equal(p.Allow, tc.wantAllow) || !slices.Equal(p.Deny, tc.wantDeny) {
				t.Errorf("allow %q deny %q, want %q %q", p.Allow, p.Deny, tc.wantAllow, tc.wantDeny)
			}
			if _, ok := doc.Permissions["deny"]; !ok && tc.wantDeny != nil {
				t.Error("deny list dropped")
			}
			// Atomic: written through a temp file that was renamed, so
			// nothing else is left in the directory, and the mode is kept.
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if n := e.Name(); n != "settings.json" && n != "settings.json.lock" {
					t.Errorf("left behind %s", n)
				}
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640", st.Mode().Perm())
			}
		})
	}
}

func TestRemoveRuleErrors(t *testing.T) {
	dir := t.TempDir()
	if err := RemoveRule(filepath.Join(dir, "none.json"), "allow", "Read"); err == nil {
		t.Error("a missing file was accepted")
	}
	broken := filepath.Join(dir, "broken.json")
	writeFile(t, broken, `{broken`)
	if err := RemoveRule(broken, "allow", "Read"); err == nil {
		t.Error("a broken file was accepted")
	}
	if data, _ := os.ReadFile(broken); string(data) != `{broken` {
		t.Errorf("a broken file was rewritten: %s", data)
	}
}

// TestRemoveRuleConcurrentWithAdd checks removals and "allow always"
// additions to the same file lose nothing: both take the file's lock.
func TestRemoveRuleConcurrentWithAdd(t *testing.T) {
	proj := t.TempDir()
	path := filepath.Join(proj, ".nova", "settings.local.json")
	var old []string
	for i := range 10 {
		old = append(old, fmt.Sprintf("Bash(old %d)", i))
	}
	data, _ := json.Marshal(map[string]any{"permissions": map[string]any{"allow": old}})
	writeFile(t, path, string(data))
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if err := RemoveRule(path, "allow", old[i]); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if err := AddLocalRule(proj, "allow", fmt.Sprintf("Bash(new %d)", i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, _, err := LoadSettings(t.TempDir(), proj, "", true)
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(s.Permissions.Allow))
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf("Bash(new %d)", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("allow %q, want %q", got, want)
	}
}

func TestListRules(t *testing.T) {
	sets := []permission.RuleSet{
		{Source: "/h/settings.json", Allow: []string{"Read", "Read"}, Deny: []string{"Bash(rm:*)"}},
		{Source: "/p/.nova/settings.local.json", Allow: []string{"Edit"}, Ask: []string{"Bash(git push:*)"}},
		{Source: "--allowedTools", Allow: []string{"Read"}},
	}
	got := ListRules(sets)
	want := []RuleEntry{
		{List: "allow", Rule: "Read", Source: "/h/settings.json"},
		{List: "allow", Rule: "Edit", Source: "/p/.nova/settings.local.json"},
		{List: "allow", Rule: "Read", Source: "--allowedTools"},
		{List: "ask", Rule: "Bash(git push:*)", Source: "/p/.nova/settings.local.json"},
		{List: "deny", Rule: "Bash(rm:*)", Source: "/h/settings.json"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestAddLocalRuleKeepsLocalSettingsOutOfGit(t *testing.T) {
	proj := t.TempDir()
	if err := AddLocalRule(proj, "allow", "Bash(go test:*)"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(proj, ".nova", ".gitignore"))
	if err != nil || string(got) != "settings.local.json\n" {
		t.Fatalf(".nova/.gitignore = %q, %v", got, err)
	}
	// A .gitignore the user wrote is left as it is.
	custom := []byte("# mine\n")
	if err := os.WriteFile(filepath.Join(proj, ".nova", ".gitignore"), custom, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AddLocalRule(proj, "allow", "Read"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(proj, ".nova", ".gitignore")); string(got) != string(custom) {
		t.Errorf("user's .gitignore rewritten: %q", got)
	}
}

// TestEnableToolSearchSetting: a boolean or a string, the later file's
// value winning, with the file it came from; anything else is refused.
func TestEnableToolSearchSetting(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), `{"enableToolSearch": true}`)
	s, _, err := LoadSettings(home, proj, "", true)
	if err != nil || s.EnableToolSearch != "true" {
		t.Fatalf("a boolean: %q, %v", s.EnableToolSearch, err)
	}
	local := filepath.Join(proj, ".nova", "settings.local.json")
	writeFile(t, local, `{"enableToolSearch": "auto:5"}`)
	writeFile(t, filepath.Join(proj, ".nova", "settings.json"), `{"enableToolSearch": null}`)
	s, _, err = LoadSettings(home, proj, "", true)
	if err != nil || s.EnableToolSearch != "auto:5" || s.Sources["enableToolSearch"] != local {
		t.Fatalf("the later file: %q from %q, %v", s.EnableToolSearch, s.Sources["enableToolSearch"], err)
	}
	writeFile(t, local, `{"enableToolSearch": 5}`)
	if _, _, err := LoadSettings(home, proj, "", true); err == nil || !strings.Contains(err.Error(), local) || !strings.Contains(err.Error(), "enableToolSearch") {
		t.Errorf("a number: %v", err)
	}
}
