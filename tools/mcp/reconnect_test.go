package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// TestReconnectSkipsTheBackoff: a server that crashed is failed, and a
// call within the backoff is refused; Reconnect (the person's /mcp r)
// starts it again at once, and its tools answer. An unknown name is an
// error naming the servers.
func TestReconnectSkipsTheBackoff(t *testing.T) {
	w := newWorld(t, Options{}, stdioServer("t", mcptest.Options{}))
	w.wait(t)
	if o := w.call(t, "mcp__t__crash", map[string]any{}); !o.Result.IsError {
		t.Fatalf("crash: %+v", o.Result)
	}
	if st := w.m.Statuses()[0]; st.State != StateFailed {
		t.Fatalf("after the crash: %s", st.State)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.m.Reconnect(ctx, "t"); err != nil {
		t.Fatalf("Reconnect: %v", err)
	}
	if st := w.m.Statuses()[0]; st.State != StateConnected || len(st.Tools) == 0 {
		t.Fatalf("after Reconnect: %+v", st)
	}
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "back"}); o.Result.Output != "back" {
		t.Errorf("a call after Reconnect: %+v", o.Result)
	}
	if err := w.m.Reconnect(ctx, "nope"); err == nil || !strings.Contains(err.Error(), `no MCP server "nope" (servers: t)`) {
		t.Errorf("unknown server: %v", err)
	}
}

// TestReconnectSaysWhyNot: a server that cannot start says why.
func TestReconnectSaysWhyNot(t *testing.T) {
	w := newWorld(t, Options{}, Server{Name: "gone", Transport: TransportStdio, Command: "/nonexistent/mcp-server"})
	w.wait(t)
	err := w.m.Reconnect(context.Background(), "gone")
	if err == nil || !strings.Contains(err.Error(), "MCP server gone is failed") {
		t.Errorf("Reconnect of a server that cannot start: %v", err)
	}
}
