package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// markedProcs returns the live (not zombie) processes whose command line
// holds marker, by pid, with their command lines.
func markedProcs(marker string) map[string]string {
	found := map[string]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if i := strings.LastIndexByte(string(stat), ')'); err != nil || i < 0 || len(stat) < i+3 || stat[i+2] == 'Z' || stat[i+2] == 'X' {
			continue
		}
		found[pid] = strings.ReplaceAll(string(cmdline), "\x00", " ")
	}
	return found
}

// sleeps returns the pids of the marked sleep processes.
func sleeps(marker string) []string {
	var pids []string
	for pid, cmd := range markedProcs(marker) {
		if strings.HasPrefix(cmd, "sleep ") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// startOrphaner starts nova running, through Bash, a command that leaves a
// sleep behind it and waits for it, and returns once the sleep runs. The
// sleep's duration is marker, so the test finds it in /proc whatever pid
// namespace it is in.
func (e *e2e) startOrphaner(t *testing.T, args ...string) (*bgNova, string) {
	t.Helper()
	marker := fmt.Sprintf("3000.%06d", rand.IntN(1_000_000))
	cmd := "sleep " + marker + " & echo $! > sleep.pid; wait"
	e.srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_sleep", Name: "Bash", Input: jsonInput(map[string]any{"command": cmd})}}})
	p := e.start(append(append([]string{"-p", "--allowedTools", "Bash"}, args...), "start a sleep")...)
	pollUntil(t, "the sleep to start", func() bool { return len(sleeps(marker)) == 1 }, p)
	t.Cleanup(func() { // a failed test must not leave the sleep behind either
		for _, pid := range sleeps(marker) {
			if id, err := strconv.Atoi(pid); err == nil {
				_ = syscall.Kill(id, syscall.SIGKILL)
			}
		}
	})
	return p, marker
}

func TestE2EKilledNovaLeavesNoShell(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the parent-death signal and the records are Linux's")
	}
	e := newSerialE2E(t)
	p, marker := e.startOrphaner(t, "--no-sandbox")

	// Another nova starting meanwhile leaves a running nova's shell alone.
	e.srv.Push(llmtest.Turn{Text: "hi"})
	if r := e.run("", "-p", "--no-sandbox", "hello"); r.code != 0 || strings.Contains(r.stderr, "stopped") {
		t.Fatalf("second nova: exit %d, stderr %s", r.code, r.stderr)
	}
	if len(sleeps(marker)) != 1 {
		t.Fatal("a nova starting killed the shell of a nova still running")
	}

	p.kill()
	// The shell itself dies with nova (Pdeathsig).
	pollUntil(t, "the shell to die with nova", func() bool {
		for _, cmd := range markedProcs(marker) {
			if !strings.HasPrefix(cmd, "sleep ") {
				return false
			}
		}
		return true
	})
	// What it left running is stopped by the next nova's start.
	e.srv.Push(llmtest.Turn{Text: "hi"})
	r := e.run("", "-p", "--no-sandbox", "hello")
	if r.code != 0 {
		t.Fatalf("next nova: exit %d, stderr %s", r.code, r.stderr)
	}
	if left := sleeps(marker); len(left) != 0 {
		t.Errorf("the sleep %v outlived the nova that started it and the next start", left)
	}
	if !strings.Contains(r.stderr, "stopped 1 process") {
		t.Errorf("stderr = %q: the clean-up is not reported", r.stderr)
	}
	if recs, _ := filepath.Glob(filepath.Join(e.home, ".nova", "run", "shell-*")); len(recs) != 0 {
		t.Errorf("records left: %v", recs)
	}
}

// TestE2EKilledNovaLeavesNoSandboxedShell: in the sandbox the command is a
// pid namespace under bwrap --die-with-parent, gone with nova at once.
func TestE2EKilledNovaLeavesNoSandboxedShell(t *testing.T) {
	sandboxWorks(t)
	e := newSerialE2E(t)
	p, marker := e.startOrphaner(t, "--sandbox")
	p.kill()
	pollUntil(t, "the sandboxed sleep to die with nova", func() bool { return len(markedProcs(marker)) == 0 })
}
