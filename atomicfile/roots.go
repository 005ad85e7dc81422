//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxHops bounds the symbolic links one call resolves, as the kernel's
// MAXSYMLINKS does; a path that keeps changing under the call ends there too.
const maxHops = 40

// ErrEscape is wrapped by the error of a confined call refused because a
// symbolic link on its path leads outside the roots, or appeared on a path
// that had none. Nothing was written.
var ErrEscape = errors.New("a link on the path leads outside the allowed directories")

// Roots are the directories that confined calls (Roots.WriteFile,
// Roots.Remove, Roots.ReadFile) stay inside: a workspace and the
// directories added to it.
//
// The permission check and the write each resolve a path, at different
// times; whatever swaps a directory for a symbolic link in between must not
// carry the write elsewhere. So a path inside a root is reached from an open
// descriptor of the root with openat2(RESOLVE_BENEATH), or one O_NOFOLLOW
// openat per component where openat2 is missing, and the file is created
// and renamed relative to the descriptor of its directory: no later step
// looks the path up again.
type Roots struct {
	dirs []rootDir
	// approved are files outside every root that a link inside may lead
	// to: the person approved writing exactly there.
	approved map[string]bool
	// walkOnly skips openat2, so tests run the component walk that stands
	// in for it on old kernels and macOS.
	walkOnly bool
}

// rootDir is a root as configured and as its symlinks resolve.
type rootDir struct {
	given, resolved string
}

// NewRoots returns the roots dirs, each also known by its real path, which
// is resolved now. Empty names are skipped.
func NewRoots(dirs ...string) Roots {
	var r Roots
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		resolved := d
		if p, err := filepath.EvalSymlinks(d); err == nil {
			resolved = p
		}
		r.dirs = append(r.dirs, rootDir{given: d, resolved: resolved})
	}
	return r
}

// Approving returns a copy of r that also lets a link inside a root lead
// to exactly the files targets (absolute, symlinks resolved): files
// outside that the permission check judged and a person approved.
func (r Roots) Approving(targets ...string) Roots {
	r.approved = make(map[string]bool, len(targets))
	for _, t := range targets {
		r.approved[filepath.Clean(t)] = true
	}
	return r
}

// escapes reports whether following a link from a root to target leaves
// the roots for somewhere nobody approved.
func (r Roots) escapes(target string, file bool) bool {
	return !r.contains(target) && !(file && r.approved[filepath.Clean(target)])
}

// Options say how Roots.WriteFile treats the file it writes.
type Options struct {
	// Perm is the mode of a new file, and of a replaced one unless
	// KeepMode is set.
	Perm os.FileMode
	// KeepMode keeps the permission bits of a file being replaced and
	// refuses one without owner write permission: someone protected it.
	KeepMode bool
	// MkdirAll creates missing parent directories (mode 0755, less the
	// umask), each under the same rules as the file.
	MkdirAll bool
}

// WriteFile writes data to path as Write does (a synced temporary file
// renamed over it), without letting a symbolic link carry the write out of
// place:
//
//   - A path inside a root must stay inside the roots. Links on the way may
//     lead elsewhere in them; one leading out fails the call with an error
//     wrapping ErrEscape, and nothing is written anywhere.
//   - A path outside every root (a write someone approved) is resolved to
//     its real path now and then reached with no link in any component;
//     one that appears in between fails the call the same way.
//   - When path itself is a symbolic link the file it points to is written,
//     and the link stays; that file must be inside the roots too, unless
//     path was outside them. Its missing directories are not created.
func (r Roots) WriteFile(path string, data []byte, opt Options) error {
	path = absClean(path)
	s, st, err := r.reach(path, opt.MkdirAll, true)
	if err != nil {
		return wrapErr("write", path, err)
	}
	defer unix.Close(s.fd)
	perm := opt.Perm
	if st != nil {
		mode := uint32(st.Mode)
		if mode&unix.S_IFMT == unix.S_IFDIR {
			return fmt.Errorf("%s is a directory, not a file", path)
		}
		if opt.KeepMode {
			perm = os.FileMode(mode & 0o777)
			if perm&0o200 == 0 {
				return fmt.Errorf("%s is read-only (mode %04o); it was not changed", path, perm)
			}
		}
	}
	if err := writeAt(s.fd, s.name, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Remove removes the file at path, or the symbolic link if path is one,
// under the rules of WriteFile: unlinkat in the directory reached.
func (r Roots) Remove(path string) error {
	path = absClean(path)
	s, _, err := r.reach(path, false, false)
	if err != nil {
		return wrapErr("remove", path, err)
	}
	defer unix.Close(s.fd)
	if err := unix.Unlinkat(s.fd, s.name, 0); err != nil {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// ReadFile returns the content and permission bits of the file at path,
// reached under the rules of WriteFile, so that what a caller saves to
// restore later is the file a write there would replace.
func (r Roots) ReadFile(path string) ([]byte, os.FileMode, error) {
	path = absClean(path)
	s, _, err := r.reach(path, false, true)
	if err != nil {
		return nil, 0, wrapErr("read", path, err)
	}
	defer unix.Close(s.fd)
	// O_NONBLOCK: a FIFO put in the file's place must not hang the call.
	fd, err := unix.Openat(s.fd, s.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, &os.PathError{Op: "read", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	return data, st.Mode().Perm(), nil
}

// spot is where a path leads: an open directory and a name in it.
type spot struct {
	fd   int
	dir  string // the directory's real path; "" when openat2 may have crossed links to reach it
	name string
}

// reach opens the directory path's file is in, following links as
// WriteFile describes (the final one only with follow), and returns it with
// the file's lstat, nil when there is no file.
func (r Roots) reach(path string, mkdir, follow bool) (spot, *unix.Stat_t, error) {
	confined := r.contains(path)
	slow := false
	for range maxHops {
		s, next, err := r.locate(path, mkdir, slow)
		if err != nil {
			return spot{}, nil, err
		}
		if next != "" {
			if confined && !r.contains(next) {
				return spot{}, nil, &escapeError{path: path, target: next}
			}
			path = next
			continue
		}
		var st unix.Stat_t
		err = unix.Fstatat(s.fd, s.name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.ENOENT) {
			return s, nil, nil
		}
		if err != nil {
			unix.Close(s.fd)
			return spot{}, nil, err
		}
		if !follow || uint32(st.Mode)&unix.S_IFMT != unix.S_IFLNK {
			return s, &st, nil
		}
		if s.dir == "" {
			// A relative link is read from the directory's real path, which
			// only the walk knows.
			unix.Close(s.fd)
			slow = true
			continue
		}
		target, err := readlinkat(s.fd, s.name)
		unix.Close(s.fd)
		if errors.Is(err, unix.EINVAL) {
			continue // no longer a link: look again
		}
		if err != nil {
			return spot{}, nil, err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(s.dir, target)
		}
		if confined && r.escapes(target, true) {
			return spot{}, nil, &escapeError{path: path, target: target, file: true}
		}
		path, mkdir, slow = target, false, false
	}
	return spot{}, nil, unix.ELOOP
}

// locate opens the directory of path, or says where a link on the way
// leads (next) for reach to judge. Inside a root it crosses no link (the
// walk) or only links that stay in the root (openat2). Outside every root
// it resolves the directory's real path now and then crosses no link.
func (r Roots) locate(path string, mkdir, slow bool) (s spot, next string, err error) {
	if path == "/" {
		return spot{}, "", fmt.Errorf("/ is a directory, not a file")
	}
	name := filepath.Base(path)
	root, rel, ok := r.root(path)
	if !ok {
		dir := realPath(filepath.Dir(path))
		fd, err := openNoLinks(dir, mkdir, r.walkOnly)
		if err != nil {
			return spot{}, "", err
		}
		return spot{fd: fd, dir: dir, name: name}, "", nil
	}
	if rel == "." {
		return spot{}, "", fmt.Errorf("%s is a directory, not a file", path)
	}
	rootFD, err := openNoLinks(root, false, r.walkOnly)
	if err != nil {
		return spot{}, "", err
	}
	defer unix.Close(rootFD)
	relDir := filepath.Dir(rel)
	if !slow && !r.walkOnly {
		// Any failure (no openat2, a link to judge, a missing directory to
		// create, a concurrent rename) is left to the walk, which says
		// exactly what it met.
		if fd, err := openat2(rootFD, relDir, resolveBeneath); err == nil {
			return spot{fd: fd, name: name}, "", nil
		}
	}
	fd, dir, next, err := walk(rootFD, root, relDir, mkdir)
	if err != nil {
		return spot{}, "", err
	}
	if next != "" {
		return spot{}, filepath.Join(next, name), nil
	}
	return spot{fd: fd, dir: dir, name: name}, "", nil
}

// root returns the real path of the widest root path lies in (as the root
// was given or as it resolves) and path relative to it.
func (r Roots) root(path string) (top, rel string, ok bool) {
	for _, d := range r.dirs {
		for _, base := range []string{d.given, d.resolved} {
			if rl, in := under(path, base); in && (!ok || len(d.resolved) < len(top)) {
				top, rel, ok = d.resolved, rl, true
			}
		}
	}
	return top, rel, ok
}

// contains reports whether path lies in a root, by its spelling.
func (r Roots) contains(path string) bool {
	_, _, ok := r.root(path)
	return ok
}

// under returns path relative to base when path is base or below it.
func under(path, base string) (string, bool) {
	switch {
	case path == base:
		return ".", true
	case base == "/":
		return path[1:], true
	case strings.HasPrefix(path, base+"/"):
		return path[len(base)+1:], true
	}
	return "", false
}

// walk opens rel (clean, relative) below top, open as topFD, by one
// O_NOFOLLOW openat per component, creating missing ones when mkdir is set.
// It crosses no link: at the first one it returns where the link leads,
// joined with the rest of rel, as next. A component that changes while it
// is looked at makes next the path again, to be looked at anew.
func walk(topFD int, top, rel string, mkdir bool) (fd int, dir, next string, err error) {
	cur, err := unix.FcntlInt(uintptr(topFD), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, "", "", err
	}
	dir = top
	if rel == "." {
		return cur, dir, "", nil
	}
	comps := strings.Split(rel, "/")
	for i, c := range comps {
		fd, err := unix.Openat(cur, c, dirFlags|unix.O_NOFOLLOW, 0)
		if errors.Is(err, unix.ENOENT) && mkdir {
			if err = unix.Mkdirat(cur, c, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				fd, err = unix.Openat(cur, c, dirFlags|unix.O_NOFOLLOW, 0)
			}
		}
		if isLinkErr(err) {
			rest := filepath.Join(comps[i+1:]...)
			target, lerr := readlinkat(cur, c)
			switch {
			case lerr == nil:
				unix.Close(cur)
				if !filepath.IsAbs(target) {
					target = filepath.Join(dir, target)
				}
				return -1, "", filepath.Join(target, rest), nil
			case !errors.Is(err, unix.ENOTDIR) || !errors.Is(lerr, unix.EINVAL):
				// It was a link a moment ago, or went away: look again.
				unix.Close(cur)
				return -1, "", filepath.Join(dir, c, rest), nil
			}
			// Not a link: a file where a directory should be; say so below.
		}
		if err != nil {
			unix.Close(cur)
			return -1, "", "", &os.PathError{Op: "open", Path: filepath.Join(dir, c), Err: err}
		}
		unix.Close(cur)
		cur, dir = fd, filepath.Join(dir, c)
	}
	return cur, dir, "", nil
}

// isLinkErr reports whether an O_NOFOLLOW|O_DIRECTORY open may have failed
// on a symbolic link: ELOOP (Linux, macOS), EMLINK (FreeBSD), ENOTDIR
// (Linux with O_PATH, which opens the link and then finds no directory).
func isLinkErr(err error) bool {
	return errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) || errors.Is(err, unix.ENOTDIR)
}

// openNoLinks opens the directory at the absolute path abs with no
// symbolic link in any component, creating missing ones when mkdir is set.
func openNoLinks(abs string, mkdir, walkOnly bool) (int, error) {
	if !walkOnly {
		if fd, err := openat2(unix.AT_FDCWD, abs, resolveNoSymlinks); err == nil {
			return fd, nil
		}
	}
	top, err := unix.Open("/", dirFlags, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: "/", Err: err}
	}
	defer unix.Close(top)
	rel := strings.TrimPrefix(abs, "/")
	if rel == "" {
		rel = "."
	}
	fd, _, next, err := walk(top, "/", rel, mkdir)
	if err != nil {
		return -1, err
	}
	if next != "" {
		return -1, &escapeError{path: abs, target: next, outside: true}
	}
	return fd, nil
}

// realPath resolves the symlinks of the longest existing prefix of p.
func realPath(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if parent := filepath.Dir(dir); parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// readlinkat returns the target of the link name in dirfd.
func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; size <= 1<<16; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
	return "", unix.ENAMETOOLONG
}

// writeAt writes data to a new temporary file in dirfd, syncs it and
// renames it over name, all relative to dirfd.
func writeAt(dirfd int, name string, data []byte, perm os.FileMode) error {
	var tmp string
	fd := -1
	var err error
	for range 100 {
		tmp = "." + name + ".tmp-" + strconv.FormatUint(uint64(rand.Uint32()), 10)
		fd, err = unix.Openat(dirfd, tmp, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if !errors.Is(err, unix.EEXIST) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("create a temporary file: %w", err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	done := false
	defer func() {
		if !done {
			unix.Unlinkat(dirfd, tmp, 0)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := unix.Renameat(dirfd, tmp, dirfd, name); err != nil {
		return fmt.Errorf("rename %s over %s: %w", tmp, name, err)
	}
	done = true
	return nil
}

// escapeError is a call refused because of a link on its path.
type escapeError struct {
	path    string // what the call named, as far as it had got
	target  string // where the link leads
	file    bool   // the link is the file itself, not a directory on the way
	outside bool   // path is outside every root, so no link was allowed
}

func (e *escapeError) Error() string {
	switch {
	case e.outside:
		return fmt.Sprintf("%s changed while it was being written (a directory in its path became a link, to %s); nothing was written", e.path, e.target)
	case e.file:
		return fmt.Sprintf("%s is a link to %s, outside the workspace; nothing was written. To change that file, name its own path (a write outside the workspace is asked first)", e.path, e.target)
	}
	return fmt.Sprintf("%s changed while it was being written (a directory in its path became a link outside the workspace); nothing was written. The path now leads to %s", e.path, e.target)
}

func (e *escapeError) Is(target error) bool { return target == ErrEscape }

// wrapErr gives err the operation and path, unless it already names them.
func wrapErr(op, path string, err error) error {
	var esc *escapeError
	if errors.As(err, &esc) {
		esc.path = path
		return esc
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %w", op, path, err)
	}
	return &os.PathError{Op: op, Path: path, Err: err}
}

// absClean makes path absolute and clean.
func absClean(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}
