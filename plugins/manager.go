package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nova-dev/nova/config"
)

// Manager is the plugins of one person and workspace: nova's store
// (NOVA_HOME/plugins), which it writes, Claude Code's (~/.claude/plugins),
// which it reads, and the marketplaces the settings files declare.
type Manager struct {
	// NovaHome, Home and Workdir are nova's directory, the user's home
	// ("" for none) and the workspace (where project settings are).
	NovaHome, Home, Workdir string
	// ClaudeHome is Claude Code's directory of the user
	// (config.ClaudeHome: ~/.claude or CLAUDE_CONFIG_DIR; "" for none).
	ClaudeHome string
	// Sets are the plugin keys of the settings files loaded
	// (config.Settings.PluginSets); a project's are there only when the
	// workspace is trusted.
	Sets []config.PluginSet
}

// Nova is nova's own store.
func (m *Manager) Nova() Store { return Store{Dir: filepath.Join(m.NovaHome, "plugins")} }

// Claude is Claude Code's store, when there is a home to find it in.
func (m *Manager) Claude() (Store, bool) {
	if m.ClaudeHome == "" {
		return Store{}, false
	}
	return Store{Dir: filepath.Join(m.ClaudeHome, "plugins")}, true
}

// Scope says which settings file an enable or disable is written to.
type Scope string

// The scopes, as Claude Code's --scope names them.
const (
	ScopeUser    Scope = "user"    // NOVA_HOME/settings.json
	ScopeProject Scope = "project" // .nova/settings.json, committed
	ScopeLocal   Scope = "local"   // .nova/settings.local.json, git-ignored
)

// ParseScope reads --scope.
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(s); sc {
	case ScopeUser, ScopeProject, ScopeLocal:
		return sc, nil
	}
	return "", fmt.Errorf("unknown scope %q (want user, project or local)", s)
}

// SettingsFile is the nova settings file of scope.
func (m *Manager) SettingsFile(sc Scope) string {
	files := config.SettingsFiles(m.NovaHome, m.Workdir)
	switch sc {
	case ScopeProject:
		return files[1]
	case ScopeLocal:
		return files[2]
	}
	return files[0]
}

// Marketplace is one marketplace nova can install from, or that a
// settings file names.
type Marketplace struct {
	Name   string
	Source Source
	// Root is its catalogue's directory; "" when it has not been fetched
	// (a settings file names it and nobody added it yet).
	Root string
	// Store is the store that fetched it: nova's or Claude Code's; zero
	// for one only declared.
	Store  Store
	Claude bool
	// DeclaredIn is the settings file that names it (extraKnownMarketplaces).
	DeclaredIn string
	// Project says only a project's settings name it: its source is the
	// repository author's words, so it is fetched only when the person
	// says so.
	Project bool
	// Updated is when it was last fetched.
	Updated string
}

// Marketplaces lists every marketplace known: nova's, then Claude Code's
// that nova has not, then those only declared in settings. A state file
// nova cannot read is an error; a bad declaration a warning.
func (m *Manager) Marketplaces() ([]Marketplace, []string, error) {
	byName := map[string]Marketplace{}
	var warns []string
	nova, err := m.Nova().Known()
	if err != nil {
		return nil, nil, err
	}
	add := func(st Store, claude bool, known map[string]Known) {
		for name, k := range known {
			if _, ok := byName[name]; ok {
				continue
			}
			src, err := DecodeSource(k.Source)
			if err != nil {
				warns = append(warns, fmt.Sprintf("marketplace %s in %s: %v", name, st.knownPath(), err))
				continue
			}
			byName[name] = Marketplace{Name: name, Source: src, Root: k.InstallLocation, Store: st, Claude: claude, Updated: k.LastUpdated}
		}
	}
	add(m.Nova(), false, nova)
	if cs, ok := m.Claude(); ok {
		if known, err := cs.Known(); err != nil {
			warns = append(warns, fmt.Sprintf("Claude Code's marketplaces are not read: %v", err))
		} else {
			add(cs, true, known)
		}
	}
	for _, set := range m.Sets {
		for name, raw := range set.Marketplaces {
			mk, has := byName[name]
			if has && mk.Root != "" {
				continue
			}
			src, err := decodeDeclared(raw)
			if err != nil {
				warns = append(warns, fmt.Sprintf("extraKnownMarketplaces.%s in %s: %v", name, set.File, err))
				continue
			}
			project := set.Layer == config.SourceProject || set.Layer == config.SourceLocal
			if has && !mk.Project {
				project = false // a user's file names it too
			}
			byName[name] = Marketplace{Name: name, Source: src, DeclaredIn: set.File, Project: project}
		}
	}
	out := make([]Marketplace, 0, len(byName))
	for _, n := range sortedKeys(byName) {
		out = append(out, byName[n])
	}
	return out, warns, nil
}

// decodeDeclared reads an extraKnownMarketplaces entry: {"source": {...}}.
func decodeDeclared(raw json.RawMessage) (Source, error) {
	var entry struct {
		Source json.RawMessage `json:"source"`
	}
	if err := json.Unmarshal(raw, &entry); err != nil || entry.Source == nil {
		return Source{}, fmt.Errorf("want {\"source\": {\"source\": \"git\", \"url\": ...}}")
	}
	return DecodeSource(entry.Source)
}

// Find returns the marketplace called name.
func (m *Manager) Find(name string) (Marketplace, error) {
	all, _, err := m.Marketplaces()
	if err != nil {
		return Marketplace{}, err
	}
	for _, mk := range all {
		if mk.Name == name {
			return mk, nil
		}
	}
	var names []string
	for _, mk := range all {
		names = append(names, mk.Name)
	}
	if len(names) == 0 {
		return Marketplace{}, fmt.Errorf("no marketplace %q: none is added; add one with nova plugin marketplace add <git URL, owner/repo or directory>", name)
	}
	return Marketplace{}, fmt.Errorf("no marketplace %q (known: %s); add it with nova plugin marketplace add <git URL, owner/repo or directory>", name, strings.Join(names, ", "))
}

// ErrProjectMarketplace is wrapped by the error of an install from a
// marketplace only a project's settings name: the person adds it first,
// having seen where it comes from.
var ErrProjectMarketplace = errors.New("the marketplace is named only by this project's settings")

// ProjectMarketplaceError says what to run to use a project-named
// marketplace.
func ProjectMarketplaceError(mk Marketplace, plugin string) error {
	return fmt.Errorf("%w (%s names %s at %s): its plugins would run code on this machine, so nova adds it only when you do: nova plugin marketplace add %s, then nova plugin install %s@%s",
		ErrProjectMarketplace, mk.DeclaredIn, mk.Name, mk.Source, addArg(mk.Source), plugin, mk.Name)
}

// addArg is what `nova plugin marketplace add` takes for src.
func addArg(src Source) string {
	switch src.Source {
	case "github":
		return src.Repo
	case "git":
		if src.Ref != "" {
			return src.URL + "#" + src.Ref
		}
		return src.URL
	}
	return src.Path
}

// Installed is one plugin installed, by nova or by Claude Code.
type Installed struct {
	ID      string
	Install Install
	Claude  bool
}

// Installs lists the plugins installed, nova's first: a plugin both
// installed is nova's.
func (m *Manager) Installs() ([]Installed, []string, error) {
	nova, err := m.Nova().Installed()
	if err != nil {
		return nil, nil, err
	}
	var out []Installed
	var warns []string
	seen := map[string]bool{}
	for _, id := range sortedKeys(nova) {
		if len(nova[id]) > 0 {
			seen[id] = true
			out = append(out, Installed{ID: id, Install: nova[id][0]})
		}
	}
	if cs, ok := m.Claude(); ok {
		claude, err := cs.Installed()
		if err != nil {
			warns = append(warns, fmt.Sprintf("Claude Code's plugins are not read: %v", err))
		}
		for _, id := range sortedKeys(claude) {
			if !seen[id] && len(claude[id]) > 0 {
				out = append(out, Installed{ID: id, Install: claude[id][0], Claude: true})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, warns, nil
}

// Enabled weighs the settings: each id's value from the last file that
// gives one, the layers in order (user, project, local, --settings) and,
// in one layer, Claude Code's file before nova's. It returns id -> on,
// and the file that decided.
func (m *Manager) Enabled() (map[string]bool, map[string]string) {
	rank := func(s config.PluginSet) int {
		r := map[string]int{config.SourceUser: 0, config.SourceProject: 2, config.SourceLocal: 4, config.FlagSettingsName: 6}[s.Layer]
		if !s.Claude {
			r++
		}
		return r
	}
	sets := append([]config.PluginSet(nil), m.Sets...)
	sort.SliceStable(sets, func(i, j int) bool { return rank(sets[i]) < rank(sets[j]) })
	on, by := map[string]bool{}, map[string]string{}
	for _, s := range sets {
		for id, v := range s.Enabled {
			on[id], by[id] = v, s.File
		}
	}
	return on, by
}
