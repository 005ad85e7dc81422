package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// claudeProject writes a home with Claude Code's user file and a project
// with Claude Code's committed file, both of the keys nova reads and one
// it does not.
func claudeProject(t *testing.T) (novaHome, proj, home string) {
	t.Helper()
	novaHome, proj, home = t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{
		"permissions": {"allow": ["Bash(ls:*)"], "deny": ["Bash(curl:*)"]},
		"env": {"FROM_USER": "u", "BOTH": "user"},
		"model": "opus",
		"statusLine": {"type": "command", "command": "echo user-status"},
		"theme": "dark"
	}`)
	writeFile(t, filepath.Join(proj, ".claude", "settings.json"), `{
		"permissions": {"allow": ["Bash(touch:*)"], "ask": ["Bash(git push:*)"], "deny": ["Bash(wget:*)"],
			"defaultMode": "acceptEdits", "additionalDirectories": ["../shared"]},
		"env": {"FROM_PROJECT": "p"},
		"enableAllProjectMcpServers": true,
		"enabledMcpjsonServers": ["good"], "disabledMcpjsonServers": ["bad"],
		"sandbox": {"enabled": false, "network": {"allowedDomains": ["github.com"]},
			"filesystem": {"allowWrite": ["/tmp/build"], "denyRead": ["~/.aws"]}, "excludedCommands": ["docker"]},
		"statusLine": {"type": "command", "command": "echo project-status"},
		"includeCoAuthoredBy": false
	}`)
	return novaHome, proj, home
}

// rulesOf lists a settings' rules as "list rule <- file".
func rulesOf(s *Settings) []string {
	var out []string
	for _, e := range ListRules(s.RuleSets) {
		out = append(out, e.List+" "+e.Rule+" <- "+filepath.Base(filepath.Dir(e.Source))+"/"+filepath.Base(e.Source))
	}
	return out
}

// TestClaudeSettingsUntrusted: in a folder nobody trusted, the deny and
// ask rules of a project's .claude/settings.json hold, its grants (allow,
// mode, directories, env, MCP approvals, sandbox off, status line) are
// left out and listed, and the user's own ~/.claude/settings.json
// applies whole.
func TestClaudeSettingsUntrusted(t *testing.T) {
	novaHome, proj, home := claudeProject(t)
	s, files, err := LoadSettings(novaHome, proj, home, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 0 {
		t.Errorf("loaded %v: nova's own files only, and there are none", files)
	}
	want := []string{
		"allow Bash(ls:*) <- .claude/settings.json",
		"ask Bash(git push:*) <- .claude/settings.json",
		"deny Bash(curl:*) <- .claude/settings.json",
		"deny Bash(wget:*) <- .claude/settings.json",
	}
	if got := rulesOf(s); !slices.Equal(got, want) {
		t.Errorf("rules = %q, want %q", got, want)
	}
	if s.RuleSets[0].Source != filepath.Join(home, ".claude", "settings.json") || s.RuleSets[1].Source != filepath.Join(proj, ".claude", "settings.json") {
		t.Errorf("rule sources %q, %q", s.RuleSets[0].Source, s.RuleSets[1].Source)
	}
	if s.Permissions.DefaultMode != "" || len(s.Permissions.AdditionalDirectories) != 0 || len(s.Sandbox.AllowWrite) != 0 {
		t.Errorf("project grants applied: mode %q, dirs %v, allowWrite %v", s.Permissions.DefaultMode, s.Permissions.AdditionalDirectories, s.Sandbox.AllowWrite)
	}
	if s.Env["FROM_USER"] != "u" || s.Env["FROM_PROJECT"] != "" {
		t.Errorf("env = %v, want the user's only", s.Env)
	}
	if s.EnableAllProjectMcpServers != nil || len(s.EnabledMcpjsonServers) != 0 || !slices.Equal(s.DisabledMcpjsonServers, []string{"bad"}) {
		t.Errorf("mcp approvals: all %v, enabled %v, disabled %v", s.EnableAllProjectMcpServers, s.EnabledMcpjsonServers, s.DisabledMcpjsonServers)
	}
	if s.Sandbox.Enabled != nil {
		t.Errorf("the project switched the sandbox off untrusted")
	}
	// Tightening applies untrusted: what the sandbox hides.
	if !slices.Equal(s.Sandbox.DenyRead, []string{filepath.Join(home, ".aws")}) {
		t.Errorf("denyRead = %v", s.Sandbox.DenyRead)
	}
	if s.StatusLine == nil || s.StatusLine.Command != "echo user-status" || s.Sources["statusLine"] != filepath.Join(home, ".claude", "settings.json") {
		t.Errorf("statusLine = %+v from %s, want the user's", s.StatusLine, s.Sources["statusLine"])
	}
	if s.Model != "opus" {
		t.Errorf("model = %q", s.Model)
	}
	var ignored []string
	for _, ig := range s.Ignored {
		ignored = append(ignored, ig.Setting)
	}
	for _, k := range []string{"permissions.allow", "permissions.defaultMode", "permissions.additionalDirectories", "env", "sandbox.enabled",
		"enableAllProjectMcpServers", "enabledMcpjsonServers", "sandbox.filesystem.allowWrite", "statusLine"} {
		if !slices.Contains(ignored, k) {
			t.Errorf("ignored %q lacks %s", ignored, k)
		}
	}
}

// TestClaudeSettingsTrusted: trusted, the project's grants apply too, and
// doctor's record says which file supplied which key and what nova read
// but cannot apply.
func TestClaudeSettingsTrusted(t *testing.T) {
	novaHome, proj, home := claudeProject(t)
	s, _, err := LoadSettings(novaHome, proj, home, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rulesOf(s), "allow Bash(touch:*) <- .claude/settings.json") {
		t.Errorf("rules %q lack the project's allow", rulesOf(s))
	}
	if s.Permissions.DefaultMode != "acceptEdits" || !slices.Equal(s.Permissions.AdditionalDirectories, []string{filepath.Join(filepath.Dir(proj), "shared")}) {
		t.Errorf("mode %q, dirs %v", s.Permissions.DefaultMode, s.Permissions.AdditionalDirectories)
	}
	if s.Env["FROM_PROJECT"] != "p" || s.Sandbox.Enabled == nil || *s.Sandbox.Enabled || !slices.Equal(s.Sandbox.AllowWrite, []string{"/tmp/build"}) {
		t.Errorf("env %v, sandbox %+v", s.Env, s.Sandbox)
	}
	if s.EnableAllProjectMcpServers == nil || !*s.EnableAllProjectMcpServers || !slices.Equal(s.EnabledMcpjsonServers, []string{"good"}) {
		t.Errorf("mcp approvals: all %v, enabled %v", s.EnableAllProjectMcpServers, s.EnabledMcpjsonServers)
	}
	if s.StatusLine == nil || s.StatusLine.Command != "echo project-status" {
		t.Errorf("statusLine = %+v, want the project's (a later layer)", s.StatusLine)
	}
	if len(s.Claude) != 2 {
		t.Fatalf("claude reads = %+v", s.Claude)
	}
	if got, want := s.Claude[0].Keys, []string{"env", "model", "permissions.allow", "permissions.deny", "statusLine"}; !slices.Equal(got, want) || s.Claude[0].Layer != SourceUser {
		t.Errorf("user file keys = %q (%s), want %q", got, s.Claude[0].Layer, want)
	}
	p := s.Claude[1]
	for _, k := range []string{"permissions.ask", "permissions.defaultMode", "enabledMcpjsonServers", "sandbox.enabled", "sandbox.filesystem.allowWrite", "sandbox.filesystem.denyRead"} {
		if !slices.Contains(p.Keys, k) {
			t.Errorf("project keys %q lack %s", p.Keys, k)
		}
	}
	if slices.Contains(p.Keys, "includeCoAuthoredBy") {
		t.Errorf("an unknown key is listed as read")
	}
	for _, k := range []string{"sandbox.network.allowedDomains", "sandbox.excludedCommands"} {
		if !slices.Contains(p.Keys, k) {
			t.Errorf("project keys %q lack %s", p.Keys, k)
		}
	}
	if len(p.Skipped) != 0 {
		t.Errorf("skipped %q: every key of the project file maps", p.Skipped)
	}
	// Claude Code's allowedDomains send commands through the proxy; its
	// "docker" is every docker command.
	if n := s.Sandbox.Network; !n.Filtered() || !slices.Equal(n.AllowedDomains, []string{"github.com"}) {
		t.Errorf("network = %+v, want the proxy with github.com", n)
	}
	if !slices.Equal(s.Sandbox.ExcludedCommands, []string{"docker:*"}) {
		t.Errorf("excludedCommands = %q", s.Sandbox.ExcludedCommands)
	}
}

// TestClaudeSandboxKeysUntrusted: a project's allowedDomains and
// excludedCommands are grants (a host reached, a command outside the
// sandbox): left out and listed in a folder nobody trusted; a host or
// command nova cannot read is left out and said, trusted too.
func TestClaudeSandboxKeysUntrusted(t *testing.T) {
	novaHome, proj, home := claudeProject(t)
	s, _, err := LoadSettings(novaHome, proj, home, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Sandbox.Network != nil || len(s.Sandbox.ExcludedCommands) != 0 {
		t.Errorf("untrusted project granted network %+v, excluded %q", s.Sandbox.Network, s.Sandbox.ExcludedCommands)
	}
	var ignored []string
	for _, ig := range s.Ignored {
		ignored = append(ignored, ig.Setting+"="+ig.Value)
	}
	for _, k := range []string{"sandbox.network=allowedDomains: github.com", "sandbox.excludedCommands=docker:*"} {
		if !slices.Contains(ignored, k) {
			t.Errorf("ignored %q lacks %s", ignored, k)
		}
	}
	path := filepath.Join(proj, ".claude", "settings.local.json")
	writeFile(t, path, `{"sandbox": {"network": {"allowedDomains": ["exa mple.com", "*.npmjs.org"]}, "excludedCommands": ["git status", "a:*b:*"]}}`)
	if s, _, err = LoadSettings(novaHome, proj, home, true); err != nil {
		t.Fatal(err)
	}
	if n := s.Sandbox.Network; !n.Filtered() || !slices.Equal(n.AllowedDomains, []string{"github.com", "*.npmjs.org"}) {
		t.Errorf("network = %+v", n)
	}
	if !slices.Equal(s.Sandbox.ExcludedCommands, []string{"docker:*", "git status:*"}) {
		t.Errorf("excludedCommands = %q", s.Sandbox.ExcludedCommands)
	}
	skipped := strings.Join(s.Claude[2].Skipped, "\n")
	if !strings.Contains(skipped, `"exa mple.com"`) || !strings.Contains(skipped, `"a:*b:*"`) {
		t.Errorf("skipped = %q", skipped)
	}
}

// TestClaudeDisableBypass: permissions.disableBypassPermissionsMode
// "disable" refuses bypassPermissions however it is asked for (the flag,
// defaultMode), from a project file in a folder nobody trusted too (it
// restricts), and names the file; other modes still start.
func TestClaudeDisableBypass(t *testing.T) {
	novaHome, proj, home := t.TempDir(), t.TempDir(), t.TempDir()
	path := filepath.Join(proj, ".claude", "settings.json")
	writeFile(t, path, `{"permissions": {"disableBypassPermissionsMode": "disable"}}`)
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	s, _, err := LoadSettings(novaHome, proj, home, false)
	if err != nil {
		t.Fatal(err)
	}
	err = s.BypassDisabled()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("BypassDisabled = %v, want it naming %s", err, path)
	}
	o := PermissionOptions{Workspace: proj, Home: home, NovaHome: novaHome}
	if _, err := s.PermissionConfig(o); err == nil || !strings.Contains(err.Error(), "disableBypassPermissionsMode") {
		t.Errorf("defaultMode bypassPermissions: err = %v", err)
	}
	o.Mode = permission.ModeBypass
	if _, err := s.PermissionConfig(o); err == nil {
		t.Errorf("--permission-mode bypassPermissions was not refused")
	}
	o.Mode = permission.ModeAcceptEdits
	if cfg, err := s.PermissionConfig(o); err != nil || cfg.Mode != permission.ModeAcceptEdits {
		t.Errorf("acceptEdits: mode %q, err %v", cfg.Mode, err)
	}
	// Positive control: without the key, bypassPermissions starts.
	writeFile(t, path, `{}`)
	if s, _, err = LoadSettings(novaHome, proj, home, false); err != nil || s.BypassDisabled() != nil {
		t.Fatalf("no key: %v, %v", err, s.BypassDisabled())
	}
	o.Mode = permission.ModeBypass
	if _, err := s.PermissionConfig(o); err != nil {
		t.Errorf("bypassPermissions without the key: %v", err)
	}
}

// TestClaudeSettingsNovaWins: in one layer, nova's own file wins where
// both set one value; the rules of both apply.
func TestClaudeSettingsNovaWins(t *testing.T) {
	novaHome, proj, home := claudeProject(t)
	writeFile(t, filepath.Join(proj, ".nova", "settings.json"), `{"permissions": {"defaultMode": "plan", "deny": ["Read(./secret)"]}, "env": {"FROM_PROJECT": "nova"}}`)
	writeFile(t, filepath.Join(novaHome, "settings.json"), `{"env": {"BOTH": "nova"}, "model": "haiku"}`)
	s, _, err := LoadSettings(novaHome, proj, home, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Permissions.DefaultMode != "plan" || s.Sources["permissions.defaultMode"] != filepath.Join(proj, ".nova", "settings.json") {
		t.Errorf("mode %q from %s, want nova's plan", s.Permissions.DefaultMode, s.Sources["permissions.defaultMode"])
	}
	if s.Env["FROM_PROJECT"] != "nova" || s.Env["BOTH"] != "nova" || s.Model != "haiku" {
		t.Errorf("env %v, model %q", s.Env, s.Model)
	}
	got := rulesOf(s)
	for _, r := range []string{"deny Bash(wget:*) <- .claude/settings.json", "deny Read(./secret) <- .nova/settings.json"} {
		if !slices.Contains(got, r) {
			t.Errorf("rules %q lack %s", got, r)
		}
	}
}

// TestClaudeSettingsSources: --setting-sources gates Claude Code's files
// as it gates nova's.
func TestClaudeSettingsSources(t *testing.T) {
	novaHome, proj, home := claudeProject(t)
	s, _, err := LoadSettingsLayers(novaHome, proj, home, true, SettingsLayers{Sources: []string{SourceProject}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(s); slices.Contains(got, "deny Bash(curl:*) <- .claude/settings.json") || !slices.Contains(got, "deny Bash(wget:*) <- .claude/settings.json") {
		t.Errorf("project only: rules %q", got)
	}
	if len(s.Claude) != 1 || s.Claude[0].Layer != SourceProject {
		t.Errorf("claude reads %+v", s.Claude)
	}
	s, _, err = LoadSettingsLayers(novaHome, proj, home, true, SettingsLayers{Sources: []string{SourceUser}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(s); !slices.Equal(got, []string{"allow Bash(ls:*) <- .claude/settings.json", "deny Bash(curl:*) <- .claude/settings.json"}) {
		t.Errorf("user only: rules %q", got)
	}
}

// TestClaudeSettingsBadRules: a deny or ask rule nova cannot read stops
// it, naming the file and line (the guard would be off); an allow rule
// or mode it cannot read is left out and said, which asks more, not less.
func TestClaudeSettingsBadRules(t *testing.T) {
	novaHome, proj, home := t.TempDir(), t.TempDir(), t.TempDir()
	path := filepath.Join(proj, ".claude", "settings.json")
	writeFile(t, path, `{"permissions": {"deny": ["Bash(curl"]}}`)
	if _, _, err := LoadSettings(novaHome, proj, home, true); err == nil || !strings.Contains(err.Error(), path+": line 1") {
		t.Errorf("bad deny: err = %v", err)
	}
	writeFile(t, path, `{"permissions": {"allow": ["Bash(ls", "Read"], "defaultMode": "dontAsk", "disableBypassPermissionsMode": "off"}}`)
	s, _, err := LoadSettings(novaHome, proj, home, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(s); !slices.Equal(got, []string{"allow Read <- .claude/settings.json"}) || s.Permissions.DefaultMode != "" {
		t.Errorf("rules %q, mode %q", got, s.Permissions.DefaultMode)
	}
	if len(s.Claude) != 1 || len(s.Claude[0].Skipped) != 3 || !strings.Contains(strings.Join(s.Claude[0].Skipped, "\n"), "disableBypassPermissionsMode") {
		t.Errorf("skipped = %+v", s.Claude)
	}
	// bypassPermissions from the committed file is not applied, even
	// trusted; from the local file it is.
	writeFile(t, path, `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	if s, _, err = LoadSettings(novaHome, proj, home, true); err != nil || s.Permissions.DefaultMode != "" {
		t.Errorf("committed bypass: mode %q, err %v", s.Permissions.DefaultMode, err)
	}
	writeFile(t, filepath.Join(proj, ".claude", "settings.local.json"), `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	if s, _, err = LoadSettings(novaHome, proj, home, true); err != nil || s.Permissions.DefaultMode != string(permission.ModeBypass) {
		t.Errorf("local bypass: mode %q, err %v", s.Permissions.DefaultMode, err)
	}
}

// TestClaudeSettingsMCPApprovals: the answers Claude Code recorded about
// a project's .mcp.json servers (enabledMcpjsonServers in
// .claude/settings.local.json, enableAllProjectMcpServers, a decline in
// the user's file) decide which start, in a trusted folder; untrusted,
// none does, and a decline still holds.
func TestClaudeSettingsMCPApprovals(t *testing.T) {
	w := newMCPWorld(t)
	writeFile(t, filepath.Join(w.ws, ".mcp.json"), `{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}, "c": {"command": "c"}}}`)
	writeFile(t, filepath.Join(w.ws, ".claude", "settings.local.json"), `{"enabledMcpjsonServers": ["a", "c"]}`)
	writeFile(t, filepath.Join(w.home, ".claude", "settings.json"), `{"disabledMcpjsonServers": ["c"]}`)
	states := func(trusted bool) string {
		st, _, err := LoadSettings(w.novaHome, w.ws, w.home, trusted)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, c := range w.load(t, MCPLoad{Trusted: trusted, Settings: st}) {
			parts = append(parts, c.Name+"="+string(c.State))
		}
		return strings.Join(parts, " ")
	}
	if got, want := states(true), "a=ready b=needs-approval c=rejected"; got != want {
		t.Errorf("trusted: %s, want %s", got, want)
	}
	if got, want := states(false), "a=untrusted b=untrusted c=rejected"; got != want {
		t.Errorf("untrusted: %s, want %s", got, want)
	}
	writeFile(t, filepath.Join(w.ws, ".claude", "settings.json"), `{"enableAllProjectMcpServers": true}`)
	if got, want := states(true), "a=ready b=ready c=rejected"; got != want {
		t.Errorf("trusted, all enabled: %s, want %s", got, want)
	}
}

// TestClaudeSettingsLayers: with no project directory the user's file is
// still the user's layer (its grants apply untrusted); with no home, the
// project's files keep theirs.
func TestClaudeSettingsLayers(t *testing.T) {
	home := t.TempDir()
	if got := claudeLayerFiles("", home); got[0] == "" || got[1] != "" || got[2] != "" {
		t.Errorf("home only: %q", got)
	}
	if got := claudeLayerFiles("/p", ""); got[0] != "" || got[1] != "/p/.claude/settings.json" || got[2] != "/p/.claude/settings.local.json" {
		t.Errorf("project only: %q", got)
	}
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"allow": ["Read"], "defaultMode": "acceptEdits"}}`)
	s, _, err := LoadSettings(t.TempDir(), "", home, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Permissions.DefaultMode != "acceptEdits" || len(s.Ignored) != 0 || len(s.Claude) != 1 || s.Claude[0].Layer != SourceUser {
		t.Errorf("mode %q, ignored %v, reads %+v", s.Permissions.DefaultMode, s.Ignored, s.Claude)
	}
}

// TestNovaStatusLineChecked: nova's own files may set statusLine too; one
// that is not a command is an error naming the file, as any bad setting.
func TestNovaStatusLineChecked(t *testing.T) {
	novaHome, proj := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(novaHome, "settings.json"), `{"statusLine": {"type": "command", "command": "echo mine"}}`)
	s, _, err := LoadSettings(novaHome, proj, "", false)
	if err != nil || s.StatusLine == nil || s.StatusLine.Command != "echo mine" {
		t.Fatalf("statusLine %+v, %v", s.StatusLine, err)
	}
	writeFile(t, filepath.Join(novaHome, "settings.json"), `{"statusLine": {"type": "static", "text": "x"}}`)
	if _, _, err := LoadSettings(novaHome, proj, "", false); err == nil || !strings.Contains(err.Error(), "statusLine wants") {
		t.Errorf("err = %v", err)
	}
}

// TestClaudeHome: CLAUDE_CONFIG_DIR replaces ~/.claude ("~/" in it is
// the home), and the user's Claude Code settings.json is read from it.
func TestClaudeHome(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CLAUDE_CONFIG_DIR" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct{ v, home, want string }{
		{"", "/home/u", "/home/u/.claude"},
		{"", "", ""},
		{"/etc/cc", "/home/u", "/etc/cc"},
		{"~/cc", "/home/u", "/home/u/cc"},
	} {
		if got := ClaudeHome(env(c.v), c.home); got != c.want {
			t.Errorf("ClaudeHome(%q, %q) = %q, want %q", c.v, c.home, got, c.want)
		}
	}
	home, novaHome, proj := t.TempDir(), t.TempDir(), t.TempDir()
	cc := filepath.Join(home, "cc")
	writeFile(t, filepath.Join(cc, "settings.json"), `{"permissions": {"deny": ["Bash(from-cc:*)"]}}`)
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(from-dot:*)"]}}`)
	writeFile(t, filepath.Join(cc, ".claude.json"), `{"mcpServers": {"from-cc": {"command": "x"}}}`)
	writeFile(t, filepath.Join(home, ".claude.json"), `{"mcpServers": {"from-home": {"command": "x"}}}`)
	s, _, err := LoadSettingsLayers(novaHome, proj, home, false, SettingsLayers{ClaudeHome: ClaudeHome(env(cc), home)})
	if err != nil || !slices.Equal(s.Permissions.Deny, []string{"Bash(from-cc:*)"}) {
		t.Errorf("deny = %v (%v), want CLAUDE_CONFIG_DIR's only", s.Permissions.Deny, err)
	}
	list, err := LoadMCP(MCPLoad{NovaHome: novaHome, Workspace: proj, Home: home, Getenv: env(cc), Settings: s})
	if err != nil || len(list) != 1 || list[0].Name != "from-cc" {
		t.Errorf("MCP servers = %+v (%v), want CLAUDE_CONFIG_DIR/.claude.json's only", list, err)
	}
}
