package sandbox

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// resolvePath resolves every symbolic link in the absolute path, as the
// kernel does, and returns the real path, the links met on the way and
// whether the path exists. For a missing path, the existing part is
// resolved and the rest appended.
func resolvePath(path string) (real string, hops []string, exists bool) {
	// Not cleaned first: ".." after a symbolic link is the parent of
	// where the link leads, not of the link.
	parts := strings.Split(path, "/")
	cur := "/"
	for i := 0; i < len(parts); i++ {
		name := parts[i]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{cur}, parts[i:]...)...), hops, false
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		hops = append(hops, next)
		target, err := os.Readlink(next)
		if err != nil || len(hops) > 40 {
			return next, hops, false
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		parts = append(strings.Split(target, "/"), parts[i+1:]...)
		i = -1
	}
	return cur, hops, true
}

// readGitFile returns the git directory a .git file points to.
func readGitFile(path string) (string, bool) {
	data, err := readSmall(path)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return "", false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Dir(path) + "/" + target // resolvePath reads ".." as the kernel does
	}
	return target, true
}

// readGitConfig returns the variables of the config file at path, without
// following its includes; nil when it cannot be read.
func readGitConfig(path string) []gitVar {
	data, err := readSmall(path)
	if err != nil {
		return nil
	}
	return parseGitConfig(data)
}

// readSmall reads a file git treats as a pointer or a config, up to
// gitMaxPointer bytes.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, gitMaxPointer))
}

// isBareRepo reports whether dir is itself a git directory: a HEAD git
// would accept, with objects and refs (what git requires) or a config
// file. A project that merely has a file named HEAD is not one.
func isBareRepo(dir string) bool {
	head, err := readSmall(filepath.Join(dir, "HEAD"))
	if err != nil || !validHead(strings.TrimSpace(string(head))) {
		return false
	}
	if dirExists(filepath.Join(dir, "objects")) && dirExists(filepath.Join(dir, "refs")) {
		return true
	}
	fi, err := os.Lstat(filepath.Join(dir, "config"))
	return err == nil && fi.Mode().IsRegular()
}

// validHead reports whether head is a symbolic ref or an object name.
func validHead(head string) bool {
	if strings.HasPrefix(head, "ref: refs/") {
		return true
	}
	if len(head) != 40 && len(head) != 64 {
		return false
	}
	return strings.Trim(head, "0123456789abcdef") == ""
}

// looksLikeGitDir reports whether a directory under .git/modules is a git
// directory. Any one marker will do: a command could have moved HEAD aside
// and left hooks and config for a later git to find.
func looksLikeGitDir(dir string) bool {
	for _, name := range []string{"HEAD", "config", "hooks", "objects"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// isGitInternal reports whether name is a directory of a git directory
// that never holds another git directory (modules and worktrees are
// walked on their own).
func isGitInternal(name string) bool {
	switch name {
	case "objects", "refs", "logs", "info", "hooks", "modules", "worktrees", "lfs", "branches", "rr-cache":
		return true
	}
	return false
}

func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
