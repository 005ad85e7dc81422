package main

import (
	"context"
	"slices"
	"sync"

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
// the first runtime does, and the allow rules the SDK gave the session.
func sdkBuilder(build live.BuildFunc, structured *headless.StructuredOutput, b *headless.MCPBridge, rules *sdkRules) live.BuildFunc {
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
		rules.regrant(rt)
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

// sdkRules takes the SDK's allow rules into the current runtime's
// checker. The session's (updatedPermissions to "session") are granted
// again to each runtime a set_model builds: the checker is new, the
// session is not. Rules saved to a settings file are read by the new
// checker itself.
type sdkRules struct {
	// ctl is set once the controller exists, before Serve asks anything.
	ctl *live.Controller

	mu     sync.Mutex
	grants []*sdkGrant
}

// sdkGrant is one Grant of the session's, with its revoke on the
// checker of the runtime now in force.
type sdkGrant struct {
	source  string
	rules   []string
	revoke  func()
	revoked bool
}

// Grant implements headless.Rules.
func (r *sdkRules) Grant(source string, rules []string) (func(), error) {
	// The runtime is taken before r.mu: a rebuild holds the controller's
	// lock while it calls regrant. (A switch waits for the turn whose
	// answer this is, so none comes in between.)
	rt := r.ctl.Runtime()
	r.mu.Lock()
	defer r.mu.Unlock()
	revoke, err := rt.Checker.Grant(source, rules)
	g := &sdkGrant{source: source, rules: rules, revoke: revoke}
	r.grants = append(r.grants, g)
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		g.revoked = true
		g.revoke()
	}, err
}

// regrant grants rt's checker the session's rules still in force.
func (r *sdkRules) regrant(rt *live.Runtime) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.grants {
		if !g.revoked {
			// An unparsable rule was said so at its first Grant.
			g.revoke, _ = rt.Checker.Grant(g.source, g.rules)
		}
	}
}

// AllowAlways implements headless.Rules.
func (r *sdkRules) AllowAlways(rule string) error {
	return r.ctl.Runtime().Checker.AllowAlways(rule)
}
