package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/team"
)

// buildOptions is what shapes a runtime beyond config files.
type buildOptions struct {
	model        string
	maxTurns     int
	maxBudgetUSD float64 // --max-budget-usd
	// newID is the new session's id (--session-id); shownID the UUID
	// the messages name the session by when it was given as one.
	newID, shownID string
	noPersistence  bool         // --no-session-persistence
	fallbackModel  string       // --fallback-model
	extraHooks     []hooks.Hook // the Agent SDK's callback hooks
	// hookObserver is told of each hook run (--include-hook-events).
	hookObserver func(hooks.Observation)
	// extraAgents are the Agent SDK's agents, subagent types beside the
	// agent files'.
	extraAgents     []agent.SubagentType
	permissionMode  string
	allowedTools    []string
	disallowedTools []string
	appendSystem    string
	cont            bool
	resume          string
	sandbox         bool // --sandbox
	noSandbox       bool // --no-sandbox
	trust           bool // --trust: the workspace is trusted for this run
	addDirs         []string
	interactive     bool
	freshProbe      bool // probe the sandbox even when a probe is cached
	// Claude Code's flags (claude.go): --system-prompt replaces nova's
	// system prompt; --tools as given (toolsSet: it was; toolList: the
	// names it keeps, "default" keeping all); -n/--name, the session's
	// title; --fork-session, resume into a new session.
	systemPrompt string
	tools        string
	toolsSet     bool
	toolList     []string
	name         string
	forkSession  bool
	// mcpConfigs are --mcp-config values: absolute file paths (complete
	// makes them so) or inline JSON.
	mcpConfigs      []string
	strictMCPConfig bool // --strict-mcp-config
	// pluginDirs are --plugin-dir values, absolute (complete makes them so).
	pluginDirs []string
	// titleFromModel asks the model for the session's title (the
	// terminal's; live.Options.TitleFromModel).
	titleFromModel bool
	// sessionSource is what SessionStart hooks are told ("clear" after
	// /clear); "" lets live tell startup from resume.
	sessionSource string
	// team is --team: the session leads that team (docs/teams.md).
	team string
	// settings are --setting-sources and --settings; a relative
	// --settings path starts in the workspace.
	settings config.SettingsLayers
	// Claude Code's flags of claudeflags.go: --agent, the main session's
	// agent type; --disable-slash-commands; --effort as a thinking budget.
	mainAgent       string
	noSlashCommands bool
	thinkingBudget  int
}

// live is o as the session core takes it, for the workspace and NOVA_HOME
// the streams locate.
func (o buildOptions) live(s *IOStreams, novaHome, workdir string) live.Options {
	return live.Options{
		NovaHome: novaHome, Workdir: workdir, Home: s.Home, Getenv: s.Getenv,
		SystemPrompt: o.systemPrompt, ForkSession: o.forkSession,
		Model: o.model, MaxTurns: o.maxTurns, MaxBudgetUSD: o.maxBudgetUSD, PermissionMode: o.permissionMode,
		SessionID: o.newID, NoPersistence: o.noPersistence, FallbackModel: o.fallbackModel, ExtraHooks: o.extraHooks,
		HookObserver: o.hookObserver,
		ExtraAgents:  o.extraAgents,
		AllowedTools: o.allowedTools, DisallowedTools: o.disallowedTools, AppendSystem: o.appendSystem,
		Continue: o.cont, Resume: o.resume, Sandbox: o.sandbox, NoSandbox: o.noSandbox, Trust: o.trust, SandboxBridge: bridgeExe(),
		AddDirs: o.addDirs, Interactive: o.interactive, FreshProbe: o.freshProbe, Version: version,
		MCPConfigs: o.mcpConfigs, StrictMCPConfig: o.strictMCPConfig, SessionSource: o.sessionSource, PluginDirs: o.pluginDirs,
		TitleFromModel: o.titleFromModel, Agent: o.mainAgent, DisableSlashCommands: o.noSlashCommands, ThinkingBudget: o.thinkingBudget,
		Settings: config.SettingsLayers{Sources: o.settings.Sources, Flag: o.settings.Flag, Dir: workdir},
	}
}

// build makes the session's runtime (live.Build) for the streams'
// workspace. Its errors carry the exit code: 2 for the command line's or
// the configuration's, 1 for the machine's (a full disk).
func build(ctx context.Context, s *IOStreams, o buildOptions) (*live.Runtime, error) {
	novaHome, workdir, err := locate(s)
	if err != nil {
		return nil, err
	}
	return o.builder(s)(ctx, o.live(s, novaHome, workdir))
}

// builder is build as a live.BuildFunc, for a live.Controller: what the
// flags say beyond live.Options (--tools, -n, --team) holds for every
// runtime the controller builds, the first and those of /clear, /resume
// and /model.
func (o buildOptions) builder(s *IOStreams) live.BuildFunc {
	return func(ctx context.Context, lo live.Options) (*live.Runtime, error) {
		rt, err := live.Build(ctx, lo)
		if err != nil {
			return nil, exitFor(err)
		}
		rt.Warnings = append(newProviders(lo.NovaHome), rt.Warnings...)
		if err := o.shape(rt); err != nil {
			_ = rt.Close()
			return nil, err
		}
		if o.team != "" {
			if err := lead(ctx, s, rt, lo, o.team); err != nil {
				_ = rt.Close()
				return nil, err
			}
		}
		return rt, nil
	}
}

// lead makes rt's session the lead of team name: the team tools in its
// registry, teammates started as this nova, their messages relayed into
// the lead's conversation while the runtime lives (a /clear, /resume or
// /model ends this relay and the next runtime starts its own).
func lead(ctx context.Context, s *IOStreams, rt *live.Runtime, lo live.Options, name string) error {
	exe, err := os.Executable()
	if err != nil {
		return failure(fmt.Errorf("--team: cannot find nova's own executable to start teammates: %w", err))
	}
	var env []string
	if s.Environ != nil {
		env = s.Environ()
	}
	l, err := team.ForLead(ctx, rt, lo, name, exe, env)
	if err != nil {
		return usageErr("--team %s: %v", name, err)
	}
	rt.Go(func(ctx context.Context) { l.Relay(ctx, rt.Agent.Tell, 0) })
	rt.TeamStatus = func(w io.Writer) error {
		t, err := team.Open(rt.NovaHome, name)
		if err != nil {
			return err
		}
		return team.WriteStatus(w, t)
	}
	return nil
}

// exitFor gives an error of the session core its exit code.
func exitFor(err error) error {
	var ce *live.ConfigError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return usageErr("%v", ce.Err)
	}
	return failure(err)
}

// newProviders says, first thing, which providers config.json gained
// since a terminal of nova last started (config.NoteProviders): one
// added by nova serve's API, or another program, would take the
// prompts of whoever uses it without a word.
func newProviders(novaHome string) []string {
	f, err := config.LoadFile(novaHome)
	if err != nil {
		return nil // Build read it: it parses
	}
	notes, err := config.NoteProviders(novaHome, f)
	if err != nil {
		notes = append(notes, err.Error())
	}
	return notes
}

// bridgeExe is nova's own executable, which runs the sandbox's network
// bridge (main hands it sandbox.BridgeArg); "" when it cannot be found.
func bridgeExe() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
