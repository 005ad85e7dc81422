package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/atomicfile"
)

// Store is a plugin home in Claude Code's layout: known_marketplaces.json,
// installed_plugins.json, marketplaces/<name> (clones), cache/<market>/
// <plugin>/<version> (installed copies) and data/<plugin>-<market>. nova's
// is NOVA_HOME/plugins, which nova writes; Claude Code's is
// ~/.claude/plugins, which nova only reads.
type Store struct {
	Dir string
}

// Known is one marketplace of known_marketplaces.json.
type Known struct {
	Source json.RawMessage `json:"source"`
	// InstallLocation is the catalogue's directory: a clone, or the
	// directory of a directory source.
	InstallLocation string `json:"installLocation"`
	LastUpdated     string `json:"lastUpdated,omitempty"`
}

// Install is one record of installed_plugins.json.
type Install struct {
	Scope        string `json:"scope"`
	InstallPath  string `json:"installPath"`
	Version      string `json:"version"`
	InstalledAt  string `json:"installedAt,omitempty"`
	LastUpdated  string `json:"lastUpdated,omitempty"`
	GitCommitSha string `json:"gitCommitSha,omitempty"`
	ProjectPath  string `json:"projectPath,omitempty"`
}

// installedDoc is installed_plugins.json (its version 2).
type installedDoc struct {
	Version int                  `json:"version"`
	Plugins map[string][]Install `json:"plugins"`
}

func (s Store) knownPath() string     { return filepath.Join(s.Dir, "known_marketplaces.json") }
func (s Store) installedPath() string { return filepath.Join(s.Dir, "installed_plugins.json") }

// Known reads known_marketplaces.json; none is an empty map.
func (s Store) Known() (map[string]Known, error) {
	out := map[string]Known{}
	return out, readJSON(s.knownPath(), &out)
}

// Installed reads installed_plugins.json: id -> its records.
func (s Store) Installed() (map[string][]Install, error) {
	doc := installedDoc{Plugins: map[string][]Install{}}
	if err := readJSON(s.installedPath(), &doc); err != nil {
		return nil, err
	}
	if doc.Plugins == nil {
		doc.Plugins = map[string][]Install{}
	}
	return doc.Plugins, nil
}

// InstalledAt is the record of id, its first (Claude Code keeps one a
// scope; each names the same copy), and whether there is one.
func (s Store) InstalledAt(id string) (Install, bool, error) {
	all, err := s.Installed()
	if err != nil || len(all[id]) == 0 {
		return Install{}, false, err
	}
	return all[id][0], true, nil
}

// lock takes the store's lock for a change: every writer of its files
// and directories holds it, so two nova processes never install into
// each other.
func (s Store) lock() (*flock.Flock, error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	l := flock.New(filepath.Join(s.Dir, ".lock"))
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("plugins: lock %s: %w", s.Dir, err)
	}
	return l, nil
}

// editKnown rewrites known_marketplaces.json; the caller holds the lock.
func (s Store) editKnown(change func(map[string]Known)) error {
	known, err := s.Known()
	if err != nil {
		return err
	}
	change(known)
	return writeJSON(s.knownPath(), known)
}

// editInstalled rewrites installed_plugins.json; the caller holds the lock.
func (s Store) editInstalled(change func(map[string][]Install)) error {
	all, err := s.Installed()
	if err != nil {
		return err
	}
	change(all)
	return writeJSON(s.installedPath(), installedDoc{Version: 2, Plugins: all})
}

// DataDir is a plugin's data directory (its ${CLAUDE_PLUGIN_DATA}).
func (s Store) DataDir(id string) string {
	name, market := SplitID(id)
	return filepath.Join(s.Dir, "data", name+"-"+market)
}

// SplitID splits name@marketplace; an id without @ has no marketplace.
func SplitID(id string) (name, marketplace string) {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '@' {
			return id[:i], id[i+1:]
		}
	}
	return id, ""
}

// ParseID reads NAME@MARKETPLACE as the commands take it.
func ParseID(id string) (name, marketplace string, err error) {
	name, marketplace = SplitID(id)
	if marketplace == "" {
		return "", "", fmt.Errorf("%q: name the plugin as NAME@MARKETPLACE (nova plugin list shows them)", id)
	}
	if err := checkName("plugin", name); err != nil {
		return "", "", err
	}
	if err := checkName("marketplace", marketplace); err != nil {
		return "", "", err
	}
	return name, marketplace, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %v (fix or remove the file)", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// now is a state file's time stamp, as Claude Code writes them.
func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
