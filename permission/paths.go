package permission

import (
	"os"
	"path/filepath"
	"strings"
)

// access is one path a call reads or writes, as layer 2 sees it.
type access struct {
	shown string // as the command or tool spelled it
	path  string // absolute and cleaned; "" when only known at run time
	real  string // path with symlinks resolved
	write bool
}

// newAccess resolves p (relative to cwd, ~ for home) and its symlinks.
func (c *Checker) newAccess(p, cwd string, write bool) access {
	a := access{shown: p, write: write}
	a.path = resolvePath(p, cwd, c.home)
	if a.path != "" {
		a.real = realPath(a.path)
	}
	return a
}

// realPath resolves the symlinks of the longest existing prefix of p, so a
// link inside the workspace that points outside is judged by its target.
func realPath(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if _, err := os.Lstat(dir); err == nil {
			// It exists but cannot be resolved (a loop): judge it as spelled.
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
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
	if a.path == "" {
		return false
	}
	for i := range c.roots {
		if within(a.real, c.realRoots[i]) || a.real == a.path && within(a.path, c.roots[i]) {
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
	if ignoredPath(p) {
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
	for _, s := range []string{".ssh", ".gnupg", ".aws", ".netrc", ".docker/config.json", ".kube/config"} {
		if home != "" && within(p, filepath.Join(home, s)) {
			return p + " holds credentials"
		}
	}
	if !write {
		return ""
	}
	if filepath.Base(p) == ".git" {
		return p + " is a git directory (its hooks and config run code)"
	}
	for _, part := range []string{"/.git/hooks", "/.git/config"} {
		if i := strings.Index(p, part); i >= 0 && (len(p) == i+len(part) || p[i+len(part)] == '/') {
			return p + " is git configuration that can run code"
		}
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
