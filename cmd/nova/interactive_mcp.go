package main

import (
	"context"
	"fmt"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/tools/mcp"
	"github.com/nova-dev/nova/tui"
)

// The TUI finds these capabilities by type assertion; a signature that
// drifts would silently drop /mcp, the approval dialog, prompts or
// mentions, so the compiler holds them here.
var (
	_ tui.MCPServers     = (*interactiveBackend)(nil)
	_ tui.MCPPrompter    = (*interactiveBackend)(nil)
	_ tui.MCPResources   = (*interactiveBackend)(nil)
	_ tui.MCPReconnector = (*interactiveBackend)(nil)
)

// MCPStatus implements tui.MCPServers: the session's servers, then the
// configured ones that do not start, each with why
// (live.Controller.MCPStatus).
func (b *interactiveBackend) MCPStatus() []tui.MCPServerStatus {
	var out []tui.MCPServerStatus
	for _, st := range b.ctl.MCPStatus() {
		state := string(st.State)
		if st.State == live.MCPDisabled {
			state = tui.MCPDisabled
		}
		out = append(out, tui.MCPServerStatus{Name: st.Name, Target: st.Target, State: state,
			Tools: st.Tools, Error: st.Error, Retries: !st.Retry.IsZero()})
	}
	return out
}

// ReconnectMCP implements tui.MCPReconnector (live.Controller.ReconnectMCP).
func (b *interactiveBackend) ReconnectMCP(ctx context.Context, name string) (string, error) {
	st, err := b.ctl.ReconnectMCP(ctx, name)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Reconnected to %s: %d tool(s).", name, len(st.Tools)), nil
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

// MCPPrompts implements tui.MCPPrompter.
func (b *interactiveBackend) MCPPrompts(ctx context.Context) []tui.MCPPrompt {
	rt := b.runtime()
	if rt.MCP == nil {
		return nil
	}
	var out []tui.MCPPrompt
	for _, p := range rt.MCP.Prompts(ctx) {
		tp := tui.MCPPrompt{Server: p.Server, Name: p.Name, Command: p.Command, Description: p.Description}
		for _, a := range p.Arguments {
			tp.Arguments = append(tp.Arguments, tui.MCPPromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, tp)
	}
	return out
}

// MCPPrompt implements tui.MCPPrompter.
func (b *interactiveBackend) MCPPrompt(ctx context.Context, p tui.MCPPrompt, args []string) (string, error) {
	rt := b.runtime()
	if rt.MCP == nil {
		return "", fmt.Errorf("no MCP server named %q", p.Server)
	}
	mp := mcp.Prompt{Server: p.Server, Name: p.Name, Command: p.Command, Description: p.Description}
	for _, a := range p.Arguments {
		mp.Arguments = append(mp.Arguments, mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return rt.MCP.GetPrompt(ctx, mp, args)
}

// MCPResources implements tui.MCPResources.
func (b *interactiveBackend) MCPResources(ctx context.Context) []tui.MCPResource {
	rt := b.runtime()
	if rt.MCP == nil {
		return nil
	}
	var out []tui.MCPResource
	for _, r := range rt.MCP.Resources(ctx) {
		out = append(out, tui.MCPResource{Server: r.Server, URI: r.URI, Name: r.Name, Description: r.Description})
	}
	return out
}

// ReadMCPResource implements tui.MCPResources.
func (b *interactiveBackend) ReadMCPResource(ctx context.Context, server, uri string) (string, error) {
	rt := b.runtime()
	if rt.MCP == nil {
		return "", fmt.Errorf("no MCP server named %q", server)
	}
	return rt.MCP.ReadResource(ctx, server, uri)
}

// LoginMCP implements tui.MCPLogin: the OAuth login of /mcp login, in the
// session's own manager, so the server connects in this session at once.
func (b *interactiveBackend) LoginMCP(ctx context.Context, name string, show func(url string)) (string, error) {
	rt := b.runtime()
	if rt.MCP == nil {
		return "", fmt.Errorf("no MCP servers in this session")
	}
	open := browserOpener(b.io)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	err := rt.MCP.Login(ctx, name, func(url string) error {
		if open != nil {
			_ = open(url) // the URL is shown either way
		}
		show(url)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("login to %s: %w", name, err)
	}
	for _, st := range rt.MCP.Statuses() {
		if st.Name == name {
			return fmt.Sprintf("Logged in to %s: %s, %d tool(s).", name, st.State, len(st.Tools)), nil
		}
	}
	return "Logged in to " + name + ".", nil
}
