//go:build unix

package permission

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCheckDoesNotWaitOnANamedPipe: a command that runs a named pipe as a
// script is judged without opening it for a writer that never comes (the
// check would hang, and the fuzz seeds with process substitution did); it
// is not allowed.
func TestCheckDoesNotWaitOnANamedPipe(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o755); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	c, err := NewChecker(Config{Workspace: ws, Home: t.TempDir(), Rules: Rules{Allow: []string{"Bash(ls:*)"}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Decision, 1)
	go func() {
		done <- c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: "./pipe", Workdir: ws})
	}()
	select {
	case d := <-done:
		if d.Behavior == Allow {
			t.Errorf("running a named pipe was allowed: %+v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the check waits on the named pipe")
	}
}
