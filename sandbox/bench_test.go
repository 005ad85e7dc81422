//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// benchRepo is a workspace holding a git repository as git init makes it
// (hooks samples, config), with a home of its own.
func benchRepo(b *testing.B) (ws, home string) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	ws, home = b.TempDir(), b.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	home, _ = filepath.EvalSymlinks(home)
	cmd := exec.Command("git", "init", "-q", ws)
	cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	return ws, home
}

// BenchmarkPlanGit is what each sandboxed command spends finding the git
// metadata it has to protect, in a fresh repository.
func BenchmarkPlanGit(b *testing.B) {
	ws, home := benchRepo(b)
	for b.Loop() {
		planGit([]string{ws}, home)
	}
}

// BenchmarkBashSandboxed runs `true` confined by bwrap, as the Bash tool
// does; BenchmarkBashUnsandboxed runs it plainly. The difference is the
// sandbox's cost per call.
func BenchmarkBashSandboxed(b *testing.B) {
	ws, home := benchRepo(b)
	sb := realSandbox(b, Config{Workspace: ws, Home: home})
	for b.Loop() {
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Dir = ws
		release, err := sb.Confine(cmd)
		if err != nil {
			b.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		release()
	}
}

// BenchmarkBashUnsandboxed is BenchmarkBashSandboxed without the sandbox.
func BenchmarkBashUnsandboxed(b *testing.B) {
	ws, _ := benchRepo(b)
	for b.Loop() {
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkConfine is the parent's side of BenchmarkBashSandboxed alone:
// planning the mounts and writing bwrap's arguments, no process started.
func BenchmarkConfine(b *testing.B) {
	ws, home := benchRepo(b)
	sb := realSandbox(b, Config{Workspace: ws, Home: home})
	for b.Loop() {
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Dir = ws
		release, err := sb.Confine(cmd)
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}
