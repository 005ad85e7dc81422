package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nova-dev/nova/permission"
)

// ClaudeRead is what nova took from one of Claude Code's settings files,
// for nova doctor.
type ClaudeRead struct {
	File  string
	Layer string // SourceUser, SourceProject or SourceLocal
	// Keys are the keys of the file nova reads ("permissions.deny",
	// "env", "sandbox.enabled", ...), sorted; those a project file grants
	// in an untrusted folder are in Settings.Ignored as well.
	Keys []string
	// Skipped says what of the file nova read but does not apply, and why.
	Skipped []string
}

// StatusLine is the "statusLine" setting: a command whose first line of
// output the terminal UI shows as its status line (Claude Code's shape).
type StatusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Padding int    `json:"padding,omitempty"`
}

// claudeFile is the part of a Claude Code settings file nova reads. Its
// "sandbox" differs from nova's (objects where nova has booleans), so it
// is decoded apart and mapped onto nova's settings.
type claudeFile struct {
	Permissions                claudePermissions          `json:"permissions"`
	Env                        map[string]string          `json:"env"`
	Model                      string                     `json:"model"`
	EnableAllProjectMcpServers *bool                      `json:"enableAllProjectMcpServers"`
	EnabledMcpjsonServers      []string                   `json:"enabledMcpjsonServers"`
	DisabledMcpjsonServers     []string                   `json:"disabledMcpjsonServers"`
	Sandbox                    *claudeSandbox             `json:"sandbox"`
	StatusLine                 *StatusLine                `json:"statusLine"`
	Hooks                      json.RawMessage            `json:"hooks"`
	EnabledPlugins             map[string]bool            `json:"enabledPlugins"`
	ExtraKnownMarketplaces     map[string]json.RawMessage `json:"extraKnownMarketplaces"`
}

// claudePermissions is Claude Code's "permissions": nova's keys are
// Claude Code's.
type claudePermissions struct {
	Permissions
}

// claudeSandbox is Claude Code's "sandbox" object.
type claudeSandbox struct {
	Enabled                  *bool    `json:"enabled"`
	AutoAllowBashIfSandboxed *bool    `json:"autoAllowBashIfSandboxed"`
	ExcludedCommands         []string `json:"excludedCommands"`
	Network                  struct {
		AllowedDomains      []string `json:"allowedDomains"`
		AllowAllUnixSockets *bool    `json:"allowAllUnixSockets"`
		AllowUnixSockets    []string `json:"allowUnixSockets"`
		AllowLocalBinding   *bool    `json:"allowLocalBinding"`
	} `json:"network"`
	Filesystem struct {
		AllowWrite []string `json:"allowWrite"`
		DenyWrite  []string `json:"denyWrite"`
		DenyRead   []string `json:"denyRead"`
	} `json:"filesystem"`
}

// ClaudeSettingsFiles are Claude Code's settings files, which nova reads
// too so that a setup made for Claude Code works unchanged: the user's
// (settings.json in claudeHome, see ClaudeHome; none when it is ""),
// then the project's and its local file.
func ClaudeSettingsFiles(projectDir, claudeHome string) []string {
	var files []string
	for _, f := range claudeLayerFiles(projectDir, claudeHome) {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// claudeLayerFiles are ClaudeSettingsFiles by layer (user, project,
// local), "" where there is none.
func claudeLayerFiles(projectDir, claudeHome string) [3]string {
	var out [3]string
	if claudeHome != "" {
		out[0] = filepath.Join(claudeHome, "settings.json")
	}
	if projectDir != "" {
		out[1] = filepath.Join(projectDir, ".claude", "settings.json")
		out[2] = filepath.Join(projectDir, ".claude", "settings.local.json")
	}
	return out
}

// readClaudeFile reads one of Claude Code's settings files as nova
// settings; nil when the file does not exist. A file that does not
// parse, or a deny or ask rule nova cannot read, is an error naming the
// file: a guard in it would otherwise be off without a word. What nova
// reads but cannot apply (an allow rule it cannot read, a mode or
// sandbox key it lacks) is left out and said in the ClaudeRead.
func readClaudeFile(path, layer string) (*Settings, *ClaudeRead, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read settings %s: %w", path, err)
	}
	s := &Settings{}
	r := &ClaudeRead{File: path, Layer: layer}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, r, nil
	}
	var c claudeFile
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, nil, fmt.Errorf("settings %s: %s", path, describeJSONError(data, err))
	}
	key := func(k string, present bool) {
		if present {
			r.Keys = append(r.Keys, k)
		}
	}
	p := c.Permissions
	for _, list := range []struct {
		name  string
		rules []string
		to    *[]string
	}{{"allow", p.Allow, &s.Permissions.Allow}, {"ask", p.Ask, &s.Permissions.Ask}, {"deny", p.Deny, &s.Permissions.Deny}} {
		key("permissions."+list.name, len(list.rules) > 0)
		for _, rule := range list.rules {
			if _, err := permission.ParseRule(rule); err != nil {
				if list.name != "allow" {
					return nil, nil, fmt.Errorf("settings %s: %w", posOf(path, data, rule), err)
				}
				// An allow rule left out asks where Claude Code would not:
				// safe, and said.
				r.Skipped = append(r.Skipped, fmt.Sprintf("permissions.allow %q: %v", rule, err))
				continue
			}
			*list.to = append(*list.to, rule)
		}
	}
	if m := p.DefaultMode; m != "" {
		key("permissions.defaultMode", true)
		switch _, ok := permission.ParseMode(m); {
		case !ok:
			r.Skipped = append(r.Skipped, fmt.Sprintf("permissions.defaultMode %q: nova has no such mode (it has default, acceptEdits, plan and bypassPermissions)", m))
		case layer == SourceProject && permission.Mode(m) == permission.ModeBypass:
			// As in .nova/settings.json: a committed file must not switch
			// off every question for whoever clones the repository.
			r.Skipped = append(r.Skipped, "permissions.defaultMode bypassPermissions: not from the committed project file (set it in a user or local file)")
		default:
			s.Permissions.DefaultMode = m
		}
	}
	if v := p.DisableBypassPermissionsMode; v != "" {
		key("permissions.disableBypassPermissionsMode", true)
		if v == "disable" {
			s.Permissions.DisableBypassPermissionsMode = v
		} else {
			r.Skipped = append(r.Skipped, fmt.Sprintf("permissions.disableBypassPermissionsMode %q: the one value is \"disable\"", v))
		}
	}
	key("permissions.additionalDirectories", len(p.AdditionalDirectories) > 0)
	s.Permissions.AdditionalDirectories = p.AdditionalDirectories
	key("env", len(c.Env) > 0)
	s.Env = c.Env
	key("model", c.Model != "")
	s.Model = c.Model
	key("enableAllProjectMcpServers", c.EnableAllProjectMcpServers != nil)
	s.EnableAllProjectMcpServers = c.EnableAllProjectMcpServers
	key("enabledMcpjsonServers", len(c.EnabledMcpjsonServers) > 0)
	s.EnabledMcpjsonServers = c.EnabledMcpjsonServers
	key("disabledMcpjsonServers", len(c.DisabledMcpjsonServers) > 0)
	s.DisabledMcpjsonServers = c.DisabledMcpjsonServers
	if sl := c.StatusLine; sl != nil {
		key("statusLine", true)
		if sl.Type != "command" || sl.Command == "" {
			r.Skipped = append(r.Skipped, fmt.Sprintf("statusLine of type %q: nova runs only {\"type\": \"command\", \"command\": \"...\"}", sl.Type))
		} else {
			s.StatusLine = sl
		}
	}
	if sb := c.Sandbox; sb != nil {
		mapClaudeSandbox(sb, s, r)
	}
	key("hooks", len(bytes.TrimSpace(c.Hooks)) > 0 && !bytes.Equal(bytes.TrimSpace(c.Hooks), []byte("null")))
	s.Hooks = c.Hooks
	key("enabledPlugins", len(c.EnabledPlugins) > 0)
	key("extraKnownMarketplaces", len(c.ExtraKnownMarketplaces) > 0)
	s.EnabledPlugins, s.ExtraKnownMarketplaces = c.EnabledPlugins, c.ExtraKnownMarketplaces
	sort.Strings(r.Keys)
	return s, r, nil
}

// mapClaudeSandbox puts Claude Code's sandbox keys on nova's. What nova's
// sandbox cannot do is left out and said, which keeps it at least as
// tight as Claude Code's: a host or command nova cannot read asks.
func mapClaudeSandbox(sb *claudeSandbox, s *Settings, r *ClaudeRead) {
	key := func(k string, present bool) {
		if present {
			r.Keys = append(r.Keys, "sandbox."+k)
		}
	}
	skip := func(k string, present bool, why string) {
		if present {
			r.Skipped = append(r.Skipped, "sandbox."+k+": "+why)
		}
	}
	key("enabled", sb.Enabled != nil)
	s.Sandbox.Enabled = sb.Enabled
	key("autoAllowBashIfSandboxed", sb.AutoAllowBashIfSandboxed != nil)
	s.Sandbox.AutoAllow = sb.AutoAllowBashIfSandboxed
	key("network.allowAllUnixSockets", sb.Network.AllowAllUnixSockets != nil)
	s.Sandbox.AllowUnixSockets = sb.Network.AllowAllUnixSockets
	key("filesystem.denyRead", len(sb.Filesystem.DenyRead) > 0)
	s.Sandbox.DenyRead = sb.Filesystem.DenyRead
	key("filesystem.allowWrite", len(sb.Filesystem.AllowWrite) > 0)
	s.Sandbox.AllowWrite = sb.Filesystem.AllowWrite
	if d := sb.Network.AllowedDomains; len(d) > 0 {
		key("network.allowedDomains", true)
		var ok []string
		for _, h := range d {
			if err := permission.ValidHostPattern(h); err != nil {
				// Left out, the host asks: tighter, and said.
				skip("network.allowedDomains", true, fmt.Sprintf("%q: %v", h, err))
				continue
			}
			ok = append(ok, h)
		}
		// Claude Code's list sends commands through its proxy, as nova's
		// object form of sandbox.network does.
		s.Sandbox.Network = &NetworkSetting{AllowedDomains: append([]string{}, ok...)}
	}
	if ex := sb.ExcludedCommands; len(ex) > 0 {
		key("excludedCommands", true)
		for _, c := range ex {
			p := claudeExcluded(c)
			if err := permission.ValidExcluded(p); err != nil {
				skip("excludedCommands", true, fmt.Sprintf("%q: %v", c, err))
				continue
			}
			s.Sandbox.ExcludedCommands = append(s.Sandbox.ExcludedCommands, p)
		}
	}
	skip("network.allowUnixSockets", len(sb.Network.AllowUnixSockets) > 0, "nova allows Unix sockets all or none (sandbox.network.allowAllUnixSockets)")
	skip("network.allowLocalBinding", sb.Network.AllowLocalBinding != nil, "nova has no such setting")
	skip("filesystem.denyWrite", len(sb.Filesystem.DenyWrite) > 0, "nova has no such setting; its sandbox keeps .nova, .claude, .git/hooks and the like read-only")
}

// claudeExcluded is one of Claude Code's sandbox.excludedCommands as a
// Bash rule specifier: Claude Code's "docker" is the command and every
// use of it (docker ps, docker run ...), which nova writes "docker:*";
// a pattern already in rule form stays as written.
func claudeExcluded(c string) string {
	c = strings.TrimSpace(c)
	if c == "" || strings.ContainsAny(c, "*:") {
		return c
	}
	return c + ":*"
}

// BypassDisabled is the error for entering bypassPermissions when a
// settings file sets permissions.disableBypassPermissionsMode to
// "disable"; nil when none does.
func (m *Settings) BypassDisabled() error {
	if m == nil || m.Permissions.DisableBypassPermissionsMode != "disable" {
		return nil
	}
	return fmt.Errorf("bypassPermissions is disabled by permissions.disableBypassPermissionsMode in %s: choose another permission mode (default, acceptEdits, plan)",
		m.Sources["permissions.disableBypassPermissionsMode"])
}

// posOf says where needle first appears in data, for messages.
func posOf(path string, data []byte, needle string) string {
	enc, _ := json.Marshal(needle)
	off := bytes.Index(data, enc)
	if off < 0 {
		return path
	}
	line, col := LineCol(data, int64(off))
	return fmt.Sprintf("%s: line %d, column %d", path, line, col)
}

// loadClaude reads the Claude Code settings file of one layer and merges
// it: what a project or local file grants only when trusted (or listed
// in Ignored), as for nova's own files.
func (m *Settings) loadClaude(path, layer, projectDir, home string, trusted bool) error {
	s, r, err := readClaudeFile(path, layer)
	if err != nil || s == nil {
		return err
	}
	if layer != SourceUser && !trusted {
		m.Ignored = append(m.Ignored, takeGrants(s, path)...)
	}
	m.Claude = append(m.Claude, *r)
	m.merge(s, path, projectDir, home)
	m.addPlugins(s, path, layer, true)
	return nil
}
