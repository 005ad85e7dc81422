package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/headless"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/skills"
	"github.com/nova-dev/nova/tools/mcp"
)

// runSDK runs a session driven over stdin and stdout with Claude Code's
// stream-json protocol (--input-format stream-json), as the Claude Agent
// SDK drives claude: it reads the initialize request first, since what it
// carries (the system prompt, MCP servers) shapes the runtime.
func runSDK(ctx context.Context, opts *rootOptions) error {
	in := headless.NewInput(opts.io.In)
	init, err := in.Initialize()
	if err != nil {
		return failure(err)
	}
	o := opts.session
	var bridge *headless.HookBridge
	if init != nil && len(init.Hooks) > 0 {
		bridge = headless.NewHookBridge()
		hs, err := bridge.Hooks(init)
		if err != nil {
			headless.RefuseInitialize(opts.io.Out, init, err)
			return usageErr("%v", err)
		}
		o.extraHooks = hs
	}
	var mcpBridge *headless.MCPBridge
	if init != nil && len(init.SDKMCPServers) > 0 {
		if mcpBridge, err = headless.NewMCPBridge(init); err != nil {
			headless.RefuseInitialize(opts.io.Out, init, err)
			return usageErr("%v", err)
		}
	}
	if init != nil {
		if err := init.Unsupported(); err != nil {
			headless.RefuseInitialize(opts.io.Out, init, err)
			return usageErr("%v", err)
		}
		if err := applyInitialize(&o, init, opts.io); err != nil {
			headless.RefuseInitialize(opts.io.Out, init, err)
			return err
		}
	}
	structured, err := sdkStructured(opts.claude.structured, init)
	if err != nil {
		headless.RefuseInitialize(opts.io.Out, init, err)
		return err
	}
	// Asks go to the SDK only when it said it answers them.
	o.interactive = opts.claude.permissionPromptTool == "stdio"
	novaHome, workdir, err := locate(opts.io)
	if err != nil {
		headless.RefuseInitialize(opts.io.Out, init, err)
		return err
	}
	// The session's operations are the Controller's, as the terminal's
	// and nova serve's are: one mode setter, with the startup check, and
	// one model switch. Each runtime a set_model replaces the first with
	// is made an SDK session's as the first is, by sdkBuilder.
	lo := o.live(opts.io, novaHome, workdir)
	lo.AllowBypass = opts.claude.allowSkipPermissions
	base := o.builder(opts.io)
	rt, err := base(ctx, lo)
	if err != nil {
		headless.RefuseInitialize(opts.io.Out, init, err)
		return err
	}
	closeRT := rt.Close
	defer func() {
		if err := closeRT(); err != nil {
			fmt.Fprintf(opts.io.ErrOut, "nova: %v\n", err)
		}
	}()
	if err := offerStructured(rt, structured); err != nil {
		return err
	}
	var warnings []string
	warnings = append(warnings, rt.Warnings...)
	warnings = append(warnings, rt.WaitMCP(ctx)...)
	for _, ig := range rt.Ignored {
		warnings = append(warnings, untrustedNotice(ig, rt.Workdir, rt.Home))
	}
	for _, w := range warnings {
		fmt.Fprintf(opts.io.ErrOut, "nova: warning: %s\n", w)
	}
	// The SDK's in-process servers join the session's MCP servers now,
	// after the configured ones connected: their handshakes need Serve,
	// which carries them, so Serve waits for them before the first turn,
	// and after a set_model for the new runtime's.
	if err := addSDKServers(rt, mcpBridge); err != nil {
		headless.RefuseInitialize(opts.io.Out, init, err)
		return err
	}
	var waitSDKMCP func(context.Context) []string
	ctl := live.ControllerFor(ctx, lo, sdkBuilder(base, structured, mcpBridge), rt)
	closeRT = func() error { return ctl.Close("") }
	if mcpBridge != nil && rt.MCP != nil {
		waitSDKMCP = func(ctx context.Context) []string {
			out := sdkMCPWarnings(ctx, ctl.Runtime(), mcpBridge)
			for _, w := range out {
				fmt.Fprintf(opts.io.ErrOut, "nova: warning: %s\n", w)
			}
			return out
		}
	}
	debug, closeDebug, err := debugOutput(opts)
	if err != nil {
		return err
	}
	defer closeDebug()
	firstID := rt.Session.ID()
	info := sessionOf(ctl.Runtime, o.shownID)
	code := headless.Serve(ctx, sdkRunner{ctl}, in, headless.SDKOptions{
		Session: info, Partial: opts.claude.includePartial, PermissionPrompt: o.interactive,
		ReplayUserMessages: opts.claude.session.replayUser, HookEvents: opts.claude.hookEvents,
		SetPermissionMode: func(mode string) (string, error) {
			m, err := ctl.SetMode(mode, false)
			return string(m), err
		},
		SetModel: func(model string) (string, error) {
			if err := ctl.SetModel(model); err != nil {
				return "", err
			}
			return ctl.Runtime().Selection.ID(), nil
		},
		CurrentSession: func() *headless.Session {
			// A switch that failed started a new session (Controller.SetModel):
			// the name it was given is not that one's.
			shown := o.shownID
			if ctl.Runtime().Session.ID() != firstID {
				shown = ""
			}
			return sessionOf(ctl.Runtime, shown)
		},
		Rules: ctl, Hooks: bridge, MCP: mcpBridge, WaitMCP: waitSDKMCP, Init: initReply(rt, ctl.Models(), opts.io), Warnings: warnings, Debug: debug, Structured: structured,
		Stdout: opts.io.Out, Stderr: opts.io.ErrOut,
	})
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// sdkMCPWarnings waits for the SDK's in-process servers to connect and
// says, in words, those that did not.
func sdkMCPWarnings(ctx context.Context, rt *live.Runtime, b *headless.MCPBridge) []string {
	rt.MCP.Wait(ctx)
	var out []string
	for _, st := range rt.MCP.Statuses() {
		if st.State == mcp.StateFailed && slices.ContainsFunc(b.Servers(), func(s headless.SDKServer) bool { return s.Name == st.Name }) {
			out = append(out, fmt.Sprintf("the SDK's in-process MCP server %q failed to start: %s", st.Name, st.Error))
		}
	}
	return out
}

// applyInitialize makes what the initialize request sets up part of o.
func applyInitialize(o *buildOptions, init *headless.InitializeRequest, s *IOStreams) error {
	if sys := init.System(); sys != "" {
		o.systemPrompt = sys
	}
	if a := strings.TrimSpace(init.AppendSystemPrompt); a != "" {
		o.appendSystem = strings.TrimSpace(o.appendSystem + "\n\n" + a)
	}
	if o.name == "" {
		o.name = init.Title
	}
	cfg, err := init.MCPConfig()
	if err != nil {
		return failure(err)
	}
	if cfg != "" {
		wd, err := s.getwd()
		if err != nil {
			return usageErr("working directory: %v", err)
		}
		if cfg, err = config.ResolveMCPConfig(cfg, wd); err != nil {
			return usageErr("initialize: mcpServers: %v", err)
		}
		o.mcpConfigs = append(o.mcpConfigs, cfg)
	}
	defs, err := init.AgentDefinitions()
	if err != nil {
		return usageErr("initialize: %v", err)
	}
	o.extraAgents = append(o.extraAgents, subagentTypes(defs, "the Agent SDK's agents")...)
	return nil
}

// sessionInfo describes the runtime's session for the init message;
// shown, when set, is the UUID the session was named by (--session-id,
// --resume), which the messages carry as its id.
func sessionInfo(rt *live.Runtime, shown string) *headless.Session {
	return sessionOf(func() *live.Runtime { return rt }, shown)
}

// sessionOf is sessionInfo of the runtime cur returns when asked: what
// may change while the runtime lives (tools, MCP servers, the mode) is
// read from the one in force then.
func sessionOf(cur func() *live.Runtime, shown string) *headless.Session {
	rt := cur()
	window, maxOut := rt.Selection.Model.Limits()
	return &headless.Session{
		SessionID: cmp.Or(shown, rt.Session.ID()), Model: rt.Selection.ID(), Cwd: rt.Workdir, Version: version,
		Tools:          func() []string { return cur().Registry.Names() },
		MCPServers:     func() []headless.MCPServer { return mcpServers(cur()) },
		PermissionMode: func() string { return string(cur().Checker.Mode()) },
		ContextWindow:  window, MaxOutput: maxOut,
		Commands: func() []headless.Command { return commands(cur()) },
		Agents: func() []string {
			out := []string{}
			if rt := cur(); rt.Subagents != nil {
				for _, t := range rt.Subagents.List() {
					out = append(out, t.Name)
				}
			}
			return out
		},
	}
}

// commands are the session's skills and command files, as the init
// message and the initialize reply list them: what a user message
// "/name args" runs. nova's built-in slash commands are the terminal
// UI's, so none is listed.
func commands(rt *live.Runtime) []headless.Command {
	out := []headless.Command{}
	if rt.Skills == nil {
		return out
	}
	for _, sk := range rt.Skills.Commands() {
		c := headless.Command{Name: sk.Name, Description: sk.Description, ArgumentHint: sk.ArgumentHint, Skill: sk.Kind == skills.KindSkill}
		if sk.Namespace != "" {
			c.Aliases = []string{strings.ReplaceAll(sk.Namespace, "/", ":") + ":" + sk.Name}
		}
		out = append(out, c)
	}
	return out
}

// mcpServers are the runtime's MCP servers under Claude Code's words for
// how each stands.
func mcpServers(rt *live.Runtime) []headless.MCPServer {
	out := []headless.MCPServer{}
	if rt.MCP == nil {
		return out
	}
	for _, st := range rt.MCP.Statuses() {
		status := string(st.State)
		switch st.State {
		case mcp.StateConnecting:
			status = "pending"
		case mcp.StateNeedsLogin:
			status = "needs-auth"
		}
		out = append(out, headless.MCPServer{Name: st.Name, Status: status})
	}
	return out
}

// initReply is what the initialize response says of the session: its
// model first, then the one model list every frontend offers
// (live.Controller.Models, the TUI's /model and GET /api/models), each
// named as /model names it.
func initReply(rt *live.Runtime, models []string, s *IOStreams) headless.InitReply {
	cur := rt.Selection
	r := headless.InitReply{
		Models:  []headless.Model{{Value: cur.ID(), DisplayName: modelLabel(cur.Model), Description: "the session's model"}},
		Account: headless.Account{APIKeySource: cur.Provider.Source, APIProvider: string(cur.Provider.Type), Provider: cur.Provider.Key},
		Agents:  []headless.Agent{},
	}
	if rt.Subagents != nil {
		for _, t := range rt.Subagents.List() {
			r.Agents = append(r.Agents, headless.Agent{Name: t.Name, Description: t.Description})
		}
	}
	names := map[string]string{}
	if file, err := config.LoadFile(rt.NovaHome); err == nil {
		for _, e := range config.ModelEntries(file, config.Providers(file, s.Getenv)) {
			names[e.ID] = e.Name
		}
	}
	for _, id := range models {
		if id != cur.ID() {
			provider, _, _ := strings.Cut(id, ":")
			r.Models = append(r.Models, headless.Model{Value: id, DisplayName: cmp.Or(names[id], id), Description: provider})
		}
	}
	return r
}

func modelLabel(m config.Model) string {
	if m.Label != "" {
		return m.Label
	}
	return m.Model
}

// debugOutput is where -d and --debug-file send nova's own events; nil
// when neither is given.
func debugOutput(opts *rootOptions) (io.Writer, func(), error) {
	c := opts.claude
	switch {
	case c.debugFile != "":
		path := c.debugFile
		if !filepath.IsAbs(path) {
			wd, err := opts.io.getwd()
			if err != nil {
				return nil, nil, usageErr("--debug-file: working directory: %v", err)
			}
			path = filepath.Join(wd, path)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, usageErr("--debug-file: %v", err)
		}
		return f, func() { _ = f.Close() }, nil
	case c.debug != "":
		return opts.io.ErrOut, func() {}, nil
	}
	return nil, func() {}, nil
}
