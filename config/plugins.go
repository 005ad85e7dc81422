package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// PluginSet is what one settings file says of Claude Code plugins: its
// enabledPlugins ("name@marketplace": true or false) and its
// extraKnownMarketplaces (name -> {"source": {...}}). Package plugins
// decides what they add up to; the layers are kept apart because a
// later layer's false must beat an earlier one's true, whichever tool's
// file either is in.
type PluginSet struct {
	// File is the settings file, or FlagSettingsName.
	File string
	// Layer is SourceUser, SourceProject, SourceLocal or
	// FlagSettingsName; Claude says the file is one of Claude Code's
	// (~/.claude/settings.json, .claude/settings*.json), which a nova
	// file of the same layer overrides.
	Layer  string
	Claude bool
	// Enabled is the file's enabledPlugins; Marketplaces its
	// extraKnownMarketplaces, each entry as written.
	Enabled      map[string]bool
	Marketplaces map[string]json.RawMessage
}

// addPlugins keeps the plugin keys of s, read from path, as one set;
// a file that names no plugin adds nothing.
func (m *Settings) addPlugins(s *Settings, path, layer string, claude bool) {
	if len(s.EnabledPlugins) == 0 && len(s.ExtraKnownMarketplaces) == 0 {
		return
	}
	m.PluginSets = append(m.PluginSets, PluginSet{File: path, Layer: layer, Claude: claude,
		Enabled: s.EnabledPlugins, Marketplaces: s.ExtraKnownMarketplaces})
}

// pluginGrants are the project settings that install or turn on code the
// repository names: plugins enabled (true) and marketplaces to fetch them
// from. A false in enabledPlugins turns a plugin off: it always applies.
func pluginGrants() []projectGrant {
	return []projectGrant{
		{"enabledPlugins", func(s *Settings) string {
			var on []string
			for id, v := range s.EnabledPlugins {
				if v {
					on = append(on, id)
					delete(s.EnabledPlugins, id)
				}
			}
			sort.Strings(on)
			return strings.Join(on, ", ")
		}},
		{"extraKnownMarketplaces", func(s *Settings) string {
			names := make([]string, 0, len(s.ExtraKnownMarketplaces))
			for n := range s.ExtraKnownMarketplaces {
				names = append(names, n)
			}
			sort.Strings(names)
			s.ExtraKnownMarketplaces = nil
			return strings.Join(names, ", ")
		}},
	}
}

// SetEnabledPlugin writes enabledPlugins[id] in the settings file at path
// (nova's: NOVA_HOME/settings.json, .nova/settings.json or
// .nova/settings.local.json): true or false, or the key removed when
// enabled is nil. Every other key is kept; the file is locked and
// replaced atomically, as every settings edit is.
func SetEnabledPlugin(path, id string, enabled *bool) error {
	const op = "enable plugin"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return editJSONFile(path, path+".lock", op, false, 0o600, func(doc map[string]json.RawMessage) (bool, error) {
		var list map[string]bool
		if raw, ok := doc["enabledPlugins"]; ok {
			if err := json.Unmarshal(raw, &list); err != nil {
				return false, fmt.Errorf("%s: enabledPlugins is not an object of true and false: %w", path, err)
			}
		}
		if list == nil {
			list = map[string]bool{}
		}
		old, had := list[id]
		switch {
		case enabled == nil && !had, enabled != nil && had && old == *enabled:
			return false, nil
		case enabled == nil:
			delete(list, id)
		default:
			list[id] = *enabled
		}
		if len(list) == 0 {
			delete(doc, "enabledPlugins")
			return true, nil
		}
		raw, err := json.Marshal(list)
		doc["enabledPlugins"] = raw
		return true, err
	})
}
