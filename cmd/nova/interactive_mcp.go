package main

import (
	"context"
	"fmt"

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

// MCPPending implements tui.MCPServers (live.Controller.MCPPending),
// each source shortened for people.
func (b *interactiveBackend) MCPPending() []tui.PendingServer {
	rt := b.runtime()
	pending := b.ctl.MCPPending()
	out := make([]tui.PendingServer, 0, len(pending))
	for _, p := range pending {
		out = append(out, tui.PendingServer{Name: p.Name, Target: p.Target, Source: displayPath(p.Source, rt.Workdir, rt.Home), Transport: p.Transport})
	}
	return out
}

// ApproveMCP implements tui.MCPServers (live.Controller.ApproveMCP).
func (b *interactiveBackend) ApproveMCP(name string, approved bool) error {
	return b.ctl.ApproveMCP(name, approved)
}

// MCPPrompts implements tui.MCPPrompter (live.Controller.MCPPrompts).
func (b *interactiveBackend) MCPPrompts(ctx context.Context) []tui.MCPPrompt {
	var out []tui.MCPPrompt
	for _, p := range b.ctl.MCPPrompts(ctx) {
		tp := tui.MCPPrompt{Server: p.Server, Name: p.Name, Command: p.Command, Description: p.Description}
		for _, a := range p.Arguments {
			tp.Arguments = append(tp.Arguments, tui.MCPPromptArgument(a))
		}
		out = append(out, tp)
	}
	return out
}

// MCPPrompt implements tui.MCPPrompter (live.Controller.MCPPrompt).
func (b *interactiveBackend) MCPPrompt(ctx context.Context, p tui.MCPPrompt, args []string) (string, error) {
	mp := mcp.Prompt{Server: p.Server, Name: p.Name, Command: p.Command, Description: p.Description}
	for _, a := range p.Arguments {
		mp.Arguments = append(mp.Arguments, mcp.PromptArgument(a))
	}
	return b.ctl.MCPPrompt(ctx, mp, args)
}

// MCPResources implements tui.MCPResources (live.Controller.MCPResources).
func (b *interactiveBackend) MCPResources(ctx context.Context) []tui.MCPResource {
	var out []tui.MCPResource
	for _, r := range b.ctl.MCPResources(ctx) {
		out = append(out, tui.MCPResource{Server: r.Server, URI: r.URI, Name: r.Name, Description: r.Description})
	}
	return out
}

// ReadMCPResource implements tui.MCPResources (live.Controller.ReadMCPResource).
func (b *interactiveBackend) ReadMCPResource(ctx context.Context, server, uri string) (string, error) {
	return b.ctl.ReadMCPResource(ctx, server, uri)
}

// LoginMCP implements tui.MCPLogin (live.Controller.LoginMCP): the URL is
// shown, and opened in a browser when one can be.
func (b *interactiveBackend) LoginMCP(ctx context.Context, name string, show func(url string)) (string, error) {
	open := browserOpener(b.io)
	st, err := b.ctl.LoginMCP(ctx, name, func(url string) error {
		if open != nil {
			_ = open(url) // the URL is shown either way
		}
		show(url)
		return nil
	})
	if err != nil {
		return "", err
	}
	if st.State == "" {
		return "Logged in to " + name + ".", nil
	}
	return fmt.Sprintf("Logged in to %s: %s, %d tool(s).", name, st.State, len(st.Tools)), nil
}
