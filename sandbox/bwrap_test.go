package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run real commands in real bwrap. They skip, with the probe's
// reason, only where the probe says bwrap cannot run.

// probeOnce probes the machine once for the whole test binary: every trial
// run costs a few bwrap start-ups.
var probeOnce = sync.OnceValue(func() Report { return Probe(context.Background()) })

// realSandbox returns a bwrap Sandbox for cfg, or skips the test.
func realSandbox(t testing.TB, cfg Config) *Sandbox {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("bwrap tests run on Linux")
	}
	r := probeOnce()
	if !r.Works || (!cfg.Network && !r.NetworkIsolation) || (!cfg.AllowUnixSockets && !r.UnixSocketFilter) {
		t.Skip("bwrap cannot run here: " + r.Reason)
	}
	cfg.Probed = &r
	if cfg.NovaHome == "" && cfg.Home != "" {
		cfg.NovaHome = filepath.Join(cfg.Home, ".nova")
	}
	sb, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return sb
}

// run runs argv in the sandbox and returns its combined output.
func run(t *testing.T, sb *Sandbox, workdir string, argv ...string) (string, error) {
	t.Helper()
	return runEnv(t, sb, workdir, nil, argv...)
}

// runEnv is run with the environment env (nil: nova's own).
func runEnv(t *testing.T, sb *Sandbox, workdir string, env []string, argv ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = workdir
	cmd.Env = env
	release, err := sb.Confine(cmd)
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	defer release()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// uniqueName is a name no other test run uses, for paths in the shared /tmp
// and for finding processes.
func uniqueName() string {
	return fmt.Sprintf("nova-sandbox-test-%d-%d", os.Getpid(), time.Now().UnixNano())
}

// outcome is what a write from inside the sandbox should do.
type outcome int

const (
	lands    outcome = iota // succeeds and the file appears on the host
	readOnly                // fails with "Read-only file system"
	private                 // succeeds in the sandbox's private /tmp only
)

func TestBwrapFilesystem(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, home, "proj")
	mkdir(t, ws, ".git", "hooks")
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n")
	mkdir(t, ws, ".nova")
	extra := mkdir(t, root, "extra") // no .git, no .nova
	worktree := mkdir(t, root, "worktree")
	writeFile(t, filepath.Join(worktree, ".git"), "gitdir: /elsewhere\n")
	sb := realSandbox(t, Config{Workspace: ws, AddDirs: []string{extra, worktree}, Home: home})
	etc := filepath.Join("/etc", uniqueName())
	t.Cleanup(func() { os.Remove(etc) })

	// A write outside every writable directory under /tmp lands in the
	// private /tmp; outside /tmp it meets the read-only root.
	outside := lands
	if within(root, "/tmp") {
		outside = private
	} else {
		outside = readOnly
	}
	tests := []struct {
		name, path string
		want       outcome
	}{
		{"workspace", filepath.Join(ws, "out.txt"), lands},
		{"workspace subdir", filepath.Join(mkdir(t, ws, "sub"), "out.txt"), lands},
		{"added dir", filepath.Join(extra, "out.txt"), lands},
		{"git objects", filepath.Join(ws, ".git", "ORIG_HEAD"), lands},
		{"home outside workspace", filepath.Join(home, ".bashrc"), readOnly},
		{"etc", etc, readOnly},
		{"git hooks", filepath.Join(ws, ".git", "hooks", "pre-commit"), readOnly},
		{"git config", filepath.Join(ws, ".git", "config"), readOnly},
		{"git file", filepath.Join(worktree, ".git"), readOnly},
		{"nova settings", filepath.Join(ws, ".nova", "settings.local.json"), readOnly},
		{"missing nova dir", filepath.Join(extra, ".nova", "settings.json"), readOnly},
		{"outside everything", filepath.Join(root, "out.txt"), outside},
	}
	if dir, err := os.MkdirTemp("/var/tmp", "nova-sandbox-test-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(dir) })
		tests = append(tests, struct {
			name, path string
			want       outcome
		}{"outside /tmp", filepath.Join(dir, "out.txt"), readOnly})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, sb, "", "sh", "-c", `echo written > "$1"`, "sh", tt.path)
			onHost := hostHasWrite(tt.path)
			switch tt.want {
			case lands:
				if err != nil || !onHost {
					t.Fatalf("write %s: err %v, on host %v: %s", tt.path, err, onHost, out)
				}
			case private:
				if err != nil || onHost {
					t.Fatalf("write %s: err %v, on host %v (want it only in the private /tmp): %s",
						tt.path, err, onHost, out)
				}
			case readOnly:
				if err == nil || onHost {
					t.Fatalf("write %s succeeded (err %v, on host %v, output %q)", tt.path, err, onHost, out)
				}
				if !strings.Contains(out, "Read-only file system") {
					t.Errorf("write %s failed for the wrong reason: %s", tt.path, out)
				}
			}
		})
	}
}

// TestBwrapGitPinned checks that .git cannot be moved aside to replace the
// read-only hooks and config with writable ones.
func TestBwrapGitPinned(t *testing.T) {
	t.Parallel()
	ws := realTempDir(t)
	mkdir(t, ws, ".git", "hooks")
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n")
	sb := realSandbox(t, Config{Workspace: ws, Home: realTempDir(t)})
	for _, script := range []string{
		`mv .git .git-old && mkdir -p .git/hooks && echo written > .git/hooks/pre-commit`,
		`rm -rf .git; mkdir -p .git/hooks && echo written > .git/hooks/pre-commit`,
		`mv .nova .nova-old; mkdir -p .nova && echo written > .nova/settings.json`,
	} {
		out, err := run(t, sb, "", "sh", "-c", script)
		if err == nil {
			t.Errorf("%s: succeeded: %s", script, out)
		}
	}
	for _, p := range []string{".git/hooks/pre-commit", ".nova/settings.json"} {
		if hostHasWrite(filepath.Join(ws, p)) {
			t.Errorf("%s written on the host", p)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "config")); err != nil {
		t.Errorf(".git/config gone: %v", err)
	}
}

func TestBwrapNoCapabilities(t *testing.T) {
	t.Parallel()
	sb := realSandbox(t, Config{Workspace: realTempDir(t), Home: realTempDir(t)})
	out, err := run(t, sb, "", "cat", "/proc/self/status")
	if err != nil {
		t.Fatalf("cat: %v: %s", err, out)
	}
	// Bounding set aside, every set must be empty, and no_new_privs stops
	// setuid and file-capability binaries from filling them again.
	want := map[string]string{
		"CapInh": "0000000000000000", "CapPrm": "0000000000000000",
		"CapEff": "0000000000000000", "CapAmb": "0000000000000000",
		"NoNewPrivs": "1",
	}
	for line := range strings.Lines(out) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if w, ok := want[k]; ok {
			if v = strings.TrimSpace(v); v != w {
				t.Errorf("%s = %s inside the sandbox, want %s", k, v, w)
			}
			delete(want, k)
		}
	}
	if len(want) > 0 {
		t.Errorf("/proc/self/status lacks %v:\n%s", want, out)
	}
	// What the capabilities would allow: make the root writable again.
	if _, err := exec.LookPath("mount"); err == nil {
		out, err := run(t, sb, "", "sh", "-c", "mount -o remount,bind,rw / && touch /etc/"+uniqueName())
		if err == nil {
			t.Errorf("remounted / read-write inside the sandbox: %s", out)
		}
	}
}

// hostHasWrite reports whether the file at path holds what the sandboxed
// test commands write.
func hostHasWrite(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), "written")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBwrapWorkdir(t *testing.T) {
	t.Parallel()
	ws := realTempDir(t)
	sub := mkdir(t, ws, "sub")
	sb := realSandbox(t, Config{Workspace: ws, Home: realTempDir(t)})
	out, err := run(t, sb, "sub", "pwd")
	if err != nil || strings.TrimSpace(out) != sub {
		t.Errorf("pwd = %q, %v; want %s", out, err, sub)
	}
}

func TestBwrapPrivateTmp(t *testing.T) {
	t.Parallel()
	sb := realSandbox(t, Config{Workspace: realTempDir(t), Home: realTempDir(t)})
	name := uniqueName()
	inside := filepath.Join("/tmp", name+"-inside")
	t.Cleanup(func() { os.Remove(inside) })
	outside, err := os.Create(filepath.Join("/tmp", name+"-outside"))
	if err != nil {
		t.Fatal(err)
	}
	outside.Close()
	t.Cleanup(func() { os.Remove(outside.Name()) })

	script := `echo x > "$1" && test -s "$1" && test ! -e "$2" && test "$TMPDIR" = /tmp`
	if out, err := run(t, sb, "", "sh", "-c", script, "sh", inside, outside.Name()); err != nil {
		t.Fatalf("inside: %v: %s", err, out)
	}
	if _, err := os.Stat(inside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file written to /tmp inside is visible outside (stat err %v)", err)
	}
}

func TestBwrapNetwork(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found; the test connects with bash's /dev/tcp")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	tests := []struct {
		name    string
		network bool
	}{
		{"denied", false},
		{"allowed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := realSandbox(t, Config{Workspace: realTempDir(t), Home: realTempDir(t), Network: tt.network})
			out, err := run(t, sb, "", bash, "-c", `exec 3<>/dev/tcp/127.0.0.1/"$1"`, "bash", port)
			if connected := err == nil; connected != tt.network {
				t.Errorf("network=%v: connected=%v (%v: %s)", tt.network, connected, err, out)
			}
		})
	}
}

func TestBwrapDiesWithParent(t *testing.T) {
	t.Parallel()
	sb := realSandbox(t, Config{Workspace: realTempDir(t), Home: realTempDir(t)})
	marker := uniqueName()
	// The sh inside stays alive (sleep is not its last command) so its
	// argv, which carries the marker, identifies the sandboxed process.
	inner := []string{"sh", "-c", "sleep 60; true", marker}
	cmd := exec.Command(inner[0], inner[1:]...)
	release, err := sb.Confine(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	t.Cleanup(func() { killMarked(marker) })

	// The intermediate process starts bwrap and waits; killing it must
	// take the whole sandbox down.
	parent := exec.Command("sh", append([]string{"-c", `"$@" & wait`, "sh"}, cmd.Args...)...)
	parent.ExtraFiles = cmd.ExtraFiles
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool {
		return slices.ContainsFunc(markedProcs(marker), func(p proc) bool { return slices.Equal(p.argv, inner) })
	}) {
		parent.Process.Kill()
		parent.Wait()
		t.Fatalf("sandboxed process never appeared; processes with the marker: %v", markedProcs(marker))
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	if !waitFor(func() bool { return len(markedProcs(marker)) == 0 }) {
		t.Fatalf("sandboxed processes outlived their parent: %v", markedProcs(marker))
	}
}

// proc is a running process found by scanning /proc.
type proc struct {
	pid  int
	argv []string
}

// markedProcs lists the processes with marker as one of their arguments.
// Zombies have an empty command line and so never match.
func markedProcs(marker string) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 {
			continue
		}
		argv := strings.Split(string(bytes.TrimSuffix(raw, []byte{0})), "\x00")
		if slices.Contains(argv, marker) {
			out = append(out, proc{pid: pid, argv: argv})
		}
	}
	return out
}

// killMarked kills whatever a failed test left behind.
func killMarked(marker string) {
	for _, p := range markedProcs(marker) {
		syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// waitFor polls cond until it holds or a deadline passes.
func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}
