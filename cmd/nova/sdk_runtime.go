package main

import (
	"context"
	"slices"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/headless"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools/mcp"
)

// This file keeps an SDK session bound to the runtime in force: a
// set_model replaces the runtime (live.Controller.SetModel), so what
// Serve is given reads the controller's current one, and every runtime
// the controller builds gets what the SDK's initialize set up beyond
// live.Options (its in-process MCP servers, the structured output tool,
// the session's allow rules; its hook callbacks are live.Options'
// ExtraHooks already).

// sdkBuilder is build for the runtimes a set_model makes: each offers
// the structured output tool and holds the SDK's in-process servers, as
// the first runtime does.
func sdkBuilder(build live.BuildFunc, structured *headless.StructuredOutput, b *headless.MCPBridge) live.BuildFunc {
	return func(ctx context.Context, lo live.Options) (*live.Runtime, error) {
		rt, err := build(ctx, lo)
		if err != nil {
			return nil, err
		}
		err = offerStructured(rt, structured)
		if err == nil {
			err = addSDKServers(rt, b)
		}
		if err != nil {
			_ = rt.Close()
			return nil, err
		}
		return rt, nil
	}
}

// addSDKServers makes the SDK's in-process servers (b, when not nil)
// MCP servers of rt; they connect through Serve.
func addSDKServers(rt *live.Runtime, b *headless.MCPBridge) error {
	if b == nil || rt.MCP == nil {
		return nil
	}
	for _, s := range b.Servers() {
		// Manager.Add keeps the first of a name: a configured server must
		// not stand in silently for the host's.
		if slices.ContainsFunc(rt.MCP.Statuses(), func(st mcp.Status) bool { return st.Name == s.Name }) {
			return usageErr("the SDK's in-process MCP server %q has the name of a configured MCP server: rename one (or pass strictMcpConfig)", s.Name)
		}
		rt.MCP.Add(mcp.Server{Name: s.Name, Transport: mcp.TransportSDK, SDK: s.Link, CallTimeout: s.CallTimeout})
	}
	return nil
}

// sdkRunner runs each turn on the controller's runtime of the moment.
type sdkRunner struct{ ctl *live.Controller }

// Run implements headless.Runner.
func (r sdkRunner) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	return r.ctl.Runtime().Live.Run(ctx, input)
}
