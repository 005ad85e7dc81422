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

// TestEnvironmentContextOneGitProcess: the context message reads branch
// and status with one git process (it was two or three at every start),
// and the branch is right on a repository with commits, one without, and a
// detached HEAD. git is counted through a wrapper first on PATH.
func TestEnvironmentContextOneGitProcess(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	bin := t.TempDir()
	count := filepath.Join(t.TempDir(), "count")
	wrapper := "#!/bin/sh\necho x >>" + count + "\nexec " + realGit + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(realGit, append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	context1 := func(want ...string) {
		t.Helper()
		_ = os.Remove(count)
		msg := EnvironmentContext(context.Background(), dir, time.Now())
		data, _ := os.ReadFile(count)
		if n := strings.Count(string(data), "x"); n != 1 {
			t.Errorf("%d git processes for the context message, want 1:\n%s", n, msg)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("context message lacks %q:\n%s", w, msg)
			}
		}
		if strings.Contains(msg, "## ") {
			t.Errorf("status's branch header leaked into the message:\n%s", msg)
		}
	}

	run("init", "-q", "-b", "trunk")
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	context1("Git branch: trunk\n", "?? new.txt")
	run("add", "new.txt")
	run("commit", "-q", "--no-verify", "-m", "x")
	context1("Git branch: trunk\n", "Git status:\n(clean)\n")
	run("checkout", "-q", "-b", "feature/x")
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	context1("Git branch: feature/x\n", " M new.txt")
	run("checkout", "-q", "--detach")
	context1("Git branch: HEAD\n", " M new.txt")

	outside := t.TempDir()
	_ = os.Remove(count)
	if msg := EnvironmentContext(context.Background(), outside, time.Now()); !strings.Contains(msg, "Git repository: no") && !strings.Contains(msg, "Git branch:") {
		t.Errorf("outside a repository:\n%s", msg)
	}
}

func TestShortStatusBranch(t *testing.T) {
	for head, want := range map[string]string{
		"## main":                            "main",
		"## main...origin/main":              "main",
		"## main...origin/main [ahead 1]":    "main",
		"## feature/x...up/feature/x [gone]": "feature/x",
		"## No commits yet on trunk":         "trunk",
		"## Initial commit on trunk":         "trunk",
		"## HEAD (no branch)":                "HEAD",
	} {
		if got, ok := shortStatusBranch(head); !ok || got != want {
			t.Errorf("shortStatusBranch(%q) = %q, %v; want %q", head, got, ok, want)
		}
	}
	for _, bad := range []string{"", "##", " M a.txt", "## "} {
		if got, ok := shortStatusBranch(bad); ok {
			t.Errorf("shortStatusBranch(%q) = %q, true; want not ok", bad, got)
		}
	}
}
