package mcp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// pids reads the process IDs the test server wrote at each start.
func pids(t *testing.T, file string) []int {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the server's pid file: %v", err)
	}
	var out []int
	for _, f := range strings.Fields(string(raw)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %q: %v", raw, err)
		}
		out = append(out, pid)
	}
	return out
}

// killBetweenCalls SIGKILLs the server's newest process, as an OOM kill
// or a crash between two turns would, and waits until it is dead (a
// zombie nova has not reaped yet).
func killBetweenCalls(t *testing.T, file string) {
	t.Helper()
	ps := pids(t, file)
	pid := ps[len(ps)-1]
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !processExited(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("server %d still runs after SIGKILL", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestServerKilledBetweenCallsIsRestarted: a stdio server that died
// between two calls is started again by the second call, which answers
// (Claude Code reconnects the same way), rather than failing with
// "transport closed" and a backoff.
func TestServerKilledBetweenCallsIsRestarted(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pids")
	w := newWorld(t, Options{}, stdioServer("t", mcptest.Options{PidFile: file}))
	w.wait(t)
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "one"}); o.Result.Output != "one" {
		t.Fatalf("first call: %+v", o.Result)
	}
	killBetweenCalls(t, file)
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "two"}); o.Result.IsError || o.Result.Output != "two" {
		t.Fatalf("the call after the server died: %+v", o.Result)
	}
	if n := len(pids(t, file)); n != 2 {
		t.Errorf("the server was started %d times, want 2", n)
	}
	if st := w.m.Statuses()[0]; st.State != StateConnected || len(st.Tools) == 0 {
		t.Errorf("after the restart: %+v", st)
	}
	// Again: one restart per call, not one per server's life.
	killBetweenCalls(t, file)
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "three"}); o.Result.Output != "three" {
		t.Errorf("the call after the second death: %+v", o.Result)
	}
}

// TestServerThatDiesAgainSaysWhy: the call that restarted a dead server
// and then saw it die again reports the server by name and what it last
// wrote to stderr; the restart happened (the pid file has a second line).
func TestServerThatDiesAgainSaysWhy(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pids")
	w := newWorld(t, Options{}, stdioServer("t", mcptest.Options{PidFile: file}))
	w.wait(t)
	killBetweenCalls(t, file)
	o := w.call(t, "mcp__t__crash", map[string]any{})
	if !o.Result.IsError || !strings.Contains(o.Result.Output, "MCP server t ") || !strings.Contains(o.Result.Output, mcptest.CrashText) {
		t.Fatalf("a server that died again: %+v", o.Result)
	}
	if n := len(pids(t, file)); n != 2 {
		t.Errorf("the server was started %d times, want 2", n)
	}
	if st := w.m.Statuses()[0]; st.State != StateFailed || !strings.Contains(st.Error, mcptest.CrashText) {
		t.Errorf("after it died again: %+v", st)
	}
}
