package config

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/permission"
)

// Settings is the content of one settings.json, or of several merged
// (user, then project, then local). Keys nova does not know are ignored.
type Settings struct {
	Permissions Permissions       `json:"permissions"`
	Sandbox     SandboxSettings   `json:"sandbox"`
	Env         map[string]string `json:"env,omitempty"`
	// EnvPassthrough names, or path.Match globs ("AWS_*"), the variables
	// of nova's environment that reach commands although their names look
	// secret (tools.EnvPolicy); the lists of all files add up. It is not
	// "env.passthrough": "env" is Claude Code's map of variables to set,
	// string to string, and a list inside it would break Claude Code's
	// reading of the same files.
	EnvPassthrough []string `json:"envPassthrough,omitempty"`
	// EnableAllProjectMcpServers starts every server of the project's
	// .mcp.json without asking (Claude Code's key); nil leaves earlier
	// files' value alone.
	EnableAllProjectMcpServers *bool `json:"enableAllProjectMcpServers,omitempty"`
	// EnabledMcpjsonServers and DisabledMcpjsonServers name the .mcp.json
	// servers the person approved and declined; the lists of all files add
	// up, and a declined server stays declined whichever file approves it.
	EnabledMcpjsonServers  []string `json:"enabledMcpjsonServers,omitempty"`
	DisabledMcpjsonServers []string `json:"disabledMcpjsonServers,omitempty"`
	// EnableToolSearch is when MCP tools are deferred behind ToolSearch:
	// true, false, "auto" or "auto:N" (ENABLE_TOOL_SEARCH's values, which
	// win over it); "" leaves earlier files' value alone.
	EnableToolSearch ToolSearchSetting `json:"enableToolSearch,omitempty"`
	// Subagents shapes the Agent tool's subagents.
	Subagents SubagentSettings `json:"subagents,omitempty"`
	// Hooks is the "hooks" object of one file, in Claude Code's shape
	// (package hooks reads it); HookSets are the merged files', in order.
	Hooks    json.RawMessage `json:"hooks,omitempty"`
	HookSets []HookSet       `json:"-"`
	// EnabledPlugins and ExtraKnownMarketplaces are Claude Code's plugin
	// keys of one file; PluginSets are every file's, in order, for
	// package plugins to weigh (config.PluginSet).
	EnabledPlugins         map[string]bool            `json:"enabledPlugins,omitempty"`
	ExtraKnownMarketplaces map[string]json.RawMessage `json:"extraKnownMarketplaces,omitempty"`
	PluginSets             []PluginSet                `json:"-"`
	// RuleSets are the permission lists of each file loaded, in order, with
	// the file and project directory their rules belong to.
	RuleSets []permission.RuleSet `json:"-"`
	// Ignored are the grants of project files left out because the
	// project is not trusted, in file order.
	Ignored []IgnoredSetting `json:"-"`
	// Model is the "model" setting (Claude Code's key): the model when
	// neither --model nor NOVA_MODEL names one.
	Model string `json:"model,omitempty"`
	// StatusLine is the command the terminal UI shows the output of as
	// its status line; Sources["statusLine"] says which file set it.
	StatusLine *StatusLine `json:"statusLine,omitempty"`
	// Screen is where the terminal UI draws: "alternate" (the terminal's
	// alternate screen) or "inline" (the normal screen, finished messages
	// printed into its scrollback); "" leaves it to earlier files, then to
	// nova's default. --screen wins over it.
	Screen string `json:"screen,omitempty"`
	// Claude says what each of Claude Code's settings files supplied.
	Claude []ClaudeRead `json:"-"`
	// Sources names, for each scalar setting in the merge ("sandbox.enabled",
	// "permissions.defaultMode", ...), the file whose value won.
	Sources map[string]string `json:"-"`
}

// SubagentSettings are the "subagents" object.
type SubagentSettings struct {
	// MaxParallel bounds the subagents running at once; 0 leaves earlier
	// files' value (or nova's default) alone.
	MaxParallel int `json:"maxParallel,omitempty"`
}

// ToolSearchSetting is the enableToolSearch value as written: a JSON
// boolean is kept as "true" or "false", a string as it is. What it means
// is tools/mcp's to say (ParseSearchMode), when the session starts.
type ToolSearchSetting string

// UnmarshalJSON takes a boolean or a string.
func (t *ToolSearchSetting) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		*t = ToolSearchSetting(strconv.FormatBool(on))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("enableToolSearch: want true, false, \"auto\" or \"auto:N\"")
	}
	*t = ToolSearchSetting(s)
	return nil
}

// Permissions is the "permissions" object of a settings file.
type Permissions struct {
	Allow                 []string `json:"allow,omitempty"`
	Ask                   []string `json:"ask,omitempty"`
	Deny                  []string `json:"deny,omitempty"`
	DefaultMode           string   `json:"defaultMode,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// DisableBypassPermissionsMode "disable" (Claude Code's key) keeps
	// bypassPermissions out of reach: the flag, a mode switch and
	// defaultMode are refused. A restriction, so it holds from any file,
	// trusted or not, and no later file lifts it.
	DisableBypassPermissionsMode string `json:"disableBypassPermissionsMode,omitempty"`
}

// SandboxSettings is the "sandbox" object of a settings file; nil fields
// were not set and leave earlier files' values alone.
type SandboxSettings struct {
	// Enabled unset means on wherever the sandbox works.
	Enabled *bool `json:"enabled,omitempty"`
	// Network is what sandboxed commands reach: every host, none, or the
	// allowed domains through nova's proxy (NetworkSetting).
	Network   *NetworkSetting `json:"network,omitempty"`
	AutoAllow *bool           `json:"autoAllow,omitempty"` // run Bash without asking when sandboxed
	// AllowUnixSockets lets sandboxed commands connect to Unix sockets
	// while the network is cut.
	AllowUnixSockets *bool `json:"allowUnixSockets,omitempty"`
	// DenyRead are paths hidden from sandboxed commands; the lists of all
	// files add up, made absolute when merged.
	DenyRead []string `json:"denyRead,omitempty"`
	// ExcludedCommands (Claude Code's key) are commands, written as Bash
	// rule specifiers ("docker:*", "docker *"), that run outside the
	// sandbox, each still checked; the lists of all files add up. From a
	// project file it is a grant.
	ExcludedCommands []string `json:"excludedCommands,omitempty"`
	// AllowWrite are further directories sandboxed commands may write
	// (Claude Code's sandbox.filesystem.allowWrite; nova has no key of
	// its own for it), made absolute when merged.
	AllowWrite []string `json:"-"`
}

// HookSet is the "hooks" object of one settings file.
type HookSet struct {
	File  string
	Hooks json.RawMessage
}

// SettingsFiles returns the settings files in the order they are merged:
// user, project (committed), local (git-ignored).
func SettingsFiles(novaHome, projectDir string) []string {
	return []string{
		filepath.Join(novaHome, "settings.json"),
		filepath.Join(projectDir, ".nova", "settings.json"),
		filepath.Join(projectDir, ".nova", "settings.local.json"),
	}
}

// LoadSettings reads and merges the user, project and local settings
// files, returning the merged settings and the files that existed. A file
// that does not parse, or holds a bad rule or mode, is an error naming the
// file, line and column: nova never starts with half its permissions.
//
// The project files (.nova/settings.json and .nova/settings.local.json)
// are in the repository, which anyone who can commit to it writes: unless
// trusted is true, what they grant is left out and listed in Ignored,
// while what they restrict applies.
//
// Claude Code's settings files (ClaudeSettingsFiles) are read too, each
// in its layer before nova's file of the layer (so nova's wins on a
// value both set), under the same trust rule; the loaded list names
// only nova's files, Settings.Claude Claude Code's.
//
// home is the user's home directory, which "~/" in directory settings
// stands for; "" leaves such paths as written.
func LoadSettings(novaHome, projectDir, home string, trusted bool) (*Settings, []string, error) {
	return LoadSettingsLayers(novaHome, projectDir, home, trusted, SettingsLayers{})
}

// LoadSettingsLayers is LoadSettings with the layers l chooses: only the
// file layers l.Sources names, then l.Flag's settings over them all.
func LoadSettingsLayers(novaHome, projectDir, home string, trusted bool, l SettingsLayers) (*Settings, []string, error) {
	merged := &Settings{Env: map[string]string{}, Sources: map[string]string{}}
	var loaded []string
	claude := claudeLayerFiles(projectDir, cmp.Or(l.ClaudeHome, ClaudeHome(nil, home)))
	seen := map[string]bool{}
	for i, path := range SettingsFiles(novaHome, projectDir) {
		if !l.loads(settingSourceNames[i]) {
			continue
		}
		// Claude Code's file of the layer goes first, so that nova's own
		// file of the same layer wins where both set one value; rules and
		// lists of both add up. In the home directory .claude/settings.json
		// is the user's own file, read once, as the user's.
		if c := claude[i]; c != "" && !seen[c] {
			seen[c] = true
			if err := merged.loadClaude(c, settingSourceNames[i], projectDir, home, trusted); err != nil {
				return nil, loaded, err
			}
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, loaded, fmt.Errorf("read settings %s: %w", path, err)
		}
		s, err := parseSettings(path, data, i == 1)
		if err != nil {
			return nil, loaded, err
		}
		loaded = append(loaded, path)
		if i > 0 && !trusted {
			merged.Ignored = append(merged.Ignored, takeGrants(s, path)...)
		}
		merged.merge(s, path, projectDir, home)
		merged.addPlugins(s, path, settingSourceNames[i], false)
	}
	if l.Flag != "" {
		path, s, err := l.flagSettings()
		if err != nil {
			return nil, loaded, err
		}
		// The command line is the user's own words: what it grants
		// applies in an untrusted folder too.
		loaded = append(loaded, path)
		merged.merge(s, path, projectDir, home)
		merged.addPlugins(s, path, FlagSettingsName, false)
	}
	return merged, loaded, nil
}

// addHooks keeps a file's "hooks" object: the hooks of every file run.
func (m *Settings) addHooks(raw json.RawMessage, path string) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		m.HookSets = append(m.HookSets, HookSet{File: path, Hooks: raw})
	}
}

// parseSettings decodes one file and checks its rules and mode.
func parseSettings(path string, data []byte, project bool) (*Settings, error) {
	var s Settings
	if len(bytes.TrimSpace(data)) == 0 {
		return &s, nil
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("settings %s: %s", path, describeJSONError(data, err))
	}
	at := func(needle string) string { return posOf(path, data, needle) }
	for _, list := range [][]string{s.Permissions.Allow, s.Permissions.Ask, s.Permissions.Deny} {
		for _, r := range list {
			if _, err := permission.ParseRule(r); err != nil {
				return nil, fmt.Errorf("settings %s: %w", at(r), err)
			}
		}
	}
	for _, p := range s.Sandbox.ExcludedCommands {
		if err := permission.ValidExcluded(p); err != nil {
			return nil, fmt.Errorf("settings %s: sandbox.excludedCommands %q: %w", at(p), p, err)
		}
	}
	if err := s.Sandbox.Network.check(at); err != nil {
		return nil, err
	}
	for _, p := range s.EnvPassthrough {
		if !validPassthrough(p) {
			return nil, fmt.Errorf("settings %s: envPassthrough %q is not a variable name or a glob (*, ?, [...]); write it as GITHUB_TOKEN or AWS_*", at(p), p)
		}
	}
	if sl := s.StatusLine; sl != nil && (sl.Type != "command" || strings.TrimSpace(sl.Command) == "") {
		return nil, fmt.Errorf("settings %s: statusLine wants {\"type\": \"command\", \"command\": \"...\"}", at("statusLine"))
	}
	if s.Screen != "" && s.Screen != "alternate" && s.Screen != "inline" {
		return nil, fmt.Errorf("settings %s: screen %q: want \"alternate\" or \"inline\"", at("screen"), s.Screen)
	}
	if m := s.Permissions.DefaultMode; m != "" {
		if _, ok := permission.ParseMode(m); !ok {
			return nil, fmt.Errorf("settings %s: unknown defaultMode %q (want default, acceptEdits, plan or bypassPermissions)", at(m), m)
		}
		if project && permission.Mode(m) == permission.ModeBypass {
			// A committed file must not switch off every question for
			// whoever clones the repository.
			return nil, fmt.Errorf("settings %s: defaultMode bypassPermissions may be set only in user or local settings, not in the committed project file", at(m))
		}
	}
	return &s, nil
}

// validPassthrough reports whether p is an envPassthrough entry: a name,
// or a glob in the syntax the policy matches with (path.Match).
func validPassthrough(p string) bool {
	_, err := path.Match(p, "")
	return p != "" && err == nil
}

// merge folds s, read from path, into the merged settings: lists add up,
// later scalar values win.
func (m *Settings) merge(s *Settings, path, projectDir, home string) {
	p := s.Permissions
	m.Permissions.Allow = append(m.Permissions.Allow, p.Allow...)
	m.Permissions.Ask = append(m.Permissions.Ask, p.Ask...)
	m.Permissions.Deny = append(m.Permissions.Deny, p.Deny...)
	if p.DefaultMode != "" {
		m.Permissions.DefaultMode = p.DefaultMode
		m.Sources["permissions.defaultMode"] = path
	}
	if p.DisableBypassPermissionsMode == "disable" && m.Permissions.DisableBypassPermissionsMode != "disable" {
		m.Permissions.DisableBypassPermissionsMode = "disable"
		m.Sources["permissions.disableBypassPermissionsMode"] = path
	}
	m.Permissions.AdditionalDirectories = appendDirs(m.Permissions.AdditionalDirectories, p.AdditionalDirectories, projectDir, home)
	m.Sandbox.DenyRead = appendDirs(m.Sandbox.DenyRead, s.Sandbox.DenyRead, projectDir, home)
	m.Sandbox.ExcludedCommands = appendNew(m.Sandbox.ExcludedCommands, s.Sandbox.ExcludedCommands)
	m.mergeNetwork(s.Sandbox.Network, path)
	m.Sandbox.AllowWrite = appendDirs(m.Sandbox.AllowWrite, s.Sandbox.AllowWrite, projectDir, home)
	if s.Model != "" {
		m.Model = s.Model
		m.Sources["model"] = path
	}
	if s.StatusLine != nil {
		m.StatusLine = s.StatusLine
		m.Sources["statusLine"] = path
	}
	if s.Screen != "" {
		m.Screen = s.Screen
		m.Sources["screen"] = path
	}
	for _, b := range []struct {
		key      string
		from, to **bool
	}{
		{"sandbox.enabled", &s.Sandbox.Enabled, &m.Sandbox.Enabled},
		{"sandbox.autoAllow", &s.Sandbox.AutoAllow, &m.Sandbox.AutoAllow},
		{"sandbox.allowUnixSockets", &s.Sandbox.AllowUnixSockets, &m.Sandbox.AllowUnixSockets},
	} {
		if *b.from != nil {
			*b.to = *b.from
			m.Sources[b.key] = path
		}
	}
	for k, v := range s.Env {
		m.Env[k] = v
	}
	m.EnvPassthrough = appendNew(m.EnvPassthrough, s.EnvPassthrough)
	if s.EnableAllProjectMcpServers != nil {
		m.EnableAllProjectMcpServers = s.EnableAllProjectMcpServers
		m.Sources["enableAllProjectMcpServers"] = path
	}
	if s.EnableToolSearch != "" {
		m.EnableToolSearch = s.EnableToolSearch
		m.Sources["enableToolSearch"] = path
	}
	m.addHooks(s.Hooks, path)
	m.EnabledMcpjsonServers = appendNew(m.EnabledMcpjsonServers, s.EnabledMcpjsonServers)
	m.DisabledMcpjsonServers = appendNew(m.DisabledMcpjsonServers, s.DisabledMcpjsonServers)
	// Rules of every file are relative to the project; the user file's
	// ./ patterns too, since it applies to whichever project is open.
	m.RuleSets = append(m.RuleSets, permission.RuleSet{Source: path, Base: projectDir, Allow: p.Allow, Ask: p.Ask, Deny: p.Deny})
}

// appendDirs adds dirs, made absolute against base ("~/" against home),
// to list, once each.
func appendDirs(list, dirs []string, base, home string) []string {
	for _, d := range dirs {
		d = expandDir(d, base, home)
		if !contains(list, d) {
			list = append(list, d)
		}
	}
	return list
}

func expandDir(d, base, home string) string {
	if home != "" && (d == "~" || strings.HasPrefix(d, "~/")) {
		d = filepath.Join(home, d[1:])
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(base, d)
	}
	return filepath.Clean(d)
}

// appendNew adds the items of more that list lacks, in order.
func appendNew(list, more []string) []string {
	for _, s := range more {
		if !contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// PermissionOptions is what the command line adds to the settings when
// building the permission checker.
type PermissionOptions struct {
	Workspace string // absolute project directory
	Home      string // the user's home directory
	NovaHome  string
	// Mode is --permission-mode; "" takes the settings' defaultMode.
	Mode permission.Mode
	// AddDirs are --add-dir directories, on top of additionalDirectories.
	AddDirs []string
	// AllowedTools and DisallowedTools are the raw --allowedTools and
	// --disallowedTools values; each may hold several rules.
	AllowedTools    []string
	DisallowedTools []string
	// Persist overrides where "allow always" rules go; nil writes them to
	// the project's .nova/settings.local.json.
	Persist func(rule string) error
}

// PermissionConfig builds the permission checker's configuration from the
// merged settings and the command line.
func (s *Settings) PermissionConfig(o PermissionOptions) (permission.Config, error) {
	cfg := permission.Config{
		Mode:      o.Mode,
		Workspace: o.Workspace,
		Home:      o.Home,
		NovaHome:  o.NovaHome,
		AddDirs:   append(append([]string(nil), s.Permissions.AdditionalDirectories...), o.AddDirs...),
		RuleSets:  append([]permission.RuleSet(nil), s.RuleSets...),
		Persist:   o.Persist,
		// What the sandbox hides, the checker never lets a tool read
		// unasked either.
		SensitiveReads: append([]string(nil), s.Sandbox.DenyRead...),
	}
	if cfg.Mode == "" {
		cfg.Mode = permission.Mode(s.Permissions.DefaultMode)
	}
	if cfg.Mode == "" {
		cfg.Mode = permission.ModeDefault
	}
	if _, ok := permission.ParseMode(string(cfg.Mode)); !ok {
		return cfg, fmt.Errorf("unknown permission mode %q (want default, acceptEdits, plan or bypassPermissions)", cfg.Mode)
	}
	if err := s.BypassDisabled(); err != nil && cfg.Mode == permission.ModeBypass {
		return cfg, err
	}
	for _, flag := range []struct {
		name  string
		vals  []string
		allow bool
	}{{"--allowedTools", o.AllowedTools, true}, {"--disallowedTools", o.DisallowedTools, false}} {
		set := permission.RuleSet{Source: flag.name, Base: o.Workspace}
		for _, v := range flag.vals {
			for _, r := range permission.SplitToolList(v) {
				if _, err := permission.ParseRule(r); err != nil {
					return cfg, fmt.Errorf("%s: %w", flag.name, err)
				}
				if flag.allow {
					set.Allow = append(set.Allow, r)
				} else {
					set.Deny = append(set.Deny, r)
				}
			}
		}
		cfg.RuleSets = append(cfg.RuleSets, set)
	}
	cfg.SandboxAutoAllow = s.Sandbox.AutoAllow != nil && *s.Sandbox.AutoAllow
	cfg.SandboxExcluded = append([]string(nil), s.Sandbox.ExcludedCommands...)
	if s.Sandbox.Network.Filtered() {
		cfg.AllowedDomains = append([]string(nil), s.Sandbox.Network.AllowedDomains...)
	}
	if cfg.Persist == nil && o.Workspace != "" {
		dir := o.Workspace
		cfg.Persist = func(rule string) error { return AddLocalRule(dir, "allow", rule) }
	}
	return cfg, nil
}

// AddLocalRule adds rule to the list ("allow", "ask" or "deny") of the
// project's .nova/settings.local.json, keeping every other key. It locks
// the file against other nova processes and replaces it atomically.
func AddLocalRule(projectDir, list, rule string) error {
	if list != "allow" && list != "ask" && list != "deny" {
		return fmt.Errorf("add rule: unknown list %q (want allow, ask or deny)", list)
	}
	if _, err := permission.ParseRule(rule); err != nil {
		return fmt.Errorf("add rule: %w", err)
	}
	dir := filepath.Join(projectDir, ".nova")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("add rule: %w", err)
	}
	path := filepath.Join(dir, "settings.local.json")
	if err := editRules(path, list, "add rule", false, func(rules []string) ([]string, bool, error) {
		if contains(rules, rule) {
			return rules, false, nil
		}
		return append(rules, rule), true, nil
	}); err != nil {
		return err
	}
	return ignoreLocalSettings(dir, "add rule")
}

// ignoreLocalSettings keeps settings.local.json out of git with a
// .nova/.gitignore of its own, so personal rules are never committed and
// no file of the user's is edited. An existing .nova/.gitignore is left alone.
func ignoreLocalSettings(novaDir, op string) error {
	path := filepath.Join(novaDir, ".gitignore")
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := atomicfile.Write(path, []byte("settings.local.json\n"), 0o644); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// RemoveRule removes rule from the list ("allow", "ask" or "deny") of the
// settings file at path, keeping every other key and rule. It takes the
// same lock as AddLocalRule and replaces the file atomically, so a
// concurrent "allow always" is neither lost nor half written. A rule that
// is not in the list is an error: the file changed since it was read.
func RemoveRule(path, list, rule string) error {
	if list != "allow" && list != "ask" && list != "deny" {
		return fmt.Errorf("remove rule: unknown list %q (want allow, ask or deny)", list)
	}
	want := strings.TrimSpace(rule)
	return editRules(path, list, "remove rule", true, func(rules []string) ([]string, bool, error) {
		kept := make([]string, 0, len(rules))
		for _, r := range rules {
			// The checker trims rules, so a rule written with spaces is
			// the same rule; every copy goes, or one would still apply.
			if strings.TrimSpace(r) != want {
				kept = append(kept, r)
			}
		}
		if len(kept) == len(rules) {
			return nil, false, fmt.Errorf("%q is not in permissions.%s of %s", rule, list, path)
		}
		return kept, true, nil
	})
}

// editRules rewrites one permissions list of the settings file at path
// under the file's lock: edit gets the current list and returns the new
// one and whether anything changed. Every other key is kept as it was
// written; an empty list is dropped. must says the file has to exist.
func editRules(path, list, op string, must bool, edit func([]string) ([]string, bool, error)) error {
	return editJSONFile(path, path+".lock", op, must, 0o600, func(doc map[string]json.RawMessage) (bool, error) {
		perms, err := objectAt(doc, "permissions", path)
		if err != nil {
			return false, err
		}
		var rules []string
		if raw, ok := perms[list]; ok {
			if err := json.Unmarshal(raw, &rules); err != nil {
				return false, fmt.Errorf("%s: permissions.%s is not a list of strings: %w", path, list, err)
			}
		}
		rules, changed, err := edit(rules)
		if err != nil || !changed {
			return false, err
		}
		if len(rules) == 0 {
			delete(perms, list)
		} else if perms[list], err = json.Marshal(rules); err != nil {
			return false, err
		}
		doc["permissions"], err = json.Marshal(perms)
		return true, err
	})
}

// editJSONFile rewrites the JSON object in the file at path under the
// lock file lockPath (path+".lock" for settings files, the lock every
// edit of them takes). edit gets the object's keys as written and says
// whether it changed anything; every key it leaves alone is kept as it
// was. A file that does not parse is an error and is left as it is. must
// says the file has to exist; perm is the mode of a new file, an existing
// one keeps its own. The file is replaced atomically.
func editJSONFile(path, lockPath, op string, must bool, perm os.FileMode, edit func(doc map[string]json.RawMessage) (bool, error)) error {
	lock := flock.New(lockPath)
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("%s: lock %s: %w", op, path, err)
	}
	defer lock.Unlock()

	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && must:
		return fmt.Errorf("%s: %w", op, err)
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("%s: read %s: %w", op, path, err)
	default:
		if st, err := os.Stat(path); err == nil {
			perm = st.Mode().Perm()
		}
		if len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, &doc); err != nil {
				return fmt.Errorf("%s: %s: %s (fix or remove the file)", op, path, describeJSONError(data, err))
			}
			if doc == nil { // the file says null
				doc = map[string]json.RawMessage{}
			}
		}
	}
	changed, err := edit(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if !changed {
		return nil
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := atomicfile.Write(path, append(out, '\n'), perm); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// objectAt decodes the JSON object under key of doc (empty when absent
// or null), for a file at path.
func objectAt(doc map[string]json.RawMessage, key, path string) (map[string]json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	raw, ok := doc[key]
	if !ok {
		return obj, nil
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("%s: %q is not an object: %w", path, key, err)
	}
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	return obj, nil
}

// RuleEntry is one permission rule and where it comes from.
type RuleEntry struct {
	List   string // "allow", "ask" or "deny"
	Rule   string // as written
	Source string // the settings file, or "--allowedTools" / "--disallowedTools"
}

// ListRules flattens rule sets (Settings.RuleSets, or a permission.Config's,
// which add the command line's) into one entry per rule: the allow rules,
// then ask, then deny, each in the order the sources merge. A rule listed
// twice by the same source is shown once.
func ListRules(sets []permission.RuleSet) []RuleEntry {
	var out []RuleEntry
	seen := map[RuleEntry]bool{}
	for _, list := range []string{"allow", "ask", "deny"} {
		for _, set := range sets {
			rules := set.Allow
			switch list {
			case "ask":
				rules = set.Ask
			case "deny":
				rules = set.Deny
			}
			for _, r := range rules {
				e := RuleEntry{List: list, Rule: strings.TrimSpace(r), Source: set.Source}
				if !seen[e] {
					seen[e] = true
					out = append(out, e)
				}
			}
		}
	}
	return out
}
