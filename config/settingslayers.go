package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The settings file layers, as Claude Code's --setting-sources names them.
const (
	SourceUser    = "user"    // NOVA_HOME/settings.json (and ~/.claude/settings.json)
	SourceProject = "project" // .nova/settings.json (and .claude/settings.json)
	SourceLocal   = "local"   // .nova/settings.local.json (and .claude/settings.local.json)
)

// settingSourceNames are the layers of SettingsFiles and ClaudeSettingsFiles,
// in their order.
var settingSourceNames = [...]string{SourceUser, SourceProject, SourceLocal}

// FlagSettingsName names inline --settings JSON where a file's path would
// name the settings a value came from.
const FlagSettingsName = "--settings"

// SettingsLayers chooses the settings layers beyond nova's default of the
// three files: which of the files load (--setting-sources), and the
// command line's settings over them (--settings). The zero value is the
// default.
type SettingsLayers struct {
	// Sources are the file layers to load (SourceUser, SourceProject,
	// SourceLocal); nil loads all, an empty non-nil list none.
	Sources []string
	// Flag is --settings: a settings file's path (relative to Dir) or
	// the JSON itself; "" for none. It is merged after the files, so its
	// values win, and applies whether the folder is trusted or not.
	Flag string
	// Dir is where a relative Flag path starts: the working directory.
	Dir string
	// ClaudeHome is Claude Code's directory of the user (ClaudeHome, so
	// CLAUDE_CONFIG_DIR holds); "" is .claude in the home directory.
	ClaudeHome string
}

// ParseSettingSources reads --setting-sources: comma-separated layer
// names ("user,project,local"); "" is none of them.
func ParseSettingSources(s string) ([]string, error) {
	out := []string{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(settingSourceNames[:], f) {
			return nil, fmt.Errorf("unknown settings source %q: want user, project and local, comma-separated (\"\" for none)", f)
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

func (l SettingsLayers) loads(source string) bool {
	return l.Sources == nil || slices.Contains(l.Sources, source)
}

// flagSettings reads and checks --settings as a settings file is checked,
// and returns what names it in messages: the file's path, or
// FlagSettingsName for inline JSON.
func (l SettingsLayers) flagSettings() (string, *Settings, error) {
	v := strings.TrimSpace(l.Flag)
	name, label, data := FlagSettingsName, "JSON", []byte(v)
	if !strings.HasPrefix(v, "{") {
		name = v
		if !filepath.IsAbs(name) && l.Dir != "" {
			name = filepath.Join(l.Dir, name)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return "", nil, fmt.Errorf("--settings: %w (give a settings file or the JSON itself, {\"permissions\": ...})", err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return "", nil, fmt.Errorf("--settings %s: the file is empty; want a settings JSON object", name)
		}
		data, label = b, name
	}
	s, err := parseSettings(label, data, false)
	if err != nil {
		return "", nil, fmt.Errorf("--%v", err)
	}
	return name, s, nil
}
