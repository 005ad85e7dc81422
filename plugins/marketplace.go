package plugins

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// MarketplacePath is where a marketplace's catalogue is, under its root.
const MarketplacePath = ".claude-plugin/marketplace.json"

// Catalog is marketplace.json: its name and the plugins it offers.
type Catalog struct {
	Name     string          `json:"name"`
	Owner    json.RawMessage `json:"owner,omitempty"`
	Metadata struct {
		Description string `json:"description,omitempty"`
		Version     string `json:"version,omitempty"`
		// PluginRoot is put before a plugin source that is a bare name.
		PluginRoot string `json:"pluginRoot,omitempty"`
	} `json:"metadata"`
	Plugins []Entry `json:"plugins"`
}

// Entry is one plugin of a catalogue. Source is a path inside the
// marketplace ("./plugins/x") or an object naming a git repository:
// {"source": "github", "repo": "owner/repo"}, {"source": "url", "url":
// "https://….git"}, {"source": "git-subdir", "url": …, "path": …}, each
// with an optional "ref" or "sha".
type Entry struct {
	Name        string          `json:"name"`
	Source      json.RawMessage `json:"source"`
	Description string          `json:"description,omitempty"`
	Version     string          `json:"version,omitempty"`
	// Strict false lets the entry stand for a plugin.json the plugin
	// lacks; the whole entry is then its manifest.
	Strict *bool `json:"strict,omitempty"`
	// Raw is the entry as written.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the entry as written, for strict: false.
func (e *Entry) UnmarshalJSON(b []byte) error {
	type plain Entry
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = Entry(p)
	e.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// ReadCatalog reads the marketplace.json under root.
func ReadCatalog(root string) (*Catalog, error) {
	path := filepath.Join(root, filepath.FromSlash(MarketplacePath))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: it is not a plugin marketplace", root, MarketplacePath)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var c Catalog
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %v (fix the file)", path, err)
	}
	if err := checkName("marketplace", c.Name); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Name == InlineMarketplace {
		return nil, fmt.Errorf("%s: the name %q is kept for --plugin-dir plugins", path, InlineMarketplace)
	}
	return &c, nil
}

// Find returns the catalogue's entry called name.
func (c *Catalog) Find(name string) (Entry, bool) {
	for _, e := range c.Plugins {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Source is where a marketplace comes from, in Claude Code's shape (the
// "source" of extraKnownMarketplaces and known_marketplaces.json):
// {"source": "git", "url": …}, {"source": "github", "repo": "owner/repo"},
// {"source": "directory", "path": …}.
type Source struct {
	Source string `json:"source"`
	URL    string `json:"url,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Path   string `json:"path,omitempty"`
	Ref    string `json:"ref,omitempty"`
}

// githubRepo is owner/repo, the short form of a GitHub marketplace.
var githubRepo = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// ParseSource reads what `nova plugin marketplace add` is given: a git
// URL (https://, ssh://, git@host:path, file://), owner/repo for GitHub,
// or a local directory (or its marketplace.json), made absolute against
// dir.
func ParseSource(arg, dir string) (Source, error) {
	arg = strings.TrimSpace(arg)
	switch {
	case arg == "":
		return Source{}, errors.New("no marketplace given: want a git URL, owner/repo or a directory")
	case strings.HasPrefix(arg, "https://"), strings.HasPrefix(arg, "http://"), strings.HasPrefix(arg, "ssh://"),
		strings.HasPrefix(arg, "file://"), strings.HasPrefix(arg, "git@"):
		url, ref, _ := strings.Cut(arg, "#")
		return Source{Source: "git", URL: url, Ref: ref}, nil
	case strings.HasPrefix(arg, "./"), strings.HasPrefix(arg, "../"), strings.HasPrefix(arg, "/"), strings.HasPrefix(arg, "~"), arg == ".":
	case githubRepo.MatchString(arg):
		if _, err := os.Stat(filepath.Join(dir, arg)); err != nil {
			return Source{Source: "github", Repo: arg}, nil
		}
	}
	path := arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if filepath.Base(path) == "marketplace.json" {
		path = filepath.Dir(filepath.Dir(path))
	}
	if _, err := ReadCatalog(path); err != nil {
		return Source{}, err
	}
	return Source{Source: "directory", Path: filepath.Clean(path)}, nil
}

// DecodeSource reads a source as settings and state files write it.
func DecodeSource(raw json.RawMessage) (Source, error) {
	var s Source
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("a marketplace source is an object such as {\"source\": \"git\", \"url\": …}: %v", err)
	}
	switch s.Source {
	case "git", "url":
		if s.URL == "" {
			return s, fmt.Errorf("a %s source needs a \"url\"", s.Source)
		}
		s.Source = "git"
	case "github":
		if !githubRepo.MatchString(s.Repo) {
			return s, fmt.Errorf("a github source needs \"repo\": \"owner/name\" (got %q)", s.Repo)
		}
	case "directory", "file":
		if !filepath.IsAbs(s.Path) {
			return s, fmt.Errorf("a %s source needs an absolute \"path\" (got %q)", s.Source, s.Path)
		}
		if s.Source == "file" {
			s.Source, s.Path = "directory", filepath.Dir(filepath.Dir(s.Path))
		}
	default:
		return s, fmt.Errorf("nova cannot fetch a marketplace of source %q (it takes git, github and directory)", s.Source)
	}
	return s, nil
}

// GitURL is the URL a git or github source is cloned from; "" for a
// directory.
func (s Source) GitURL() string {
	switch s.Source {
	case "git":
		return s.URL
	case "github":
		return "https://github.com/" + s.Repo + ".git"
	}
	return ""
}

// String is the source for people: the URL, owner/repo or directory.
func (s Source) String() string {
	switch s.Source {
	case "git":
		return s.URL
	case "github":
		return s.Repo + " (GitHub)"
	}
	return s.Path
}

// JSON is the source as settings and state files keep it.
func (s Source) JSON() json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// pluginSource is an entry's source resolved: a directory inside the
// marketplace, or a git repository (and a directory in it).
type pluginSource struct {
	dir      string // inside the marketplace's root, for a relative source
	url, sub string
	ref, sha string
}

// resolveSource reads an entry's source against the marketplace at root.
func resolveSource(c *Catalog, e Entry, root string) (pluginSource, error) {
	var rel string
	if err := json.Unmarshal(e.Source, &rel); err == nil {
		if !strings.HasPrefix(rel, "./") && !strings.HasPrefix(rel, "../") && c.Metadata.PluginRoot != "" {
			rel = strings.TrimSuffix(c.Metadata.PluginRoot, "/") + "/" + rel
		}
		dir := filepath.Join(root, filepath.FromSlash(rel))
		if r, err := filepath.Rel(root, dir); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return pluginSource{}, fmt.Errorf("plugin %s: source %q leads out of the marketplace", e.Name, rel)
		}
		return pluginSource{dir: dir}, nil
	}
	var o struct {
		Source, Repo, URL, Path, Ref, SHA, Package string
	}
	if err := json.Unmarshal(e.Source, &o); err != nil {
		return pluginSource{}, fmt.Errorf("plugin %s: source must be a path (\"./plugins/%s\") or an object with a \"source\": %v", e.Name, e.Name, err)
	}
	ps := pluginSource{ref: o.Ref, sha: o.SHA}
	switch o.Source {
	case "github":
		if !githubRepo.MatchString(o.Repo) {
			return ps, fmt.Errorf("plugin %s: a github source needs \"repo\": \"owner/name\"", e.Name)
		}
		ps.url, ps.sub = "https://github.com/"+o.Repo+".git", o.Path
	case "url", "git":
		ps.url = o.URL
	case "git-subdir":
		ps.url, ps.sub = o.URL, o.Path
	default:
		return ps, fmt.Errorf("plugin %s: nova cannot install a plugin of source %q (it installs paths in the marketplace, github, url and git-subdir sources)", e.Name, o.Source)
	}
	if ps.url == "" {
		return ps, fmt.Errorf("plugin %s: its %s source has no url", e.Name, o.Source)
	}
	if ps.sub != "" && (filepath.IsAbs(ps.sub) || strings.HasPrefix(filepath.Clean(ps.sub), "..")) {
		return ps, fmt.Errorf("plugin %s: path %q leads out of its repository", e.Name, ps.sub)
	}
	return ps, nil
}
