//go:build unix

package session

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestCreateHelperProcess is not a test: it is a process whose files may
// not grow beyond NOVA_CREATE_LIMIT bytes (RLIMIT_FSIZE), run by re-executing
// the test binary, so that Create meets a write that really fails, at the
// point the limit chooses, without privileges or a full disk.
func TestCreateHelperProcess(t *testing.T) {
	t.Parallel()
	limit := os.Getenv("NOVA_CREATE_LIMIT")
	if limit == "" {
		t.Skip("helper process only")
	}
	if n, err := strconv.ParseUint(limit, 10, 64); err == nil {
		// Past the limit a write fails with EFBIG instead of killing the
		// process with SIGXFSZ.
		signal.Ignore(syscall.SIGXFSZ)
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &rl); err != nil {
			fmt.Println("error: getrlimit:", err)
			os.Exit(2)
		}
		rl.Cur = n
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &rl); err != nil {
			fmt.Println("error: setrlimit:", err)
			os.Exit(2)
		}
	}
	s, err := NewStore(os.Getenv("NOVA_HOME")).Create(Meta{WorkspaceDir: "/ws", AgentKey: "main", Model: "claude-test"})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("created", s.ID())
	s.Close()
	os.Exit(0)
}

// createWithLimit runs Create in a helper process whose files may hold at
// most limit bytes ("none": no limit) and returns what it printed.
func createWithLimit(t *testing.T, home, limit string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCreateHelperProcess$")
	cmd.Env = append(os.Environ(), "NOVA_CREATE_LIMIT="+limit, "NOVA_HOME="+home)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
		t.Skipf("cannot limit file sizes here: %s", out)
	}
	return strings.TrimSpace(string(out)), err == nil
}

// TestCreateLeavesNothingHalfMade fails Create's writes at its steps (the
// lock's pid, the transcript's first record) and checks that no session
// directory, whole or partial, is left behind.
func TestCreateLeavesNothingHalfMade(t *testing.T) {
	t.Parallel()
	// Control: without a limit the helper makes a whole session.
	home := t.TempDir()
	out, ok := createWithLimit(t, home, "none")
	if !ok || !strings.HasPrefix(out, "created ") {
		t.Fatalf("without a limit: %s", out)
	}
	dir := filepath.Join(home, "sessions", strings.TrimPrefix(out, "created "))
	for _, name := range []string{transcriptFile, metaFile, lockFile, spillDir} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("the control session lacks %s: %v", name, err)
		}
	}

	limits := []struct{ name, limit string }{
		{"lock", "0"},        // the lock file's pid is the first write
		{"transcript", "16"}, // the pid fits, the first record does not
	}
	for _, l := range limits {
		t.Run(l.name, func(t *testing.T) {
			home := t.TempDir()
			out, ok := createWithLimit(t, home, l.limit)
			if ok || !strings.Contains(out, "file too large") {
				t.Fatalf("Create with files limited to %s bytes: %s; want the write's failure", l.limit, out)
			}
			entries, err := os.ReadDir(filepath.Join(home, "sessions"))
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("left in sessions/: %s", e.Name())
			}
		})
	}
}
