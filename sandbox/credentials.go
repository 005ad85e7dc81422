package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/nova-dev/nova/permission"
)

// maskCandidates returns the cleaned paths to mask (the credentials,
// permission.CredentialPaths, and extra), dropping (with a
// warning) those that would hide a writable directory: making the
// workspace unreadable is not a sandbox the user can work in, and a
// workspace inside ~/.config/gh is the user's choice.
func maskCandidates(home, novaHome string, extra, writable []string) ([]string, []string, error) {
	var out, warnings []string
	for _, m := range extra {
		if !filepath.IsAbs(m) {
			return nil, nil, fmt.Errorf("sandbox: path to mask %q is not absolute", m)
		}
	}
	for _, m := range append(permission.CredentialPaths(home, novaHome), extra...) {
		m = filepath.Clean(m)
		if slices.Contains(out, m) {
			continue
		}
		hidden := ""
		for _, candidate := range []string{m, realOrSelf(m)} {
			for _, w := range writable {
				if within(w, candidate) {
					hidden = w
				}
			}
		}
		if hidden != "" {
			warnings = append(warnings, fmt.Sprintf(
				"sandbox: %s stays readable inside the sandbox: it holds the writable directory %s", m, hidden))
			continue
		}
		out = append(out, m)
	}
	return out, warnings, nil
}

// mask is a credential path as it is now, ready to be hidden.
type mask struct {
	path string // real path
	dir  bool
}

// currentMasks resolves the candidates as they are when a command starts:
// a credential created since New is hidden too, and a symbolic link is
// followed so that its target, wherever it is, is what is hidden. Missing
// paths need nothing, since the home is read-only and they cannot be made.
func (s *Sandbox) currentMasks() []mask {
	var out []mask
	seen := map[string]bool{}
	for _, m := range s.masks {
		real, err := filepath.EvalSymlinks(m)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		if slices.ContainsFunc(s.writable, func(w string) bool { return within(w, real) }) {
			continue // re-aimed since New at something holding the workspace
		}
		if within(real, "/tmp") && !s.visible(real) {
			continue // the private /tmp hides it already
		}
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		out = append(out, mask{path: real, dir: fi.IsDir()})
	}
	return out
}

// visible reports whether a path under /tmp shows through the private
// /tmp: only the home and the writable directories are bound there.
func (s *Sandbox) visible(path string) bool {
	if s.home != "" && within(path, s.home) {
		return true
	}
	return slices.ContainsFunc(s.writable, func(w string) bool { return within(path, w) })
}

// realOrSelf returns path with symbolic links resolved, or path itself when
// that fails.
func realOrSelf(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}
