package tui

import (
	"context"
	"slices"
	"testing"
)

// reconnectBackend is an MCP fake whose servers can be connected again
// and logged in to.
type reconnectBackend struct {
	*loginBackend
	reconnects []string
}

func (b *reconnectBackend) ReconnectMCP(_ context.Context, name string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reconnects = append(b.reconnects, name)
	for i, st := range b.statuses {
		if st.Name == name {
			b.statuses[i] = MCPServerStatus{Name: name, Target: st.Target, State: MCPConnected, Tools: []string{"mcp__" + name + "__x"}}
		}
	}
	return "Reconnected to " + name + ": 1 tool(s).", nil
}

// TestTUIMCPDialogActs: in /mcp's dialog r connects the highlighted
// server again (the dialog stays, showing its new state), l logs in to a
// remote one (the dialog steps aside for the URL), and a approves a
// project's server waiting, which then shows as connecting.
func TestTUIMCPDialogActs(t *testing.T) {
	mb := newMCPBackend()
	mb.statuses = []MCPServerStatus{
		{Name: "broken", Target: "broken-mcp", State: MCPFailed, Error: "the handshake failed: EOF"},
		{Name: "api", Target: "https://mcp.example/mcp", State: MCPNeedsLogin, Error: "it wants a login"},
	}
	mb.pending = twoPending()[:1]
	b := &reconnectBackend{loginBackend: &loginBackend{mcpBackend: mb}}
	h := newHarnessWith(t, b, mb.fakeBackend)
	h.press("esc") // the approval dialog: later
	h.typeText("/mcp")
	h.press("enter")
	h.says("❯ broken · failed")
	h.says("enter tools · r reconnect · esc close")
	h.press("r")
	if !slices.Equal(b.reconnects, []string{"broken"}) {
		t.Fatalf("reconnects %v", b.reconnects)
	}
	h.says("Reconnected to broken: 1 tool(s).")
	h.says("❯ broken · connected · 1 tool")

	h.press("down")
	h.says("❯ api · needs login")
	h.says("r reconnect · l log in · esc close")
	h.press("down")
	h.press("a")
	if got := mb.answered(); !slices.Equal(got, []string{"db=true"}) {
		t.Errorf("answers %v", got)
	}
	h.says("Using MCP server db: it starts now")
	h.says("db · connecting…")

	h.press("up")
	h.press("l")
	h.says("To log in to api, open this URL in your browser")
	h.says("Logged in to api: connected, 3 tool(s).")
	h.says("Ask nova anything")
}
