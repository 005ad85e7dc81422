package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repoWithoutCommondir makes a workspace holding a .git directory and
// returns the workspace and where its commondir would be.
func repoWithoutCommondir(t *testing.T) (ws, commondir string) {
	t.Helper()
	ws = realTempDir(t)
	mkdir(t, ws, ".git", "hooks")
	writeFile(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	return ws, filepath.Join(ws, ".git", "commondir")
}

// confineOnly confines a command that is never started and returns its
// release.
func confineOnly(t *testing.T, sb *Sandbox) func() {
	t.Helper()
	release, err := sb.Confine(exec.Command("true"))
	if err != nil {
		t.Fatal(err)
	}
	return release
}

func fakeSandbox(t *testing.T, ws string) *Sandbox {
	t.Helper()
	sb, err := New(Config{Workspace: ws, Home: realTempDir(t), NovaHome: realTempDir(t), Probed: fakeBwrap()})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func assertPlaceholder(t *testing.T, path string, want bool) {
	t.Helper()
	fi, err := os.Lstat(path)
	switch {
	case want && err != nil:
		t.Fatalf("placeholder missing: %v", err)
	case want:
		b, _ := os.ReadFile(path)
		if string(b) != commondirPlaceholder || fi.Mode().Perm() != placeholderMode {
			t.Fatalf("placeholder holds %q, mode %v", b, fi.Mode())
		}
	case !errors.Is(err, os.ErrNotExist):
		t.Fatalf("placeholder still there (%v)", err)
	}
}

// TestPlaceholderShared checks that concurrent commands share one
// placeholder, within a Sandbox and across two, that each Sandbox keeps it
// until Close, and that the last one out (command or Sandbox) removes it.
func TestPlaceholderShared(t *testing.T) {
	t.Parallel()
	ws, path := repoWithoutCommondir(t)
	a, b := fakeSandbox(t, ws), fakeSandbox(t, ws)

	r1 := confineOnly(t, a)
	assertPlaceholder(t, path, true)
	r2 := confineOnly(t, a)
	r3 := confineOnly(t, b) // another Sandbox, as another nova would be
	r1()
	r2()
	assertPlaceholder(t, path, true) // a keeps it, b binds it
	a.Close()
	assertPlaceholder(t, path, true) // b still binds it
	r3()
	assertPlaceholder(t, path, true) // b keeps it
	b.Close()
	assertPlaceholder(t, path, false)

	// And the other way round, with commands outliving their Sandbox's
	// Close.
	a, b = fakeSandbox(t, ws), fakeSandbox(t, ws)
	r3 = confineOnly(t, b)
	r1 = confineOnly(t, a)
	b.Close()
	r3()
	assertPlaceholder(t, path, true)
	a.Close()
	assertPlaceholder(t, path, true) // r1 still binds it
	r1()
	assertPlaceholder(t, path, false)
	// A command confined after Close keeps nothing past its release.
	confineOnly(t, a)()
	assertPlaceholder(t, path, false)
}

// TestPlaceholderStale checks that a placeholder left by a killed nova is
// taken over and removed, and that a real commondir is never touched.
func TestPlaceholderStale(t *testing.T) {
	t.Parallel()
	ws, path := repoWithoutCommondir(t)
	if err := os.WriteFile(path, []byte(commondirPlaceholder), placeholderMode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, placeholderMode); err != nil {
		t.Fatal(err)
	}
	sb := fakeSandbox(t, ws)
	release := confineOnly(t, sb)
	assertPlaceholder(t, path, true)
	release()
	sb.Close()
	assertPlaceholder(t, path, false)

	// The same content with another mode is somebody's file.
	for _, mode := range []os.FileMode{0o644, 0o400} {
		if err := os.WriteFile(path, []byte(commondirPlaceholder), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, mode)
		confineOnly(t, sb)()
		if _, err := os.Stat(path); err != nil {
			t.Errorf("a commondir of mode %v was removed", mode)
		}
		os.Remove(path)
	}
}

// TestPlaceholderLockedElsewhere checks that a placeholder some other
// process keeps locked exclusively stops the command rather than being
// bound without a share in it (its holder could remove it mid-command).
func TestPlaceholderLockedElsewhere(t *testing.T) {
	t.Parallel()
	ws, path := repoWithoutCommondir(t)
	if err := os.WriteFile(path, []byte(commondirPlaceholder), placeholderMode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, placeholderMode)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lockFile(f, true); err != nil {
		t.Skipf("flock: %v", err)
	}
	sb := fakeSandbox(t, ws)
	sb.placeholders.wait = 100 * time.Millisecond
	if _, err := sb.Confine(exec.Command("true")); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("Confine err = %v, want the placeholder locked", err)
	}
	assertPlaceholder(t, path, true)
	// Once the lock is gone, the placeholder is taken over as usual.
	f.Close()
	confineOnly(t, sb)()
	sb.Close()
	assertPlaceholder(t, path, false)
}

// TestPlaceholderConcurrent confines and releases from many goroutines at
// once, one Sandbox closed among them: every command sees the placeholder,
// and none is left once both are closed.
func TestPlaceholderConcurrent(t *testing.T) {
	t.Parallel()
	ws, path := repoWithoutCommondir(t)
	sbs := []*Sandbox{fakeSandbox(t, ws), fakeSandbox(t, ws)}
	errs := make(chan error, 40)
	for i := range 40 {
		go func() {
			if i == 20 {
				sbs[0].Close()
			}
			release, err := sbs[i%2].Confine(exec.Command("true"))
			if err == nil {
				if _, statErr := os.Stat(path); statErr != nil {
					err = statErr
				}
				release()
			}
			errs <- err
		}()
	}
	for range 40 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	assertPlaceholder(t, path, true)
	for _, sb := range sbs {
		sb.Close()
	}
	assertPlaceholder(t, path, false)
}

// TestPlaceholderKeptKilled: what a Sandbox keeps between commands is
// left on the disk when nova is killed (its locks go with the process),
// and the next nova's New sweeps it; while the first nova lives, a second
// one leaves its placeholders alone.
func TestPlaceholderKeptKilled(t *testing.T) {
	t.Parallel()
	ws, path := repoWithoutCommondir(t)
	vscode := filepath.Join(ws, ".vscode")
	a := fakeSandbox(t, ws)
	confineOnly(t, a)()
	fakeSandbox(t, ws) // another nova starting meanwhile
	assertPlaceholder(t, path, true)
	if !isPlaceholderDirPath(vscode) {
		t.Fatal("the .vscode placeholder was swept while in use")
	}
	// Killed: the kernel closes its descriptors, and so drops its locks.
	for _, h := range a.placeholders.held {
		h.f.Close()
	}
	fakeSandbox(t, ws)
	assertPlaceholder(t, path, false)
	if _, err := os.Lstat(vscode); err == nil {
		t.Error("the killed nova's .vscode placeholder was not swept")
	}
}

// TestPlaceholderIdle: kept placeholders go once no command has run for a
// while, not only at Close; one a command binds stays until that command
// is released; the next command makes them again.
func TestPlaceholderIdle(t *testing.T) {
	t.Parallel()
	ws, path := repoWithoutCommondir(t)
	sb := fakeSandbox(t, ws)
	sb.placeholders.idle = time.Millisecond
	gone := func() bool {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
				return true
			}
		}
		return false
	}
	confineOnly(t, sb)()
	if !gone() {
		t.Fatal("the placeholder outlived the idle time")
	}
	release := confineOnly(t, sb)
	assertPlaceholder(t, path, true) // made again
	// Idle, but bound by the command: it stays until the release.
	sb.placeholders.mu.Lock()
	sb.placeholders.unkeepLocked()
	sb.placeholders.mu.Unlock()
	assertPlaceholder(t, path, true)
	release()
	assertPlaceholder(t, path, false)
	sb.Close()
}
