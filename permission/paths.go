package permission

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Limits of path resolution.
const (
	maxLinks       = 40   // symlinks followed in one path, as the kernel does
	maxGlobMatches = 4096 // matches of one glob checked one by one
)

// access is one path a call reads or writes, as layer 2 sees it.
type access struct {
	shown string // as the command or tool spelled it
	path  string // absolute and cleaned lexically; "" when only known at run time
	real  string // where the kernel would land, symlinks resolved component by component
	write bool
	// tree says the command reads everything below the path (grep -r, rg):
	// deny rules on anything under it count.
	tree bool
	// ruled says a rule allows the command that writes it, so a write
	// inside the workspace needs no question.
	ruled bool
	// follow says a recursive read follows the symlinks it meets.
	follow bool
}

// known reports whether the access's path is known before the command runs.
func (a access) known() bool { return a.path != "" && a.real != "" }

// newAccess resolves p (relative to cwd, ~ for home) the way the kernel
// will: each component in turn, following symlinks as they come, so that
// link/../x is judged where it really lands.
func (c *Checker) newAccess(p, cwd string, write bool) access {
	a := access{shown: p, write: write}
	j := joinPath(p, cwd, c.home)
	if j == "" {
		return a
	}
	a.path = filepath.Clean(j)
	a.real = physicalPath(j)
	return a
}

// wordAccesses returns the accesses a shell word names: one for a literal
// path, one per match for a glob (matched against the filesystem now, as
// the shell will), and an unknown one for a word only known at run time.
func (c *Checker) wordAccesses(w word, cwd string, write bool) []access {
	switch {
	case w.fd:
		return nil // <(...) is a pipe
	case w.dyn:
		return []access{{shown: w.val, write: write}}
	case !w.glob:
		return []access{c.newAccess(w.val, cwd, write)}
	}
	j := joinPath(w.val, cwd, c.home)
	if j == "" {
		return []access{{shown: w.val, write: write}}
	}
	// Bash's [!x] is Go's [^x]; a superset of matches only makes the
	// check stricter.
	matches, err := filepath.Glob(strings.ReplaceAll(j, "[!", "[^"))
	switch {
	case err != nil || len(matches) > maxGlobMatches:
		return []access{{shown: w.val, write: write}}
	case len(matches) == 0:
		return []access{c.newAccess(w.val, cwd, write)} // bash passes the word as it is
	}
	out := make([]access, 0, len(matches))
	for _, m := range matches {
		a := c.newAccess(m, "/", write)
		a.shown = w.val
		out = append(out, a)
	}
	return out
}

// physicalPath resolves the absolute path p component by component, as
// the kernel does: a symlink is replaced by its target before the next
// component (so link/.. is the target's parent), missing components are
// taken as spelled. It returns "" for a symlink loop.
func physicalPath(p string) string {
	rest := strings.Split(p, "/")
	resolved := "/"
	links := 0
	for i := 0; i < len(rest); i++ {
		comp := rest[i]
		switch comp {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, comp)
		if resolved == "/proc" && (comp == "self" || comp == "thread-self" || strings.Trim(comp, "0123456789") == "") {
			// /proc/self is the process that opens it, not nova: its cwd
			// and root are the shell's, which only it knows.
			return ""
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Clean(next + "/" + strings.Join(rest[i+1:], "/"))
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		target, err := os.Readlink(next)
		if err != nil || links > maxLinks {
			return ""
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest[i+1:]...)
		i = -1
	}
	return resolved
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	if p == "" || root == "" {
		return false
	}
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// inside reports whether a is inside the workspace or an added directory,
// judged by where its symlinks lead.
func (c *Checker) inside(a access) bool {
	if !a.known() {
		return false
	}
	for i := range c.roots {
		if within(a.real, c.realRoots[i]) || a.real == a.path && within(a.path, c.roots[i]) {
			return true
		}
	}
	return false
}

// readable reports whether a is a read of a directory nova lets every tool
// read without asking: the session's own spilled results.
func (c *Checker) readable(a access) bool {
	if a.write || !a.known() {
		return false
	}
	for _, d := range c.readDirs {
		if within(a.real, d) {
			return true
		}
	}
	return false
}

// ignoredPath names the device files reads and writes of which are
// harmless: /dev/null, the standard streams, the terminal.
func ignoredPath(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/")
}

// systemPath reports whether a write to p would change the operating
// system itself; such writes are denied.
func systemPath(p string) bool {
	if p == "" || ignoredPath(p) {
		return false
	}
	for _, d := range []string{"/etc", "/usr", "/bin", "/sbin", "/boot", "/lib", "/lib32", "/lib64", "/proc", "/sys", "/dev", "/System", "/private/etc", "/var/lib", "/var/db"} {
		if within(p, d) {
			return true
		}
	}
	return false
}

// sensitive returns why p must never be touched without asking, or "".
// Reads are sensitive only for secrets; writes also for files that run
// code or change nova's own permissions.
func (c *Checker) sensitive(p string, write bool) string {
	if p == "" {
		return ""
	}
	home := c.home
	for _, s := range CredentialPaths(home, c.novaHome) {
		if within(p, s) {
			return p + " holds credentials"
		}
	}
	for _, s := range c.cfg.SensitiveReads {
		if within(p, s) {
			return p + " is a path your settings keep private"
		}
	}
	if !write {
		return ""
	}
	if why := gitMetadataWrite(p); why != "" {
		return why
	}
	if home != "" {
		for _, rc := range shellRCFiles() {
			if within(p, filepath.Join(home, rc)) {
				return p + " is a shell or git start-up file"
			}
		}
	}
	if within(p, filepath.Join(c.novaHome, "settings.json")) || within(p, filepath.Join(c.novaHome, "settings.local.json")) || p == c.novaHome {
		return p + " is nova's own settings"
	}
	if filepath.Base(p) == ".nova" || filepath.Base(filepath.Dir(p)) == ".nova" && strings.HasPrefix(filepath.Base(p), "settings") {
		return p + " holds nova's own settings"
	}
	return ""
}

// gitMetadataWrite returns why a write to p could plant code that git runs
// later, or "": anything in a git directory (.git, a bare repository, a
// submodule's or worktree's git directory) except the data git writes
// while it works — objects, refs, logs, the index and the state files.
func gitMetadataWrite(p string) string {
	if filepath.Base(p) == ".git" {
		return p + " is a git directory or link (it decides which hooks and config git runs)"
	}
	if i := strings.Index(p+"/", "/.git/"); i >= 0 {
		if rel := strings.TrimPrefix(p[i+len("/.git"):], "/"); !gitDataPath(rel) {
			return p + " is git metadata that can make git run code"
		}
		return ""
	}
	for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
		if isGitDir(d) {
			if rel, err := filepath.Rel(d, p); err == nil && !gitDataPath(rel) {
				return p + " is in the git directory " + d + " and can make git run code"
			}
			return ""
		}
	}
	return ""
}

// gitDataPath reports whether rel, relative to a git directory, is data
// git writes as it works, never configuration or hooks.
func gitDataPath(rel string) bool {
	if rel == "" {
		return false
	}
	first, _, nested := strings.Cut(rel, "/")
	if nested {
		switch first {
		case "objects", "refs", "logs", "rebase-merge", "rebase-apply", "sequencer", "lfs":
			return true
		}
		return false
	}
	name := strings.TrimSuffix(first, ".lock")
	switch name {
	case "index", "HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR", "CHERRY_PICK_HEAD",
		"REVERT_HEAD", "REBASE_HEAD", "AUTO_MERGE", "COMMIT_EDITMSG", "TAG_EDITMSG", "EDIT_DESCRIPTION", "packed-refs",
		"shallow", "gc.pid", "gc.log", "description", "objects", "refs", "logs":
		return true
	}
	return strings.HasPrefix(name, "BISECT_")
}

// isGitDir reports whether d is a git directory git would use as one (a
// bare repository, or a git directory outside a .git): HEAD beside objects
// or refs.
func isGitDir(d string) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || fi.IsDir() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// inGitDir reports whether the directory d is inside a git directory,
// where any program's writes can plant hooks or config.
func inGitDir(d string) bool {
	if d == "" {
		return false
	}
	if strings.Contains(d+"/", "/.git/") {
		return true
	}
	for ; d != "/" && d != "."; d = filepath.Dir(d) {
		if isGitDir(d) {
			return true
		}
	}
	return false
}

// shellRCFiles are the start-up files, relative to home, that run code in
// every new shell or git command.
func shellRCFiles() []string {
	return []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".config/fish", ".gitconfig", ".config/git", ".inputrc"}
}

// sensitiveAccess checks both the path as spelled and its target.
func (c *Checker) sensitiveAccess(a access) string {
	if why := c.sensitive(a.path, a.write); why != "" {
		return why
	}
	if a.real != a.path {
		return c.sensitive(a.real, a.write)
	}
	return ""
}

// sensitiveFragments are pieces of paths that, written anywhere in the
// words of a command nova cannot read (a python -c program, a path built
// from variables), may reach a sensitive file.
func sensitiveFragments() []string {
	return []string{".git/", ".ssh", ".gnupg", ".aws/", ".netrc", ".bashrc", ".bash_profile", ".bash_login", ".zshrc", ".zshenv",
		".zprofile", ".profile", ".gitconfig", ".config/git", ".config/fish", ".nova/", ".git-credentials", ".kube/", ".docker/config"}
}

// sensitiveToken finds .git or .nova as a word of its own in program text
// ('.git', ".git/hooks"): not .gitignore, .github, repo.git.
var sensitiveToken = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])\.(git|nova)([^A-Za-z0-9_.-]|$)`)

// sensitiveWord returns why a word of a command whose effects nova cannot
// read may name a sensitive file, or "".
func sensitiveWord(w word) string {
	v := w.val
	if m := sensitiveToken.FindStringSubmatch(v); m != nil {
		return "it names ." + m[2] + " in " + shorten(v)
	}
	for _, f := range sensitiveFragments() {
		if i := strings.Index(v, f); i >= 0 {
			if f == ".git/" && gitDataPath(strings.SplitN(v[i+len(f):], " ", 2)[0]) && !w.dyn {
				continue // .git/objects/..., .git/refs/...
			}
			return "it names " + strings.TrimSuffix(f, "/") + " in " + shorten(v)
		}
	}
	if w.dyn && (strings.HasSuffix(v, ".git") || strings.Contains(v, ".git$") || strings.Contains(v, ".git/$")) {
		return "it builds a path inside .git at run time: " + shorten(v)
	}
	return ""
}

func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
