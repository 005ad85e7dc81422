package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// inBwrap runs script with sh inside bwrap, the rest of the file system as
// it is, after mounts (bwrap options that put a file system over a path).
// bwrap makes a file system that is really full, or really read-only,
// without privileges: a tiny tmpfs in a user namespace. The test is
// skipped where bwrap cannot make one.
func (e *e2e) inBwrap(mounts []string, script string) runResult {
	e.t.Helper()
	if goruntime.GOOS != "linux" {
		e.t.Skip("a full disk is made with bwrap, on Linux")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		e.t.Skip("bwrap not installed")
	}
	if out, err := exec.Command("bwrap", "--dev-bind", "/", "/", "--size", "4096", "--tmpfs", e.home, "true").CombinedOutput(); err != nil {
		e.t.Skipf("bwrap cannot mount a tmpfs here: %v: %s", err, out)
	}
	args := append([]string{"--dev-bind", "/", "/"}, mounts...)
	cmd := exec.Command("bwrap", append(args, "sh", "-c", script)...)
	cmd.Dir = e.ws
	cmd.Env = append(e.env, "NOVA="+novaBin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("bwrap: %v", err)
	}
	return runResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

// leftScript runs nova, then lists what NOVA_HOME holds (but the filler)
// into left, outside the mount that vanishes with bwrap.
func leftScript(left string, fill bool) string {
	s := ""
	if fill {
		s = `dd if=/dev/zero of="$NOVA_HOME/fill" bs=4096 2>/dev/null; `
	}
	return s + fmt.Sprintf(`"$NOVA" -p --no-sandbox hello; code=$?; find "$NOVA_HOME" -mindepth 1 ! -name fill > %q; exit $code`, left)
}

func TestE2EStartOnFullDisk(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "hi"}, llmtest.Turn{Text: "hi"})
	novaHome := filepath.Join(e.home, ".nova")
	left := filepath.Join(e.ws, "left")
	tmpfs := []string{"--size", "65536", "--tmpfs", novaHome}

	// Control: the same small file system, not full, holds a session.
	r := e.inBwrap(tmpfs, leftScript(left, false))
	if r.code != 0 || r.stdout != "hi\n" {
		t.Fatalf("control: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if l := e.read("left"); !strings.Contains(l, "/sessions/") || !strings.Contains(l, "transcript.jsonl") {
		t.Fatalf("control: NOVA_HOME holds %s, want a session", l)
	}

	r = e.inBwrap(tmpfs, leftScript(left, true))
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (a failure, not a usage error): %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "--help") {
		t.Errorf("a full disk is reported as a usage error: %s", r.stderr)
	}
	if !strings.Contains(r.stderr, "full") || !strings.Contains(r.stderr, filepath.Join(novaHome, "sessions")) {
		t.Errorf("stderr = %q: want what is full and where", r.stderr)
	}
	for _, p := range strings.Fields(e.read("left")) {
		if rel, _ := filepath.Rel(novaHome, p); rel != "sessions" && rel != "tmp" {
			t.Errorf("left in NOVA_HOME: %s", rel)
		}
	}
}

func TestE2EStartOnReadOnlyHome(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "hi"})
	novaHome := filepath.Join(e.home, ".nova")
	if err := os.MkdirAll(novaHome, 0o700); err != nil {
		t.Fatal(err)
	}
	r := e.inBwrap([]string{"--ro-bind", novaHome, novaHome}, `exec "$NOVA" -p --no-sandbox hello`)
	if r.code != 1 || strings.Contains(r.stderr, "--help") {
		t.Errorf("exit %d, want 1 and no usage hint: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "read-only") || !strings.Contains(r.stderr, novaHome) {
		t.Errorf("stderr = %q: want what is read-only and where", r.stderr)
	}
}
