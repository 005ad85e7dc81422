package tools

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-dev/nova/sandbox"
)

// procsWith returns the live (not zombie) processes whose environment
// holds entry or whose command line holds word, by pid.
func procsWith(entry, word string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		pi, ok := procStat(e.Name())
		if !ok || pi.state == 'Z' || pi.state == 'X' {
			continue
		}
		environ, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if (entry != "" && strings.Contains("\x00"+string(environ), "\x00"+entry)) ||
			(word != "" && strings.Contains(string(cmdline), word)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// bwrapEnv returns an Env whose commands run in a real bwrap sandbox, or
// skips the test where bwrap cannot run.
func bwrapEnv(t *testing.T) *Env {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
	env := newShellEnv(t)
	env.ScratchDir = t.TempDir()
	sb, err := sandbox.New(sandbox.Config{Workspace: env.Workdir, Home: t.TempDir()})
	if errors.Is(err, sandbox.ErrUnavailable) {
		t.Skipf("the sandbox does not work here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	env.Sandbox = sb
	return env
}

// TestBashCancelAtSpawnLeavesNothing cancels sandboxed commands in the
// first moments after bwrap starts, where bwrap's --die-with-parent has
// not yet reached the command: nothing the command started may survive,
// whether the test finds it by the run marker or by its command line.
func TestBashCancelAtSpawnLeavesNothing(t *testing.T) {
	t.Parallel()
	for _, sandboxed := range []bool{true, false} {
		t.Run(fmt.Sprintf("sandboxed=%v", sandboxed), func(t *testing.T) {
			var env *Env
			if sandboxed {
				env = bwrapEnv(t)
			} else {
				env = newShellEnv(t)
			}
			word := fmt.Sprintf("30.%06d", rand.IntN(1_000_000))
			t.Cleanup(func() {
				for _, pid := range procsWith("", word) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			for i := range 30 {
				ctx, cancel := context.WithCancel(context.Background())
				// Spread the cancels over bwrap's start-up: from at once
				// to 60 ms after the call began.
				time.AfterFunc(time.Duration(i*2)*time.Millisecond, cancel)
				shellCall(t, ctx, &Bash{}, env, map[string]any{"command": "sleep " + word})
				cancel()
			}
			marker := runMarkerVar + "=" + shellsOf(env).marker
			deadline := time.Now().Add(3 * time.Second)
			for {
				left := append(procsWith(marker, ""), procsWith("", word)...)
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("processes %v outlived their cancel", left)
				}
				time.Sleep(50 * time.Millisecond)
			}

			// Positive control: a command that runs is found by its marker.
			res := shellCall(t, context.Background(), &Bash{}, env, map[string]any{"command": "sleep " + word, "run_in_background": true})
			if res.IsError {
				t.Fatal(res.Output)
			}
			deadline = time.Now().Add(5 * time.Second)
			for len(procsWith(marker, "")) == 0 || len(procsWith("", word)) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("a running command is not found by its marker: the check above proves nothing")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestBashRunMarkerIsEachCommands: every command carries a marker of its
// own, not one the shell's saved state carried over, and an inherited one
// (nova run by another nova's command) is replaced.
func TestBashRunMarkerIsEachCommands(t *testing.T) {
	t.Setenv(runMarkerVar, "1-1-inherited.1")
	env := newShellEnv(t)
	first := runBashTool(t, env, map[string]any{"command": "echo $" + runMarkerVar + "; export KEEP=1"}).Output
	second := runBashTool(t, env, map[string]any{"command": "echo $" + runMarkerVar + " $KEEP"}).Output
	m := shellsOf(env).marker
	if first != m+".1" || second != m+".2 1" {
		t.Errorf("markers %q then %q, want %s.1 then %s.2 (with KEEP=1 carried)", first, second, m, m)
	}
}
