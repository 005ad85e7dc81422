package memory

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Tracker loads the instruction files of directories below the working
// directory when a tool first reaches into them, so a monorepo's packages
// can carry their own NOVACODE.md without all of them filling the prompt
// up front. It is safe for concurrent use.
type Tracker struct {
	workdir string
	home    string

	mu       sync.Mutex
	seen     map[string]bool // fileKey of every file returned or already loaded
	visited  map[string]bool // directories whose files have been looked for
	rules    []File          // conditional rules not yet returned
	warnings []string
}

// NewTracker returns a Tracker for workdir; home is the user's home
// directory, where "~/" imports lead (without one they become warnings);
// already are the files loaded at the start of the session, which Touch
// never returns again, but for the conditional rules among them, which
// it returns when a path first matches them.
func NewTracker(workdir, home string, already []File) *Tracker {
	wd, err := filepath.Abs(workdir)
	if err != nil {
		wd = filepath.Clean(workdir)
	}
	t := &Tracker{workdir: wd, home: home, seen: map[string]bool{}, visited: map[string]bool{}}
	for _, f := range already {
		t.seen[fileKey(f.Path)] = true
		if f.Conditional() {
			t.rules = append(t.rules, f)
		}
	}
	return t
}

// Touch returns the instruction files (NOVACODE.md, AGENTS.md, CLAUDE.md,
// .claude/CLAUDE.md, .claude/rules, NOVACODE.local.md, CLAUDE.local.md and
// what they import) of the directories strictly below the working
// directory on the way to path, and the conditional rules path matches,
// that it has not returned before. path is a file or directory, absolute
// or relative to the working directory; paths outside it yield only the
// rules they match.
func (t *Tracker) Touch(path string) []File {
	if !filepath.IsAbs(path) {
		path = filepath.Join(t.workdir, path)
	}
	path = filepath.Clean(path)
	t.mu.Lock()
	matched := t.matchRules(path)
	t.mu.Unlock()
	rel, err := filepath.Rel(t.workdir, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return matched
	}
	parts := strings.Split(rel, string(filepath.Separator))
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		parts = parts[:len(parts)-1] // a file, or one about to be created
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	l := newLoader(t.home, t.seen)
	dir := t.workdir
	for _, p := range parts {
		dir = filepath.Join(dir, p)
		if t.visited[dir] {
			continue
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			break // not there yet: look again when it exists
		}
		t.visited[dir] = true
		for _, name := range sharedNames() {
			l.load(filepath.Join(dir, name))
		}
		l.loadRules(dir)
		for _, name := range localNames() {
			l.load(filepath.Join(dir, name))
		}
	}
	t.warnings = append(t.warnings, l.warnings...)
	var found []File
	for _, f := range l.files {
		if f.Conditional() {
			t.rules = append(t.rules, f)
		} else {
			found = append(found, f)
		}
	}
	return append(matched, append(found, t.matchRules(path)...)...)
}

// matchRules takes out of t.rules and returns those path matches. t.mu
// is held.
func (t *Tracker) matchRules(path string) []File {
	var out []File
	kept := t.rules[:0]
	for _, r := range t.rules {
		if r.matches(path) {
			out = append(out, r)
		} else {
			kept = append(kept, r)
		}
	}
	t.rules = kept
	return out
}

// Warnings returns, once, the problems met while loading files for Touch
// (missing imports, cycles, unreadable files).
func (t *Tracker) Warnings() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.warnings
	t.warnings = nil
	return w
}
