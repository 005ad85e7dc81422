package live

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/mcp"
)

// startMCP loads the configured MCP servers and starts, in the
// background, those that may start: a slow server never delays the first
// prompt. A project server the person has not approved waits in
// MCPPending for a frontend that can ask (the TUI); everything else that
// may not start is said in Warnings.
func (rt *Runtime) startMCP(o Options, tr *Setup, version string) error {
	servers, err := config.LoadMCP(config.MCPLoad{
		NovaHome: o.NovaHome, Workspace: o.projectDir(), Home: o.Home, Getenv: o.Getenv,
		Trusted: tr.Trust.Trusted, Settings: tr.Settings, Configs: o.MCPConfigs, Strict: o.StrictMCPConfig,
		Plugins: pluginMCP(tr.Plugins),
	})
	if err != nil {
		return configErr("%v", err)
	}
	opts := mcp.Options{Registry: rt.Registry, Version: version, AuthDir: MCPAuthDir(o.NovaHome), EnvPolicy: tr.EnvPolicy}
	if opts.StartTimeout, err = envMillis(o.Getenv, "MCP_TIMEOUT"); err != nil {
		return err
	}
	if opts.CallTimeout, err = envMillis(o.Getenv, "MCP_TOOL_TIMEOUT"); err != nil {
		return err
	}
	p := rt.Selection.Provider
	if opts.ToolSearch, err = mcp.ToolSearchMode(o.Getenv("ENABLE_TOOL_SEARCH"), string(tr.Settings.EnableToolSearch), tr.Settings.Sources["enableToolSearch"], p.Type, p.BaseURL); err != nil {
		return configErr("%v", err)
	}
	opts.ContextWindow, _ = rt.Selection.Model.Limits()
	var ready []mcp.Server
	for _, s := range servers {
		switch s.State {
		case config.MCPReady:
			ready = append(ready, MCPServer(s, o.Workdir))
		case config.MCPNeedsApproval:
			if o.Interactive {
				rt.MCPPending = append(rt.MCPPending, s)
				continue
			}
			rt.Warnings = append(rt.Warnings, fmt.Sprintf("MCP server %q (%s) is not started: the project's .mcp.json adds it and you have not approved it. Approve it once in the TUI (run nova here), or list it in \"enabledMcpjsonServers\" in .nova/settings.local.json.", s.Name, s.Source))
		case config.MCPUntrusted:
			rt.MCPDisabled = append(rt.MCPDisabled, s)
			rt.Warnings = append(rt.Warnings, fmt.Sprintf("MCP server %q (%s) is not started: this workspace is not trusted, and a project's servers are its author's code (nova trust, or --trust for one run).", s.Name, s.Source))
		case config.MCPRejected:
			// The person said no; saying so at every start would nag.
			rt.MCPDisabled = append(rt.MCPDisabled, s)
		default:
			rt.MCPDisabled = append(rt.MCPDisabled, s)
			rt.Warnings = append(rt.Warnings, fmt.Sprintf("MCP server %q (%s) is not started: %s", s.Name, s.Source, s.Problem))
		}
	}
	rt.MCP = mcp.NewManager(ready, opts)
	rt.MCP.Start()
	return nil
}

// MCPAuthDir is where the OAuth logins of MCP servers are kept (a file
// per server, readable by its owner only); nova mcp login and logout use it too.
func MCPAuthDir(novaHome string) string { return filepath.Join(novaHome, "mcp-auth") }

// MCPServer is what the MCP client connects to for a configured server;
// a stdio server starts in the workspace.
func MCPServer(s config.ConfiguredMCP, workdir string) mcp.Server {
	srv := mcp.Server{
		Name: s.Name, Transport: s.Server.Transport(), Command: s.Server.Command, Args: s.Server.Args, Env: s.Server.Env,
		Dir: workdir, URL: s.Server.URL, Headers: s.Server.Headers,
		CallTimeout: time.Duration(s.Server.Timeout) * time.Millisecond,
	}
	return srv
}

// ApproveMCP records the person's answer about a pending project server
// and, approved, starts it.
func (rt *Runtime) ApproveMCP(s config.ConfiguredMCP, approved bool) error {
	if err := config.ApproveMCPServer(rt.Workdir, s.Name, approved); err != nil {
		return err
	}
	for i, p := range rt.MCPPending {
		if p.Name == s.Name {
			rt.MCPPending = append(rt.MCPPending[:i:i], rt.MCPPending[i+1:]...)
			break
		}
	}
	if approved && rt.MCP != nil {
		rt.MCP.Add(MCPServer(s, rt.Workdir))
	}
	if !approved {
		s.State, s.Problem = config.MCPRejected, "declined: disabledMcpjsonServers lists it"
		rt.MCPDisabled = append(rt.MCPDisabled, s)
	}
	return nil
}

// envMillis reads a timeout in milliseconds, as Claude Code's MCP_TIMEOUT
// and MCP_TOOL_TIMEOUT are; unset is 0 (the default).
func envMillis(getenv func(string) string, name string) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, configErr("%s=%q: want a timeout in milliseconds", name, v)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// WaitMCP waits for every MCP server's first connection attempt (each is
// bounded by the start timeout) and returns, in words, the servers that
// failed or wait for a login.
func (rt *Runtime) WaitMCP(ctx context.Context) []string {
	if rt.MCP == nil {
		return nil
	}
	rt.MCP.Wait(ctx)
	var out []string
	for _, st := range rt.MCP.Statuses() {
		switch st.State {
		case mcp.StateFailed:
			out = append(out, fmt.Sprintf("MCP server %q failed to start: %s", st.Name, st.Error))
		case mcp.StateNeedsLogin:
			out = append(out, fmt.Sprintf("MCP server %q is not started, it needs a login: %s", st.Name, st.Error))
		}
	}
	return out
}

// MCPNeedsLogin is ProbeMCP's error for a server that wants an OAuth login
// nova does not hold (or that it refused); Reason says how to log in.
type MCPNeedsLogin struct{ Reason string }

func (e *MCPNeedsLogin) Error() string { return "needs login: " + e.Reason }

// ProbeMCP connects to one configured server as a session would (with the
// OAuth login stored in novaHome, if any), counts its tools and
// disconnects: nova mcp list and get report health they checked.
// MCP_TIMEOUT bounds the attempt. A server that wants a login is a
// *MCPNeedsLogin.
func ProbeMCP(ctx context.Context, s config.ConfiguredMCP, novaHome, workdir string, getenv func(string) string) (int, error) {
	start, err := envMillis(getenv, "MCP_TIMEOUT")
	if err != nil {
		return 0, err
	}
	policy, err := envPolicyHere(novaHome, workdir, getenv)
	if err != nil {
		return 0, err
	}
	m := mcp.NewManager([]mcp.Server{MCPServer(s, workdir)}, mcp.Options{Registry: tools.NewRegistry(), StartTimeout: start, AuthDir: MCPAuthDir(novaHome), EnvPolicy: policy})
	defer m.Close()
	m.Start()
	m.Wait(ctx)
	st := m.Statuses()[0]
	switch st.State {
	case mcp.StateConnected:
		return len(st.Tools), nil
	case mcp.StateFailed:
		return 0, errors.New(st.Error)
	case mcp.StateNeedsLogin:
		return 0, &MCPNeedsLogin{Reason: st.Error}
	}
	return 0, fmt.Errorf("%s", st.State)
}

// mcpReady is a session's runner while its MCP servers start in the
// background: a run whose servers are still connecting waits for each
// one's attempt (bounded by MCP_TIMEOUT) before the model's first
// request, so the model is offered their tools from the first turn
// whichever frontend started it (docs/mcp.md, "Start-up, timeouts and
// failures"). A run that finds every server settled starts at once.
type mcpReady struct {
	mcp  *mcp.Manager
	next Runner
}

// Run implements Runner.
func (r mcpReady) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	var starting []string
	if r.mcp != nil {
		for _, st := range r.mcp.Statuses() {
			if st.State == mcp.StateConnecting {
				starting = append(starting, st.Name)
			}
		}
	}
	if len(starting) == 0 {
		return r.next.Run(ctx, input)
	}
	out := make(chan agent.Event, 16)
	go func() {
		defer close(out)
		out <- agent.Event{Type: agent.EventNotice, Text: "waiting for MCP servers to start: " + strings.Join(starting, ", ")}
		r.mcp.Wait(ctx)
		for ev := range r.next.Run(ctx, input) {
			out <- ev
		}
	}()
	return out
}
