package main

import (
	"fmt"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/tui"
)

// The TUI finds its capabilities by type assertion; a signature that
// drifts would silently drop /mcp and the approval dialog, so the
// compiler holds it here.
var _ tui.MCPServers = (*interactiveBackend)(nil)

// MCPStatus implements tui.MCPServers.
func (b *interactiveBackend) MCPStatus() []tui.MCPServerStatus {
	rt := b.runtime()
	if rt.MCP == nil {
		return nil
	}
	sts := rt.MCP.Statuses()
	out := make([]tui.MCPServerStatus, 0, len(sts))
	for _, st := range sts {
		out = append(out, tui.MCPServerStatus{Name: st.Name, Target: st.Target, State: string(st.State),
			Tools: st.Tools, Error: st.Error, Retries: !st.Retry.IsZero()})
	}
	return out
}

// MCPPending implements tui.MCPServers.
func (b *interactiveBackend) MCPPending() []tui.PendingServer {
	rt := b.runtime()
	out := make([]tui.PendingServer, 0, len(rt.MCPPending))
	for _, p := range rt.MCPPending {
		srv := live.MCPServer(p, rt.Workdir)
		out = append(out, tui.PendingServer{Name: p.Name, Target: srv.Target(), Source: displayPath(p.Source, rt.Workdir, rt.Home),
			Transport: string(srv.Transport)})
	}
	return out
}

// ApproveMCP implements tui.MCPServers.
func (b *interactiveBackend) ApproveMCP(name string, approved bool) error {
	rt := b.runtime()
	for _, p := range rt.MCPPending {
		if p.Name == name {
			return rt.ApproveMCP(p, approved)
		}
	}
	return fmt.Errorf("no project MCP server %q is waiting for approval", name)
}
