package permission

// bash_paths.go: how a Bash command's paths meet rules and sensitive files (symlinks, git directories, configuration writes).

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// hiddenSensitive returns why a command whose effects nova cannot read in
// full may still reach a sensitive file: it names one inside a program's
// text or a path built at run time, or it runs inside a git directory.
func (c *Checker) hiddenSensitive(bc bashCmd) string {
	sc := bc.sc
	if inGitDir(sc.cwd) || inGitDir(physicalPath(sc.cwd)) {
		return "it runs inside the git directory " + sc.cwd + ", where what it writes can make git run code"
	}
	for _, w := range sc.argv[1:] {
		if why := sensitiveWord(w); why != "" {
			return "the command's effects cannot be read in full, and " + why
		}
	}
	return ""
}

// bashPathRule reports whether a Read or Edit rule covers a path a Bash
// command reads or writes. An allow rule must cover where the path really
// leads; a deny or ask rule covers either spelling.
func (c *Checker) bashPathRule(r Rule, acc access, allow bool) bool {
	if r.Spec == "" || !acc.known() {
		return false
	}
	tool := "Read"
	if acc.write {
		tool = "Edit"
	}
	if !(r.Tool == tool || r.Tool == "Write" && acc.write) {
		return false
	}
	if allow {
		return r.matchPath(acc.real, c.home)
	}
	return c.pathRuleMatch(r, acc)
}

// ruleUnder reports whether a Read deny or ask rule could match a file
// below the directory a recursive read starts from.
func (c *Checker) ruleUnder(r Rule, acc access) bool {
	if r.Tool != "Read" || r.Spec == "" || !acc.known() || acc.write {
		return false
	}
	pat := r.pattern(c.home)
	prefix := pat
	if i := strings.IndexAny(pat, "*?[{"); i >= 0 {
		prefix = pat[:i]
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if i := strings.LastIndex(pat[:len(prefix)], "/"); i >= 0 && len(prefix) < len(pat) {
		prefix = pat[:i]
	}
	if prefix == "" {
		prefix = "/"
	}
	for _, d := range []string{acc.path, acc.real} {
		if within(prefix, d) || within(d, prefix) {
			return true
		}
	}
	return false
}

// treeWriteSensitive returns why a write of everything below a directory
// (cp -r, tar -x, unzip -d, rm -r) may reach a sensitive file: the
// directory holds a git directory, is one, or holds the home directory.
func (c *Checker) treeWriteSensitive(acc access) string {
	d := acc.real
	switch {
	case inGitDir(d):
		return "writes below " + d + ", a git directory"
	case c.home != "" && within(c.home, d):
		return "writes below " + d + ", which holds your home directory and its start-up files"
	}
	if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil && fi != nil {
		return "writes everything below " + d + ", which holds the git directory " + filepath.Join(d, ".git")
	}
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		if ents, err := os.ReadDir(d); err == nil {
			for _, e := range ents {
				if e.IsDir() && isGitDir(filepath.Join(d, e.Name())) {
					return "writes everything below " + d + ", which holds the git directory " + filepath.Join(d, e.Name())
				}
			}
		}
	}
	return ""
}

// linkOut returns the first symlink below dir whose target leaves the
// workspace and the added directories, or "" (a walk bounded like
// holdsMatch's; a tree too large to walk counts as leading out).
func (c *Checker) linkOut(dir string) string {
	found, seen := "", 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		seen++
		if seen > maxRuleWalk {
			found = dir
			return fs.SkipAll
		}
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if real := physicalPath(p); !c.inside(access{path: real, real: real}) {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// linkTarget is where the link linkOut found leads.
func (c *Checker) linkTarget(dir string) string {
	if l := c.linkOut(dir); l != "" {
		if t := physicalPath(l); t != "" {
			return t
		}
	}
	return dir
}

// gitConfigWrite returns the configuration file a git command writes with
// values nova cannot vet (git config KEY VALUE, git remote add, git
// submodule ...), or "": a remote's URL or a key can make a later git run
// a program (ext:: URLs, core.fsmonitor).
func (c *Checker) gitConfigWrite(sc *simpleCmd) string {
	args := sc.argv
	norm, ok := stripGlobalOptions(args)
	if !ok {
		norm = args
	}
	if len(norm) < 2 || norm[1].dyn {
		return ""
	}
	sub, rest := norm[1].val, norm[2:]
	repo := sc.cwd
	for i := 1; i+1 < len(args); i++ {
		if args[i].val == "-C" && !args[i+1].dyn {
			repo = resolvePath(args[i+1].val, sc.cwd, c.home)
		}
	}
	local := func() string {
		if g := findGitDir(physicalPath(repo)); g != "" {
			return filepath.Join(g, "config")
		}
		return filepath.Join(repo, ".git", "config")
	}
	switch sub {
	case "config":
		inv := c.gitInvocation(args[1:])
		if inv == nil || inv.effect == "" && inv.unknown == "" {
			return "" // a read
		}
		for i, a := range rest {
			switch {
			case a.val == "--global":
				return filepath.Join(c.home, ".gitconfig")
			case a.val == "--system":
				return "/etc/gitconfig"
			case (a.val == "--file" || a.val == "-f") && i+1 < len(rest):
				return resolvePath(rest[i+1].val, sc.cwd, c.home)
			case strings.HasPrefix(a.val, "--file="):
				return resolvePath(strings.TrimPrefix(a.val, "--file="), sc.cwd, c.home)
			}
		}
		return local()
	case "remote":
		if len(rest) > 0 && !strings.HasPrefix(rest[0].val, "-") && rest[0].val != "get-url" && rest[0].val != "show" {
			return local()
		}
	case "submodule":
		if len(rest) > 0 && rest[0].val != "status" && rest[0].val != "summary" {
			return local()
		}
	}
	return ""
}

// maxRuleWalk bounds the directory entries holdsMatch looks at; a bigger
// tree is assumed to hold a match.
const maxRuleWalk = 20000

// holdsMatch reports whether the directory a recursive read starts from
// holds a file rule r matches (or might: the walk gave up).
func (c *Checker) holdsMatch(r Rule, acc access) bool {
	root := acc.real
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return r.matchPath(root, c.home) || err != nil && !errors.Is(err, fs.ErrNotExist)
	}
	seen := 0
	found := false
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		seen++
		if seen > maxRuleWalk {
			found = true
			return fs.SkipAll
		}
		if err != nil {
			return nil
		}
		if r.matchPath(p, c.home) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found || err != nil
}
