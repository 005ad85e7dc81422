//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// bothPaths runs f with openat2 where the kernel has it and with the
// O_NOFOLLOW walk that stands in for it, so both are tested here.
func bothPaths(t *testing.T, f func(t *testing.T, walkOnly bool)) {
	t.Run("openat2", func(t *testing.T) {
		fd, err := openat2(unix.AT_FDCWD, ".", resolveBeneath)
		if err != nil {
			t.Skipf("no openat2 here (%v); the walk below covers this system", err)
		}
		unix.Close(fd)
		f(t, false)
	})
	t.Run("walk", func(t *testing.T) { f(t, true) })
}

// testRoots returns the roots dirs, forced onto the walk when walkOnly.
func testRoots(walkOnly bool, dirs ...string) Roots {
	r := NewRoots(dirs...)
	r.walkOnly = walkOnly
	return r
}

func mustWrite(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// names lists every entry below dir, relative to it.
func names(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wantEmpty(t *testing.T, dir string) {
	t.Helper()
	if got := names(t, dir); len(got) > 0 {
		t.Errorf("%s should be empty, has %v", dir, got)
	}
}

func wantEscape(t *testing.T, err error, parts ...string) {
	t.Helper()
	if !errors.Is(err, ErrEscape) {
		t.Fatalf("err = %v, want one wrapping ErrEscape", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error lacks %q: %v", p, err)
		}
	}
}

var newFile = Options{Perm: 0o644, KeepMode: true, MkdirAll: true}

func TestRootsWriteInside(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws := t.TempDir()
		r := testRoots(walkOnly, ws)
		p := filepath.Join(ws, "a.txt")
		if err := r.WriteFile(p, []byte("one"), newFile); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteFile(p, []byte("two"), newFile); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, p); got != "two" {
			t.Errorf("content = %q", got)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
			t.Errorf("mode = %v, want 0644", st.Mode().Perm())
		}
		if got := names(t, ws); len(got) != 1 {
			t.Errorf("temporary files left behind: %v", got)
		}
	})
}

func TestRootsWriteMissingParents(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws := t.TempDir()
		r := testRoots(walkOnly, ws)
		p := filepath.Join(ws, "a", "b", "c.txt")
		if err := r.WriteFile(p, []byte("x"), Options{Perm: 0o644}); err == nil {
			t.Fatal("wrote into missing directories without MkdirAll")
		}
		wantEmpty(t, ws)
		if err := r.WriteFile(p, []byte("x"), newFile); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, p); got != "x" {
			t.Errorf("content = %q", got)
		}
		if st, _ := os.Stat(filepath.Join(ws, "a", "b")); !st.IsDir() {
			t.Errorf("a/b is not a directory")
		}
	})
}

func TestRootsWriteKeepsMode(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws := t.TempDir()
		r := testRoots(walkOnly, ws)
		sh := filepath.Join(ws, "run.sh")
		mustWrite(t, sh, "old", 0o750)
		if err := r.WriteFile(sh, []byte("new"), newFile); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(sh); st.Mode().Perm() != 0o750 {
			t.Errorf("mode = %v, want 0750 kept", st.Mode().Perm())
		}
		// Without KeepMode the given mode wins.
		if err := r.WriteFile(sh, []byte("new"), Options{Perm: 0o600}); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(sh); st.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", st.Mode().Perm())
		}
		ro := filepath.Join(ws, "ro.txt")
		mustWrite(t, ro, "protected", 0o444)
		err := r.WriteFile(ro, []byte("changed"), newFile)
		if err == nil || !strings.Contains(err.Error(), "is read-only (mode 0444); it was not changed") {
			t.Errorf("read-only file: err = %v", err)
		}
		if got := readText(t, ro); got != "protected" {
			t.Errorf("read-only file = %q", got)
		}
	})
}

func TestRootsWriteThroughFileLinkInside(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		for _, kind := range []string{"relative", "absolute"} {
			t.Run(kind, func(t *testing.T) {
				ws := t.TempDir()
				r := testRoots(walkOnly, ws)
				target := filepath.Join(ws, "real", "t.txt")
				mustWrite(t, target, "old", 0o640)
				link := filepath.Join(ws, "link.txt")
				if kind == "relative" {
					mustLink(t, "real/t.txt", link)
				} else {
					mustLink(t, target, link)
				}
				if err := r.WriteFile(link, []byte("new"), newFile); err != nil {
					t.Fatal(err)
				}
				if got := readText(t, target); got != "new" {
					t.Errorf("target = %q", got)
				}
				if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
					t.Errorf("target mode = %v, want 0640", st.Mode().Perm())
				}
				if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link was replaced by a file")
				}
			})
		}
	})
}

// A relative link in a directory reached through another link resolves
// from the directory's real path, as the kernel resolves it.
func TestRootsWriteRelativeLinkBehindDirLink(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws := t.TempDir()
		r := testRoots(walkOnly, ws)
		mustWrite(t, filepath.Join(ws, "deep", "dir", "t.txt"), "old", 0o644)
		mustLink(t, "t.txt", filepath.Join(ws, "deep", "dir", "link.txt"))
		mustLink(t, "deep/dir", filepath.Join(ws, "alias"))
		if err := r.WriteFile(filepath.Join(ws, "alias", "link.txt"), []byte("new"), newFile); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, filepath.Join(ws, "deep", "dir", "t.txt")); got != "new" {
			t.Errorf("target = %q", got)
		}
	})
}

func TestRootsDirLinkInsideIsFollowed(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		for _, kind := range []string{"relative", "absolute", "up and back"} {
			t.Run(kind, func(t *testing.T) {
				ws := t.TempDir()
				r := testRoots(walkOnly, ws)
				real := filepath.Join(ws, "real")
				if err := os.Mkdir(real, 0o755); err != nil {
					t.Fatal(err)
				}
				link := map[string]string{"relative": "real", "absolute": real, "up and back": "../" + filepath.Base(ws) + "/real"}[kind]
				mustLink(t, link, filepath.Join(ws, "alias"))
				if err := r.WriteFile(filepath.Join(ws, "alias", "f.txt"), []byte("x"), newFile); err != nil {
					t.Fatal(err)
				}
				if got := readText(t, filepath.Join(real, "f.txt")); got != "x" {
					t.Errorf("file = %q", got)
				}
			})
		}
	})
}

func TestRootsLinkIntoAnotherRoot(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws, extra := t.TempDir(), t.TempDir()
		r := testRoots(walkOnly, ws, extra)
		mustLink(t, extra, filepath.Join(ws, "extra"))
		if err := r.WriteFile(filepath.Join(ws, "extra", "sub", "f.txt"), []byte("x"), newFile); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, filepath.Join(extra, "sub", "f.txt")); got != "x" {
			t.Errorf("file = %q", got)
		}
	})
}

func TestRootsDirLinkLeadingOut(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		for _, kind := range []string{"absolute", "relative"} {
			t.Run(kind, func(t *testing.T) {
				ws, home := t.TempDir(), t.TempDir()
				r := testRoots(walkOnly, ws)
				link := home
				if kind == "relative" {
					rel, err := filepath.Rel(ws, home)
					if err != nil {
						t.Fatal(err)
					}
					link = rel
				}
				mustLink(t, link, filepath.Join(ws, "sub"))
				p := filepath.Join(ws, "sub", "f.txt")
				err := r.WriteFile(p, []byte("x"), newFile)
				wantEscape(t, err, p+" changed while it was being written (a directory in its path became a link outside the workspace); nothing was written")
				_, _, err = r.ReadFile(p)
				wantEscape(t, err)
				// A deeper missing directory is not created out there either.
				err = r.WriteFile(filepath.Join(ws, "sub", "a", "b", "f.txt"), []byte("x"), newFile)
				wantEscape(t, err)
				wantEmpty(t, home)
			})
		}
	})
}

func TestRootsFileLinkLeadingOut(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws, home := t.TempDir(), t.TempDir()
		r := testRoots(walkOnly, ws)
		secret := filepath.Join(home, ".bashrc")
		mustWrite(t, secret, "mine", 0o644)
		link := filepath.Join(ws, "f.txt")
		mustLink(t, secret, link)
		err := r.WriteFile(link, []byte("evil"), newFile)
		wantEscape(t, err, "is a link to "+secret+", outside the workspace; nothing was written")
		if got := readText(t, secret); got != "mine" {
			t.Errorf("the file outside was changed: %q", got)
		}
		if got := names(t, home); len(got) != 1 {
			t.Errorf("home has %v", got)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced")
		}
	})
}

func TestRootsLinkLoop(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws := t.TempDir()
		r := testRoots(walkOnly, ws)
		mustLink(t, "b", filepath.Join(ws, "a"))
		mustLink(t, "a", filepath.Join(ws, "b"))
		if err := r.WriteFile(filepath.Join(ws, "a", "f.txt"), []byte("x"), newFile); !errors.Is(err, unix.ELOOP) {
			t.Errorf("err = %v, want ELOOP", err)
		}
		if err := r.WriteFile(filepath.Join(ws, "a"), []byte("x"), newFile); !errors.Is(err, unix.ELOOP) {
			t.Errorf("err = %v, want ELOOP", err)
		}
		if got := names(t, ws); len(got) != 2 {
			t.Errorf("workspace has %v", got)
		}
	})
}

func TestRootsRefusesDirectories(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws := t.TempDir()
		r := testRoots(walkOnly, ws)
		if err := os.Mkdir(filepath.Join(ws, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{ws, filepath.Join(ws, "d"), "/"} {
			if err := r.WriteFile(p, []byte("x"), newFile); err == nil || !strings.Contains(err.Error(), "is a directory") {
				t.Errorf("write %s: err = %v", p, err)
			}
		}
		if err := r.WriteFile(filepath.Join(ws, "d", "f"), []byte("x"), newFile); err != nil {
			t.Fatal(err)
		}
		// A file where a directory should be.
		if err := r.WriteFile(filepath.Join(ws, "d", "f", "g"), []byte("x"), newFile); !errors.Is(err, unix.ENOTDIR) {
			t.Errorf("err = %v, want ENOTDIR", err)
		}
	})
}

// A target outside every root is written as the user approved: resolved
// now, with missing directories created; its own symlinks are followed.
func TestRootsWriteOutside(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws, out := t.TempDir(), t.TempDir()
		r := testRoots(walkOnly, ws)
		p := filepath.Join(out, "new", "dir", "f.txt")
		if err := r.WriteFile(p, []byte("x"), newFile); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, p); got != "x" {
			t.Errorf("file = %q", got)
		}
		mustLink(t, filepath.Join(out, "new"), filepath.Join(out, "alias"))
		if err := r.WriteFile(filepath.Join(out, "alias", "dir", "g.txt"), []byte("y"), newFile); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, filepath.Join(out, "new", "dir", "g.txt")); got != "y" {
			t.Errorf("file through the link = %q", got)
		}
		mustWrite(t, filepath.Join(out, "t.txt"), "old", 0o600)
		mustLink(t, "t.txt", filepath.Join(out, "l.txt"))
		if err := r.WriteFile(filepath.Join(out, "l.txt"), []byte("new"), newFile); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, filepath.Join(out, "t.txt")); got != "new" {
			t.Errorf("target = %q", got)
		}
	})
}

// The walk from / crosses no link: one that appears after the path was
// resolved stops the write.
func TestOpenNoLinksRefusesLinks(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		out := t.TempDir()
		if err := os.Mkdir(filepath.Join(out, "real"), 0o755); err != nil {
			t.Fatal(err)
		}
		mustLink(t, filepath.Join(out, "real"), filepath.Join(out, "alias"))
		real, err := filepath.EvalSymlinks(out)
		if err != nil {
			t.Fatal(err)
		}
		_, err = openNoLinks(filepath.Join(real, "alias", "x"), true, walkOnly)
		if walkOnly {
			wantEscape(t, err, "became a link")
		} else if err == nil {
			t.Fatal("opened a path with a link in it")
		}
		if _, err := os.Lstat(filepath.Join(out, "real", "x")); err == nil {
			t.Errorf("a directory was created through the link")
		}
		fd, err := openNoLinks(filepath.Join(real, "real", "x"), true, walkOnly)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
	})
}

// A root given through a link is known by both names.
func TestRootsGivenThroughLink(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		real, other := t.TempDir(), t.TempDir()
		given := filepath.Join(other, "ws")
		mustLink(t, real, given)
		r := testRoots(walkOnly, given)
		for _, p := range []string{filepath.Join(given, "a.txt"), filepath.Join(real, "b.txt")} {
			if err := r.WriteFile(p, []byte("x"), newFile); err != nil {
				t.Fatal(err)
			}
		}
		if got := names(t, real); len(got) != 2 {
			t.Errorf("root has %v", got)
		}
		if !r.contains(filepath.Join(given, "a.txt")) || !r.contains(filepath.Join(real, "b.txt")) || r.contains(filepath.Join(other, "c")) {
			t.Errorf("contains disagrees with the roots")
		}
	})
}

func TestRootsRemove(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws, home := t.TempDir(), t.TempDir()
		r := testRoots(walkOnly, ws)
		f := filepath.Join(ws, "f.txt")
		mustWrite(t, f, "x", 0o644)
		if err := r.Remove(f); err != nil {
			t.Fatal(err)
		}
		if err := r.Remove(f); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("removing a missing file: err = %v", err)
		}
		// A link is removed itself, not its target.
		target := filepath.Join(ws, "t.txt")
		mustWrite(t, target, "keep", 0o644)
		mustLink(t, target, filepath.Join(ws, "l.txt"))
		if err := r.Remove(filepath.Join(ws, "l.txt")); err != nil {
			t.Fatal(err)
		}
		if got := readText(t, target); got != "keep" {
			t.Errorf("target = %q", got)
		}
		// Not through a directory that leads out.
		mustWrite(t, filepath.Join(home, "f.txt"), "mine", 0o644)
		mustLink(t, home, filepath.Join(ws, "sub"))
		wantEscape(t, r.Remove(filepath.Join(ws, "sub", "f.txt")))
		if got := readText(t, filepath.Join(home, "f.txt")); got != "mine" {
			t.Errorf("file outside = %q", got)
		}
	})
}

func TestRootsReadFile(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws := t.TempDir()
		r := testRoots(walkOnly, ws)
		mustWrite(t, filepath.Join(ws, "t.txt"), "content", 0o640)
		mustLink(t, "t.txt", filepath.Join(ws, "l.txt"))
		data, mode, err := r.ReadFile(filepath.Join(ws, "l.txt"))
		if err != nil || string(data) != "content" || mode != 0o640 {
			t.Errorf("ReadFile = %q, %v, %v", data, mode, err)
		}
		if _, _, err := r.ReadFile(filepath.Join(ws, "missing")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing file: err = %v", err)
		}
		// A FIFO in a file's place is refused, not waited on.
		if err := unix.Mkfifo(filepath.Join(ws, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := r.ReadFile(filepath.Join(ws, "fifo")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fifo: err = %v", err)
		}
	})
}

// swapper turns ws/sub back and forth between a real directory and a link
// to target, by renames, as fast as it can, until stopped.
type swapper struct {
	ws, target string
	done       chan struct{}
	wg         sync.WaitGroup
}

func startSwapper(t *testing.T, ws, target string) *swapper {
	t.Helper()
	s := &swapper{ws: ws, target: target, done: make(chan struct{})}
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustLink(t, target, filepath.Join(ws, "lnk"))
	sub, held, lnk := filepath.Join(ws, "sub"), filepath.Join(ws, "held"), filepath.Join(ws, "lnk")
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for n := 0; ; n++ {
			select {
			case <-s.done:
				return
			default:
			}
			os.Rename(sub, held) // the real directory aside
			os.Rename(lnk, sub)  // the link in its place
			os.Rename(sub, lnk)  // and aside again
			if os.Rename(held, sub) != nil {
				// A write made a new sub meanwhile; keep it in the
				// workspace and go on.
				os.Rename(sub, filepath.Join(ws, fmt.Sprintf("extra%d", n)))
				os.Rename(held, sub)
			}
		}
	}()
	return s
}

// stop ends the swapping and leaves ws/sub a real directory.
func (s *swapper) stop(t *testing.T) {
	t.Helper()
	close(s.done)
	s.wg.Wait()
	sub := filepath.Join(s.ws, "sub")
	if st, err := os.Lstat(sub); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if err := os.Remove(sub); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Lstat(filepath.Join(s.ws, "held")); err == nil {
		if _, err := os.Lstat(sub); err == nil {
			if err := os.Rename(sub, filepath.Join(s.ws, "extra-last")); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Rename(filepath.Join(s.ws, "held"), sub); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestRootsSwapRace is the audit's attack: ws/sub flips between a
// directory and a link to home while writes go to ws/sub/f<i>.txt. Nothing
// may ever land in home, whatever the interleaving; each write either lands
// in the workspace or fails. Then, with the swapping stopped, every write
// lands (a confinement that refused everything fails here).
func TestRootsSwapRace(t *testing.T) {
	bothPaths(t, func(t *testing.T, walkOnly bool) {
		ws, home := t.TempDir(), t.TempDir()
		r := testRoots(walkOnly, ws)
		s := startSwapper(t, ws, home)
		const n = 400
		escaped := 0
		landed := map[string]bool{}
		for i := range n {
			name := fmt.Sprintf("f%d.txt", i)
			err := r.WriteFile(filepath.Join(ws, "sub", name), []byte(name), newFile)
			switch {
			case err == nil:
				landed[name] = true
			case errors.Is(err, ErrEscape):
				escaped++
			}
			_ = r.Remove(filepath.Join(ws, "sub", name+".gone")) // removes race too
		}
		s.stop(t)
		wantEmpty(t, home)
		found := map[string]bool{}
		for _, p := range names(t, ws) {
			if b := filepath.Base(p); landed[b] {
				found[b] = true
				if got := readText(t, filepath.Join(ws, p)); got != b {
					t.Errorf("%s = %q", p, got)
				}
			}
		}
		if len(found) != len(landed) {
			t.Errorf("%d writes succeeded but %d of their files are in the workspace", len(landed), len(found))
		}
		t.Logf("under attack: %d of %d writes landed in the workspace, %d refused as escapes", len(landed), n, escaped)

		for i := range 40 {
			p := filepath.Join(ws, "sub", fmt.Sprintf("after%d.txt", i))
			if err := r.WriteFile(p, []byte("ok"), newFile); err != nil {
				t.Fatalf("write with no attack: %v", err)
			}
			if got := readText(t, p); got != "ok" {
				t.Fatalf("%s = %q", p, got)
			}
		}
		wantEmpty(t, home)
	})
}
