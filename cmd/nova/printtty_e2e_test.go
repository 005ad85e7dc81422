package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestPrintNoPromptOnTerminal: nova -p with no prompt and a terminal on
// stdin used to sit waiting for ctrl+d; it now says why at once and exits
// 2, before building anything (the fake provider is never asked).
func TestPrintNoPromptOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	e := newE2E(t)
	socket := fmt.Sprintf("nova-e2e-p-%d-%d", os.Getpid(), time.Now().UnixNano())
	tm := &tmuxTerm{t: t, socket: socket, name: "nova"}
	// The shell keeps the pane after nova exits and prints its exit code;
	// nova's stdin is the pane's terminal.
	script := fmt.Sprintf("%s -p; echo EXIT=$?; exec sleep 60", novaBin)
	args := []string{"-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "20", "-s", tm.name, "-c", e.ws}
	for _, kv := range append(e.env, "TERM=xterm-256color") {
		args = append(args, "-e", kv)
	}
	args = append(args, "sh", "-c", script)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
	screen := tm.waitFor("EXIT=")
	if !strings.Contains(screen, "EXIT=2") {
		t.Errorf("exit code is not 2:\n%s", screen)
	}
	if !strings.Contains(strings.Join(strings.Fields(screen), " "), "no prompt: print mode needs one as an argument") {
		t.Errorf("no clear message:\n%s", screen)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("the provider got %d requests", n)
	}
}
