package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEnvironmentContextRunsNoRepositoryCode opens a repository whose own
// config names programs (core.fsmonitor, a post-index-change hook, a
// clean filter): reading its branch and status for the context message
// must run none of them.
func TestEnvironmentContextRunsNoRepositoryCode(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	sentinel := filepath.Join(t.TempDir(), "ran")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	script := filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+sentinel+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("-c", "user.name=t", "-c", "user.email=t@t", "add", "a.txt")
	run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--no-verify", "-m", "x")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "post-index-change"), []byte("#!/bin/sh\ntouch "+sentinel+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run("config", "core.fsmonitor", script)
	msg := EnvironmentContext(context.Background(), dir, time.Now())
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatalf("the repository's fsmonitor or hook ran; context:\n%s", msg)
	}
	if !strings.Contains(msg, "Git branch: main") || !strings.Contains(msg, "a.txt") {
		t.Errorf("positive control: branch and status missing:\n%s", msg)
	}
	// A filter driver runs on status; the status is left out instead.
	run("config", "filter.x.clean", script)
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg = EnvironmentContext(context.Background(), dir, time.Now())
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatalf("the repository's filter ran; context:\n%s", msg)
	}
	if !strings.Contains(msg, "not shown") {
		t.Errorf("status with a filter driver:\n%s", msg)
	}
}
