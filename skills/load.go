package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nova-dev/nova/config"
)

// Dirs say where a session's skills are.
type Dirs struct {
	// NovaHome, ClaudeHome and Workdir are nova's directory, Claude
	// Code's directory of the user (config.ClaudeHome: ~/.claude or
	// CLAUDE_CONFIG_DIR; "" for none) and the workspace.
	NovaHome, ClaudeHome, Workdir string
	// Trusted says the workspace is trusted: only then are its skills and
	// commands loaded (they are the repository author's words, and may
	// widen what runs without asking).
	Trusted bool
	// Plugins are the skill, command and agent paths of the session's
	// plugins (package plugins hands them over), read after every root
	// of Roots and AgentRoots (plugins.go).
	Plugins []PluginRoot
}

// Root is one directory skills or commands are read from.
type Root struct {
	Dir   string
	Kind  Kind
	Scope Scope
}

// Roots are the directories, first the one that wins a name: the user's
// (nova's, then Claude Code's) before the project's, as Claude Code lets a
// personal skill win over a project's, and in each scope skills before
// commands (a skill and a command of one name: the skill).
func (d Dirs) Roots() []Root {
	var out []Root
	if d.NovaHome != "" {
		out = append(out, Root{filepath.Join(d.NovaHome, "skills"), KindSkill, ScopeUser})
	}
	if d.ClaudeHome != "" {
		out = append(out, Root{filepath.Join(d.ClaudeHome, "skills"), KindSkill, ScopeUser})
	}
	if d.NovaHome != "" {
		out = append(out, Root{filepath.Join(d.NovaHome, "commands"), KindCommand, ScopeUser})
	}
	if d.ClaudeHome != "" {
		out = append(out, Root{filepath.Join(d.ClaudeHome, "commands"), KindCommand, ScopeUser})
	}
	return append(out, d.projectRoots(KindSkill, KindCommand)...)
}

// projectRoots are the project's directories of each kind, in every
// directory from the workspace up to its repository's root
// (config.ProjectDirs: started in a subfolder, the root's commands are
// found, as in Claude Code), nearer first so that the nearer wins a name;
// in each directory nova's before Claude Code's. The workspace's trust
// covers them all: they are one repository's files.
func (d Dirs) projectRoots(kinds ...Kind) []Root {
	var out []Root
	dirs := config.ProjectDirs(d.Workdir)
	for _, k := range kinds {
		for _, dir := range dirs {
			out = append(out,
				Root{filepath.Join(dir, ".nova", k.dirName()), k, ScopeProject},
				Root{filepath.Join(dir, ".claude", k.dirName()), k, ScopeProject})
		}
	}
	return out
}

// Set is the skills found at one moment: files are read again for each
// set, so a skill added or edited counts from the next prompt on.
type Set struct {
	list    []*Skill // by name
	byName  map[string]*Skill
	aliases map[string]*Skill // "namespace:name" of commands
	// Warnings are the files left out or read in part, and why.
	Warnings []string
	// Ignored are the project directories not loaded because the
	// workspace is not trusted, with what they hold.
	Ignored []Ignored
}

// Ignored is a project directory of skills or commands left out.
type Ignored struct {
	Dir   string
	Kind  Kind
	Names []string
}

// Load reads every root of d.
func Load(d Dirs) *Set {
	s := &Set{byName: map[string]*Skill{}, aliases: map[string]*Skill{}}
	s.Warnings, s.Ignored = visitRoots(d.Roots(), d.Trusted, scan, func(sk *Skill) string { return sk.Name }, s.add)
	s.Warnings = append(s.Warnings, d.scanPlugins(s.add)...)
	sort.Slice(s.list, func(i, j int) bool { return s.list[i].Name < s.list[j].Name })
	return s
}

// visitRoots scans each root once (a workspace at ~ has ~/.claude as its
// .claude) and keeps what it finds, in root order; a project's roots are
// only listed as ignored in an untrusted workspace. It returns the
// warnings of the roots it kept and the roots it ignored.
func visitRoots[T any](roots []Root, trusted bool, scan func(Root) ([]T, []string), name func(T) string, keep func(T)) ([]string, []Ignored) {
	var warnings []string
	var ignored []Ignored
	seen := map[string]bool{}
	for _, r := range roots {
		real := r.Dir
		if p, err := filepath.EvalSymlinks(r.Dir); err == nil {
			real = p
		}
		if seen[real] {
			continue
		}
		seen[real] = true
		found, warns := scan(r)
		if r.Scope == ScopeProject && !trusted {
			if len(found) > 0 {
				ig := Ignored{Dir: r.Dir, Kind: r.Kind}
				for _, f := range found {
					ig.Names = append(ig.Names, name(f))
				}
				ignored = append(ignored, ig)
			}
			continue
		}
		warnings = append(warnings, warns...)
		for _, f := range found {
			keep(f)
		}
	}
	return warnings, ignored
}

// add keeps sk unless an earlier root gave its name already.
func (s *Set) add(sk *Skill) {
	alias := ""
	if sk.Namespace != "" {
		alias = strings.ReplaceAll(sk.Namespace, "/", ":") + ":" + sk.Name
		if _, taken := s.aliases[alias]; taken {
			return
		}
	}
	if _, taken := s.byName[sk.Name]; taken {
		if alias == "" {
			return
		}
		// Reachable by its namespaced name only.
		sk.Name = alias
	}
	if _, taken := s.byName[sk.Name]; taken {
		return
	}
	s.byName[sk.Name] = sk
	if alias != "" {
		s.aliases[alias] = sk
	}
	s.list = append(s.list, sk)
}

// Lookup finds a skill by name, or a command by "namespace:name"; nil
// for none.
func (s *Set) Lookup(name string) *Skill {
	name = strings.TrimPrefix(name, "/")
	if sk, ok := s.byName[name]; ok {
		return sk
	}
	return s.aliases[name]
}

// All returns the skills by name.
func (s *Set) All() []*Skill { return append([]*Skill(nil), s.list...) }

// IgnoredDir returns the untrusted project directory that holds a skill
// or command called name, or "".
func (s *Set) IgnoredDir(name string) string {
	name = strings.TrimPrefix(name, "/")
	for _, ig := range s.Ignored {
		for _, n := range ig.Names {
			if n == name {
				return ig.Dir
			}
		}
	}
	return ""
}

// scan reads one root: SKILL.md in each directory of a skills root,
// every .md file (subdirectories namespacing them) of a commands root.
func scan(r Root) ([]*Skill, []string) {
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("%s: %v", r.Dir, err)}
	}
	var out []*Skill
	var warns []string
	keep := func(sk *Skill, w []string, err error, path string) {
		for _, m := range w {
			warns = append(warns, path+": "+m)
		}
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s: left out: %v", path, err))
			return
		}
		out = append(out, sk)
	}
	if r.Kind == KindSkill {
		for _, e := range entries {
			dir := filepath.Join(r.Dir, e.Name())
			if st, err := os.Stat(dir); err != nil || !st.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue // a link to a directory counts, as skills are often linked in
			}
			path := filepath.Join(dir, "SKILL.md")
			if _, err := os.Stat(path); err != nil {
				continue
			}
			sk, w, err := parseFile(path, e.Name(), KindSkill, r.Scope)
			keep(sk, w, err, path)
		}
		return out, warns
	}
	_ = filepath.WalkDir(r.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s: %v", path, err))
			return nil
		}
		if d.IsDir() {
			if path != r.Dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".md") || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		rel, _ := filepath.Rel(r.Dir, path)
		ns := filepath.ToSlash(filepath.Dir(rel))
		if ns == "." {
			ns = ""
		}
		sk, w, err := parseFile(path, strings.TrimSuffix(d.Name(), ".md"), KindCommand, r.Scope)
		if sk != nil {
			sk.Namespace = ns
		}
		keep(sk, w, err, path)
		return nil
	})
	return out, warns
}
