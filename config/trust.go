package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/permission"
)

// IgnoredSetting is one grant of a project settings file that was left
// out because the project is not trusted.
type IgnoredSetting struct {
	File    string // the settings file
	Setting string // its key: "permissions.allow", "env", "sandbox.enabled", ...
	// Value is what it would grant, for people: "Bash(touch:*), Edit",
	// "bypassPermissions", the names of env variables.
	Value string
}

// projectGrant is one kind of setting that widens what nova may do, and
// so applies from a project file only when the project is trusted.
// Settings that restrict (deny and ask rules, default and plan modes, the
// sandbox values that tighten) are not grants: they always apply.
type projectGrant struct {
	setting string
	// take removes the grant from s and says what it granted; "" means s
	// grants nothing of this kind.
	take func(s *Settings) string
}

// projectGrants lists the kinds of grant. A new setting that widens what
// nova does (hooks, ...) becomes trust-gated by adding it here.
func projectGrants() []projectGrant {
	return append([]projectGrant{
		{"permissions.allow", func(s *Settings) string {
			v := strings.Join(s.Permissions.Allow, ", ")
			s.Permissions.Allow = nil
			return v
		}},
		{"permissions.defaultMode", func(s *Settings) string {
			switch m := permission.Mode(s.Permissions.DefaultMode); m {
			case permission.ModeAcceptEdits, permission.ModeBypass:
				s.Permissions.DefaultMode = ""
				return string(m)
			}
			return ""
		}},
		{"permissions.additionalDirectories", func(s *Settings) string {
			v := strings.Join(s.Permissions.AdditionalDirectories, ", ")
			s.Permissions.AdditionalDirectories = nil
			return v
		}},
		{"env", func(s *Settings) string {
			names := make([]string, 0, len(s.Env))
			for k := range s.Env {
				names = append(names, k)
			}
			sort.Strings(names)
			s.Env = nil
			return strings.Join(names, ", ")
		}},
		// Passing a secret-named variable to every command is the
		// user's choice, not a repository's.
		{"envPassthrough", func(s *Settings) string {
			v := strings.Join(s.EnvPassthrough, ", ")
			s.EnvPassthrough = nil
			return v
		}},
		{"sandbox.enabled", func(s *Settings) string { return takeBool(&s.Sandbox.Enabled, false) }},
		{"sandbox.network", takeNetwork},
		{"sandbox.autoAllow", func(s *Settings) string { return takeBool(&s.Sandbox.AutoAllow, true) }},
		{"sandbox.allowUnixSockets", func(s *Settings) string { return takeBool(&s.Sandbox.AllowUnixSockets, true) }},
		// A command that runs outside the sandbox can write what runs
		// later; which ones do is the user's choice.
		{"sandbox.excludedCommands", func(s *Settings) string {
			v := strings.Join(s.Sandbox.ExcludedCommands, ", ")
			s.Sandbox.ExcludedCommands = nil
			return v
		}},
		// Approving .mcp.json servers starts programs the repository
		// names; declining them (disabledMcpjsonServers) restricts.
		{"enableAllProjectMcpServers", func(s *Settings) string { return takeBool(&s.EnableAllProjectMcpServers, true) }},
		{"enabledMcpjsonServers", func(s *Settings) string {
			v := strings.Join(s.EnabledMcpjsonServers, ", ")
			s.EnabledMcpjsonServers = nil
			return v
		}},
		{"sandbox.filesystem.allowWrite", func(s *Settings) string {
			v := strings.Join(s.Sandbox.AllowWrite, ", ")
			s.Sandbox.AllowWrite = nil
			return v
		}},
		// A status line runs its command after every turn.
		{"statusLine", func(s *Settings) string {
			if s.StatusLine == nil {
				return ""
			}
			v := s.StatusLine.Command
			s.StatusLine = nil
			return v
		}},
		// Hooks run programs the repository names, on every prompt and
		// tool call: none of a project's runs until it is trusted.
		{"hooks", func(s *Settings) string {
			v := hookEvents(s.Hooks)
			s.Hooks = nil
			return v
		}},
	}, pluginGrants()...)
}

// hookEvents names the events a "hooks" object configures, for the
// notice that says they were left out; "" when it configures none.
func hookEvents(raw json.RawMessage) string {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return ""
	}
	var events map[string]json.RawMessage
	if json.Unmarshal(raw, &events) != nil {
		return "hooks"
	}
	names := make([]string, 0, len(events))
	for k := range events {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// takeBool clears *b when it is set to the value that grants.
func takeBool(b **bool, grant bool) string {
	if *b == nil || **b != grant {
		return ""
	}
	*b = nil
	return fmt.Sprint(grant)
}

// takeGrants removes every grant from s, read from path, and lists them.
func takeGrants(s *Settings, path string) []IgnoredSetting {
	var out []IgnoredSetting
	for _, g := range projectGrants() {
		if v := g.take(s); v != "" {
			out = append(out, IgnoredSetting{File: path, Setting: g.setting, Value: v})
		}
	}
	return out
}

// TrustStore is the list of directories the user trusts, in
// NOVA_HOME/trusted.json. Trusting a directory trusts everything below it.
// Writers take the file's lock and replace it atomically, so concurrent
// nova processes lose no entry; readers need no lock.
type TrustStore struct {
	path string
}

// TrustedDir is one entry of the trust store.
type TrustedDir struct {
	Path  string    `json:"path"` // absolute, symlinks resolved
	Added time.Time `json:"added"`
}

// trustDoc is the file's content.
type trustDoc struct {
	Trusted []TrustedDir `json:"trusted"`
}

// NewTrustStore returns the trust store of novaHome.
func NewTrustStore(novaHome string) *TrustStore {
	return &TrustStore{path: filepath.Join(novaHome, "trusted.json")}
}

// Path is the store's file.
func (s *TrustStore) Path() string { return s.path }

// List returns the trusted directories, sorted by path.
func (s *TrustStore) List() ([]TrustedDir, error) {
	doc, err := s.read()
	return doc.Trusted, err
}

// Lookup returns the entry that trusts dir: dir's own, or else that of
// its nearest trusted ancestor. ok is false when dir is not trusted.
func (s *TrustStore) Lookup(dir string) (entry TrustedDir, ok bool, err error) {
	doc, err := s.read()
	if err != nil {
		return TrustedDir{}, false, err
	}
	entry, ok = covering(doc.Trusted, CanonicalDir(dir))
	return entry, ok, nil
}

// Trust adds dir, which must be an existing directory, to the store. When
// dir is already trusted (by its own entry or an ancestor's) nothing is
// written and that entry is returned with already set.
func (s *TrustStore) Trust(dir string) (entry TrustedDir, already bool, err error) {
	abs := CanonicalDir(dir)
	if st, err := os.Stat(abs); err != nil {
		return TrustedDir{}, false, fmt.Errorf("trust %s: %w", dir, err)
	} else if !st.IsDir() {
		return TrustedDir{}, false, fmt.Errorf("trust %s: not a directory", dir)
	}
	err = s.edit(func(doc *trustDoc) (bool, error) {
		if e, ok := covering(doc.Trusted, abs); ok {
			entry, already = e, true
			return false, nil
		}
		entry = TrustedDir{Path: abs, Added: time.Now().UTC().Truncate(time.Second)}
		doc.Trusted = append(doc.Trusted, entry)
		return true, nil
	})
	return entry, already, err
}

// Revoke removes dir's own entry. A directory trusted only through an
// ancestor, or not at all, is an error saying so: revoking it would change
// nothing.
func (s *TrustStore) Revoke(dir string) error {
	abs := CanonicalDir(dir)
	return s.edit(func(doc *trustDoc) (bool, error) {
		i := slices.IndexFunc(doc.Trusted, func(e TrustedDir) bool { return e.Path == abs })
		if i < 0 {
			if e, ok := covering(doc.Trusted, abs); ok {
				return false, fmt.Errorf("%s is not trusted itself but through %s: revoke that (nova trust --revoke %s)", abs, e.Path, e.Path)
			}
			return false, fmt.Errorf("%s is not trusted", abs)
		}
		doc.Trusted = slices.Delete(doc.Trusted, i, i+1)
		return true, nil
	})
}

// CanonicalDir is dir made absolute and clean, symlinks resolved where it
// exists, as the store keeps it: a link into a trusted tree is trusted,
// and a trusted name cannot be pointed elsewhere by a link.
func CanonicalDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// covering finds the entry for dir itself or its nearest ancestor.
func covering(entries []TrustedDir, dir string) (TrustedDir, bool) {
	var best TrustedDir
	found := false
	for _, e := range entries {
		if within(e.Path, dir) && (!found || len(e.Path) > len(best.Path)) {
			best, found = e, true
		}
	}
	return best, found
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (s *TrustStore) read() (trustDoc, error) {
	var doc trustDoc
	data, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return doc, nil
	case err != nil:
		return doc, fmt.Errorf("read trust store %s: %w", s.path, err)
	case len(strings.TrimSpace(string(data))) == 0:
		return doc, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return doc, fmt.Errorf("trust store %s: %s (fix or remove the file)", s.path, describeJSONError(data, err))
	}
	for i, e := range doc.Trusted {
		if !filepath.IsAbs(e.Path) {
			return doc, fmt.Errorf("trust store %s: entry %d: %q is not an absolute path (fix or remove the file)", s.path, i+1, e.Path)
		}
		doc.Trusted[i].Path = filepath.Clean(e.Path)
	}
	sort.Slice(doc.Trusted, func(i, j int) bool { return doc.Trusted[i].Path < doc.Trusted[j].Path })
	return doc, nil
}

// edit rewrites the store under its lock; change reports whether it
// changed anything.
func (s *TrustStore) edit(change func(*trustDoc) (bool, error)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	lock := flock.New(s.path + ".lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("trust store: lock %s: %w", s.path, err)
	}
	defer lock.Unlock()
	doc, err := s.read()
	if err != nil {
		return err
	}
	changed, err := change(&doc)
	if err != nil || !changed {
		return err
	}
	sort.Slice(doc.Trusted, func(i, j int) bool { return doc.Trusted[i].Path < doc.Trusted[j].Path })
	if doc.Trusted == nil {
		doc.Trusted = []TrustedDir{}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}
