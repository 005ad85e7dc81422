package main

import (
	"fmt"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/tui"
)

// MCPStatus implements tui.MCPServers.
func (b *interactiveBackend) MCPStatus() string { return b.runtime().MCPStatus() }

// MCPPending implements tui.MCPServers.
func (b *interactiveBackend) MCPPending() []tui.PendingServer {
	rt := b.runtime()
	out := make([]tui.PendingServer, 0, len(rt.MCPPending))
	for _, p := range rt.MCPPending {
		out = append(out, tui.PendingServer{Name: p.Name, Target: live.MCPServer(p, rt.Workdir).Target(), Source: displayPath(p.Source, rt.Workdir, rt.Home)})
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
