package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/openai"
	"github.com/nova-dev/nova/llm/providers"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/plugins"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/skills"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/mcp"
)

// ConfigError is a start-up refused because of the command line or the
// configuration: the person can fix it (the CLI's exit code 2). Build's
// other errors are the machine's (a full disk): exit code 1.
type ConfigError struct{ Err error }

// Error says what the person must fix.
func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

func configErr(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}

// Options shape a session's runtime beyond the config files.
type Options struct {
	// NovaHome, Workdir and Home are nova's directory, the workspace
	// (symlinks resolved) and the user's home directory.
	NovaHome, Workdir, Home string
	// Getenv reads the environment (provider keys, MAX_THINKING_TOKENS).
	Getenv func(string) string
	// ProjectDir is where the project's settings (and so its rules and
	// hooks), its trust and its MCP configuration are read from; "" means
	// Workdir. A teammate works in its own worktree under the lead's
	// project's rules: .nova/settings.local.json is in no worktree.
	ProjectDir string
	// Settings chooses the settings layers: --setting-sources, --settings.
	Settings config.SettingsLayers

	Model           string // "provider:model"; "" takes the configured default
	MaxTurns        int
	PermissionMode  string
	AllowedTools    []string
	DisallowedTools []string
	AppendSystem    string
	Continue        bool   // resume the workspace's latest session
	Resume          string // resume this session (an id or a unique prefix)
	Sandbox         bool   // --sandbox
	// SandboxBridge is nova's own executable, which runs the network
	// proxy's bridge inside the sandbox (sandbox.Config.Bridge); "" means
	// no filtered network can be set up (the sandbox then cannot run with
	// sandbox.network.allowedDomains).
	SandboxBridge string
	NoSandbox     bool // --no-sandbox
	Trust         bool // --trust: the workspace is trusted for this run
	AddDirs       []string
	// Interactive says a person can answer asks and questions (the TUI,
	// the server); otherwise an ask is a denial the model is told about.
	Interactive bool
	// FreshProbe probes the sandbox even when a probe is cached.
	FreshProbe bool
	// SystemPrompt replaces nova's system prompt when not "" (Claude
	// Code's --system-prompt, the Agent SDK's systemPrompt).
	SystemPrompt string
	// ForkSession, with Resume or Continue, carries on from that session's
	// history in a new session, leaving it as it was.
	ForkSession bool
	// AgentKey is recorded with a new session ("main" when empty).
	AgentKey string
	// MCPConfigs are the --mcp-config values, checked when the command
	// line was parsed: absolute file paths or inline JSON, as
	// config.MCPLoad's Configs takes them.
	MCPConfigs []string
	// StrictMCPConfig is --strict-mcp-config: only MCPConfigs' servers.
	StrictMCPConfig bool
	// Version is nova's version, told to MCP servers.
	Version string
	// SessionSource is how the session started, as SessionStart hooks are
	// told it: "clear" for /clear; "" means "resume" when resuming and
	// "startup" otherwise.
	SessionSource string
	// MaxBudgetUSD, when above 0, stops a run once the session's cost
	// reaches it (--max-budget-usd); a model without prices is refused.
	MaxBudgetUSD float64
	// SessionID, when set, is the id of the new session (Claude Code's
	// --session-id); one that exists is refused.
	SessionID string
	// NoPersistence removes the session's files when the runtime closes
	// (--no-session-persistence): it cannot be resumed.
	NoPersistence bool
	// FallbackModel names the models (comma-separated) a request goes to
	// when the session's is overloaded or unavailable (--fallback-model).
	FallbackModel string
	// ExtraHooks are hooks beyond the settings' (the Agent SDK's callback
	// hooks, hooks.NewCallbackHook).
	ExtraHooks []hooks.Hook
	// HookObserver, when set, is told of every hook run of the session
	// (hooks.Session's Observe): print mode's --include-hook-events.
	HookObserver func(hooks.Observation)
	// ExtraAgents are subagent types beyond the agent files' (the Agent
	// SDK's agents); they win a name.
	ExtraAgents []agent.SubagentType
	// PluginDirs are --plugin-dir directories: plugins for this run.
	PluginDirs []string
	// AllowBypass lets the mode be switched to bypassPermissions later
	// (--allow-dangerously-skip-permissions); starting in it allows it too.
	AllowBypass bool
	// TitleFromModel asks the model for the session's title after its
	// first run (the terminal's sessions); otherwise the first prompt,
	// cut short, is the title (title.go).
	TitleFromModel bool
	// Agent runs the main session as the agent type of this name
	// (Claude Code's --agent): its prompt, tools, model and mode.
	Agent string
	// DisableSlashCommands loads no skill or command file: no /name
	// expands and the Skill tool is not offered (--disable-slash-commands).
	DisableSlashCommands bool
	// ThinkingBudget, above 0, is the thinking budget of every request
	// over the model's and MAX_THINKING_TOKENS (--effort).
	ThinkingBudget int
	// mainTools are the built-in tools the main session keeps (Agent's
	// tools); none means all.
	mainTools []string
}

// projectDir is where o's project configuration is read from.
func (o Options) projectDir() string { return cmp.Or(o.ProjectDir, o.Workdir) }

// claudeHome is Claude Code's directory of the user: CLAUDE_CONFIG_DIR,
// else ~/.claude.
func (o Options) claudeHome() string { return config.ClaudeHome(o.Getenv, o.Home) }

// layers are o.Settings with Claude Code's directory of the user filled in.
func (o Options) layers() config.SettingsLayers {
	l := o.Settings
	l.ClaudeHome = cmp.Or(l.ClaudeHome, o.claudeHome())
	return l
}

// Runtime is everything one open session needs, built from options,
// config and settings: the agent and its parts, and the live session that
// runs it. Close releases the session lock and background shells.
type Runtime struct {
	NovaHome, Workdir, Home string
	// ClaudeHome is Claude Code's directory of the user (~/.claude or
	// CLAUDE_CONFIG_DIR).
	ClaudeHome string
	Selection  config.Selection
	Checker    *permission.Checker
	Registry   *tools.Registry
	// Pipeline is the one path of every tool call, the agent's and !cmd's.
	Pipeline *tools.Pipeline
	mentions mentionSeq // ids of the Reads of @file mentions
	Env      *tools.Env
	Session  *session.Session
	Agent    *agent.Agent
	// Live runs the agent: the one run slot every frontend goes through.
	Live *Session
	// Warnings are what a frontend says at start (a resumed transcript's
	// skipped lines, the sandbox's notice).
	Warnings []string
	// Ignored are the project grants left out: the workspace is not trusted.
	Ignored []config.IgnoredSetting
	// TeamStatus, when the session leads a team, writes how its
	// teammates and board stand (set by whoever made it the lead: live
	// cannot import team, which imports live); nil otherwise.
	TeamStatus func(w io.Writer) error
	// Setup is the permission and sandbox set-up it was built with.
	Setup *Setup
	// MCP connects the session's MCP servers and keeps their tools in
	// Registry.
	MCP *mcp.Manager
	// MCPPending are project MCP servers waiting for the person's
	// approval (asked by a frontend that can; see ApproveMCP).
	MCPPending []config.ConfiguredMCP
	// MCPDisabled are the configured MCP servers that do not start: declined,
	// in a folder not trusted, or wrong (each with its Problem, in words).
	MCPDisabled []config.ConfiguredMCP
	// Skills are the session's skills and commands: listed to the model,
	// run as /name, loaded by the Skill tool.
	Skills *skills.Manager
	// Subagents runs the Agent tool's subagents; nil when the model has
	// no tools.
	Subagents *agent.Subagents
	// Hooks are the hooks configured for the session (those of an
	// untrusted project's files are in Ignored instead).
	Hooks *hooks.Config
	// Plugins are the session's plugins; PluginPending those the
	// settings turn on that are not installed (a frontend that can ask
	// offers to install them).
	Plugins       *plugins.Loaded
	PluginPending []plugins.Pending
	// EndReason is what SessionEnd hooks are told when Close ends the
	// session ("clear", "resume", "prompt_input_exit"); "" is "other".
	EndReason string

	noPersist bool          // remove the session's files on Close
	engine    *hooks.Engine // the session's, made even with no hook configured (a skill may bring some); nil before Build made it
	scratch   string        // removed on Close
	// extraAgents are Options.ExtraAgents.
	extraAgents []agent.SubagentType
	// version is Options.Version; built is when Build made the runtime
	// (a status line command's total_duration_ms counts from it).
	version string
	built   time.Time

	// life is the runtime's own lifetime: what it starts in the
	// background (Go: the title call, a team's relay) ends with it.
	life    context.Context
	endLife context.CancelFunc
	bgMu    sync.Mutex
	bg      sync.WaitGroup
	bgEnded bool // Close has begun: Go starts nothing more

	// The session's title (title.go): made once per runtime.
	titleFromModel bool
	titleMu        sync.Mutex
	titleStarted   bool
	titleDone      chan struct{}
}

// Go runs fn in the background for as long as the runtime lives: its
// context is cancelled when Close begins, and Close waits for fn to
// return before it closes what fn may use (the session, the agent). It
// reports false, running nothing, once Close has begun.
func (r *Runtime) Go(fn func(ctx context.Context)) bool {
	r.bgMu.Lock()
	defer r.bgMu.Unlock()
	if r.bgEnded || r.life == nil {
		return false
	}
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		fn(r.life)
	}()
	return true
}

// endBackground stops what Go started and waits for it.
func (r *Runtime) endBackground() {
	r.bgMu.Lock()
	r.bgEnded = true
	r.bgMu.Unlock()
	if r.endLife != nil {
		r.endLife()
	}
	r.bg.Wait()
}

// Close ends any run and releases what the runtime holds.
func (r *Runtime) Close() error {
	if r.Live != nil {
		r.Live.Close()
	}
	// After the runs (whose end may start a title), before the session
	// the title is written to.
	r.endBackground()
	if r.Subagents != nil {
		// Background agents end with the session, before what they use.
		r.Subagents.Close()
	}
	r.endHooks()
	if r.MCP != nil {
		_ = r.MCP.Close()
	}
	if r.Env != nil {
		_ = r.Env.Close()
	}
	if r.Setup != nil && r.Setup.Sandbox != nil {
		// After the commands (Env's shells): it removes the placeholders
		// the sandbox kept on the disk between them.
		_ = r.Setup.Sandbox.Close()
	}
	var err error
	if r.Session != nil {
		// It says what a full disk kept out of the transcript.
		err = r.Session.Close()
	}
	if r.Session != nil && r.noPersist {
		if derr := session.NewStore(r.NovaHome).Delete(r.Session.ID()); derr != nil {
			err = errors.Join(err, fmt.Errorf("--no-session-persistence: %w", derr))
		}
	}
	if r.scratch != "" {
		_ = os.RemoveAll(r.scratch)
	}
	return err
}

// Build assembles config -> provider client -> permission checker -> tools
// -> session -> agent -> live session. ctx bounds the runtime's life: its
// runs are cancelled when it ends.
func Build(ctx context.Context, o Options) (*Runtime, error) {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Agent != "" {
		var err error
		if o, err = o.asAgent(); err != nil {
			return nil, err
		}
	}
	rt := &Runtime{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home, ClaudeHome: o.claudeHome(), extraAgents: o.ExtraAgents, version: o.Version, built: time.Now(), titleFromModel: o.TitleFromModel}
	rt.life, rt.endLife = context.WithCancel(ctx)
	ok := false
	defer func() {
		if !ok {
			rt.Close()
		}
	}()

	file, err := config.LoadFile(o.NovaHome)
	if err != nil {
		return nil, configErr("%v", err)
	}
	sel, warns, err := selectResumed(ctx, o, file)
	if err != nil {
		return nil, err
	}
	rt.Warnings = append(rt.Warnings, warns...)
	rt.Selection = sel
	if _, priced := file.PriceOf(sel); o.MaxBudgetUSD > 0 && !priced {
		return nil, configErr("--max-budget-usd: nova has no prices for %s, so it cannot tell when the budget is spent; give the model a price in config.json (docs/configuration.md#prices) or leave the flag out", sel.ID())
	}
	client, err := providers.New(sel.Provider.ProviderConfig(file.Timeouts), llm.DefaultRetryPolicy())
	if err != nil {
		return nil, configErr("%v", err)
	}

	// The shell keeps its state here; the sandbox must let it write there.
	tmp := filepath.Join(o.NovaHome, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, writeErr("cannot create nova's scratch directory", tmp, err)
	}
	// What novas killed before their Close left here goes first.
	sweepScratch(tmp)
	if rt.scratch, err = makeScratch(tmp); err != nil {
		return nil, writeErr("cannot create nova's scratch directory", tmp, err)
	}
	// Shell commands a nova killed before it could stop them (SIGKILL, a
	// crash) left running are stopped now; this nova's are recorded alike.
	runDir := filepath.Join(o.NovaHome, "run")
	if n := tools.ReapOrphanShells(runDir); n > 0 {
		rt.Warnings = append(rt.Warnings, fmt.Sprintf("stopped %d process(es) that shell commands of an earlier nova left running when it died", n))
	}
	tr, err := LoadSetup(ctx, o, rt.scratch)
	if err != nil {
		return nil, err
	}
	rt.Setup = tr
	if tr.Sandbox != nil {
		rt.Warnings = append(rt.Warnings, tr.Sandbox.Warnings()...)
	}
	if tr.Notice != "" {
		rt.Warnings = append(rt.Warnings, tr.Notice)
	}
	rt.Ignored = tr.Settings.Ignored
	rt.Plugins = tr.Plugins
	rt.Warnings = append(rt.Warnings, tr.Plugins.Warnings...)
	for _, p := range tr.Plugins.Pending {
		if o.Interactive {
			rt.PluginPending = append(rt.PluginPending, p)
			continue
		}
		rt.Warnings = append(rt.Warnings, p.Notice())
	}
	if rt.Checker, err = permission.NewChecker(tr.Config); err != nil {
		return nil, configErr("%v", err)
	}
	rt.Registry = tools.NewRegistry()
	rt.newSkills(o, tr.Trust.Trusted, pluginRoots(tr.Plugins))
	builtin := append(tools.Builtin(), &tools.Remember{NovaHome: o.NovaHome})
	if !o.DisableSlashCommands {
		builtin = append(builtin, &tools.Skill{Loader: rt.Skills})
	}
	for _, t := range builtin {
		if err := rt.Registry.Register(t); err != nil {
			return nil, fmt.Errorf("register tools: %w", err)
		}
		if !sel.Model.CanUseTools() {
			// A model configured with "tools": false is offered none: it
			// would answer a tool list with errors or gibberish.
			rt.Registry.SetEnabled(t.Name(), false)
		}
	}
	if sel.Model.CanUseTools() {
		if err := rt.startMCP(o, tr, o.Version); err != nil {
			return nil, err
		}
	}
	if !sel.Model.CanUseTools() {
		rt.Warnings = append(rt.Warnings, fmt.Sprintf("model %s is configured without tools: it can only answer, not read, edit or run anything", sel.ID()))
	}

	history, err := rt.openSession(o, sel)
	if err != nil {
		return nil, err
	}
	rt.recordModel(sel)
	env := tools.NewSessionEnv(o.Workdir, rt.Checker)
	env.Home = o.Home
	tools.RecordShellsIn(env, runDir)
	env.AddDirs = tr.Config.AddDirs
	if sb := tr.Sandbox; sb != nil {
		env.Sandbox = sb
		// A subagent's worktree is its commands' workspace.
		env.SandboxAt = func(dir string) (tools.Sandbox, error) { return sb.Reroot(dir) }
	}
	env.SandboxUnavailable = tr.SandboxUnavailable
	env.SandboxExcluded = tr.Settings.Sandbox.ExcludedCommands
	env.EnvPolicy = tr.EnvPolicy
	if len(tr.Settings.Env) > 0 {
		// The user's env always, the project's only when trusted: the
		// settings were merged that way.
		env.ExtraEnv = tr.Settings.Env
	}
	env.SessionID = rt.Session.ID()
	env.SpillDir = rt.Session.SpillDir()
	// The model may always read back what was spilled for it.
	rt.Checker.AddReadDir(env.SpillDir)
	env.ScratchDir = rt.scratch
	// Asks and tool notices go to the person watching the run; with
	// nobody to ask, an ask is a denial the model is told about.
	env.Notify = agent.Notify
	if o.Interactive {
		env.Ask = agent.Person{}
	}
	rt.Env = env

	src := &agent.ContextSource{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home, ClaudeHome: o.claudeHome()}
	window, maxOut := sel.Model.Limits()
	thinking := sel.Model.ThinkingBudget
	if v := o.Getenv("MAX_THINKING_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, configErr("MAX_THINKING_TOKENS=%q: want a number of tokens", v)
		}
		thinking = n
	}
	if o.ThinkingBudget > 0 {
		thinking = o.ThinkingBudget
	}
	rt.Pipeline = &tools.Pipeline{Registry: rt.Registry, Checker: rt.Checker}
	rt.wireSkills(file, o.Getenv, client)
	context := rt.contextWithSkills(src)
	if sel.Model.CanUseTools() {
		rt.Subagents = rt.newSubagents(file, o.Getenv, client, tr.Settings.Subagents.MaxParallel, context)
		rt.Skills.Fork = rt.Subagents
		if err := rt.Registry.Register(&tools.Agent{Runner: rt.Subagents}); err != nil {
			return nil, fmt.Errorf("register tools: %w", err)
		}
		context = rt.contextWithAgents(context)
	}
	if len(o.mainTools) > 0 {
		// --agent's tools: the built-in ones it does not name are off (MCP
		// tools are the servers' to offer, as with --tools).
		for _, n := range rt.Registry.Names() {
			if !slices.Contains(o.mainTools, n) && !strings.HasPrefix(n, "mcp__") {
				rt.Registry.SetEnabled(n, false)
			}
		}
	}
	var agentHooks agent.Hooks
	if sh, err := rt.startHooks(ctx, o, tr, client, sel.Model.Model); err != nil {
		return nil, err
	} else if sh != nil {
		agentHooks = sh
	}
	var price func(llm.Usage) float64
	if p, ok := file.PriceOf(sel); ok {
		price = p.Cost
	}
	client, price, fwarns, err := withFallback(ctx, o, file, sel, client, price)
	if err != nil {
		return nil, err
	}
	rt.Warnings = append(rt.Warnings, fwarns...)
	rt.Agent = agent.New(agent.Config{
		Client:         client,
		Model:          sel.Model.Model,
		MaxTokens:      maxOut,
		ThinkingBudget: thinking,
		ContextWindow:  window,
		System:         cmp.Or(o.SystemPrompt, agent.SystemPrompt()),
		AppendSystem:   o.AppendSystem,
		Context:        context,
		Discover:       src.Discover,
		Pipeline:       rt.Pipeline,
		Env:            env,
		Expand:         rt.Skills.Expand,
		MaxTurns:       o.MaxTurns,
		Recorder:       rt.Session,
		History:        history,
		Hooks:          agentHooks,
		HookEvents:     o.HookObserver != nil,
		Price:          price,
		Subagents:      rt.Subagents,
		// With nobody to tell later, a run waits for its background
		// agents and reads their reports.
		AwaitBackground: !o.Interactive,
		MaxBudgetUSD:    o.MaxBudgetUSD,
	})
	if len(history) > 0 {
		// This process holds the session now, so a call its transcript
		// leaves without a result (a nova killed mid-tool) runs nowhere:
		// answered at open, the history every frontend shows and reads
		// from the file is one a provider accepts, not only the next
		// run's request.
		if err := rt.Agent.CloseDanglingCalls(); err != nil {
			rt.Warnings = append(rt.Warnings, err.Error())
		}
	}
	// A run waits for MCP servers still starting, so that their tools
	// are in its first request.
	rt.Live = NewSession(ctx, rt.Session.ID(), titled{rt: rt, next: mcpReady{mcp: rt.MCP, next: rt.Agent}})
	ok = true
	return rt, nil
}

// SettingsModel is the "model" setting of the settings files (nova's or
// Claude Code's, the last layer's winning) and the file that set it; ""
// when none sets one, or the files do not load (LoadSetup says why). It
// is the session's model when neither --model nor NOVA_MODEL names one.
func SettingsModel(o Options) (model, file string) {
	ts, err := ResolveTrust(o.NovaHome, o.projectDir(), o.Trust)
	if err != nil {
		return "", ""
	}
	st, _, err := config.LoadSettingsLayers(o.NovaHome, o.projectDir(), o.Home, ts.Trusted, o.layers())
	if err != nil {
		return "", ""
	}
	return st.Model, st.Sources["model"]
}

// chooseModel is SelectModel with the settings' model (SettingsModel)
// before config.json's default_model. A model a settings file names that
// no provider here has (a Claude Code file's "opusplan", a Claude id with
// only an OpenAI provider) is not used, and a warning says so: the file
// was written for another tool, and nova still starts.
func chooseModel(ctx context.Context, o Options, file *config.File) (config.Selection, []string, error) {
	if o.Model == "" && o.Getenv("NOVA_MODEL") == "" {
		if m, from := SettingsModel(o); m != "" {
			so := o
			so.Model = m
			sel, warns, err := SelectModel(ctx, so, file)
			if err == nil {
				return sel, warns, nil
			}
			first, _, _ := strings.Cut(err.Error(), "\n")
			warn := fmt.Sprintf("not using the model %q of %s: %s", m, from, strings.TrimPrefix(first, "--model "+m+": "))
			sel, warns, err = SelectModel(ctx, o, file)
			return sel, append([]string{warn}, warns...), err
		}
	}
	return SelectModel(ctx, o, file)
}

// SelectModel is the provider and model o asks for (config.Select), made
// sure of before any request: a server that hosts anything is asked for
// its list when no model is named (the first one listed is used, and the
// warning says so) or when the named one is in no list nova has (a name
// the server does not list is refused with the ones it does). Its errors
// are *ConfigError.
func SelectModel(ctx context.Context, o Options, file *config.File) (config.Selection, []string, error) {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	sel, err := config.Select(config.Providers(file, o.Getenv), file, o.Model, o.Getenv)
	if err != nil {
		return sel, nil, configErr("%v", err)
	}
	if sel.Model.Model != "" && !sel.Unlisted {
		return sel, nil, nil
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	names, err := openai.ListModels(lctx, sel.Provider.ProviderConfig(file.Timeouts))
	cancel()
	if sel.Unlisted {
		// A server that cannot be asked may still serve the model: the
		// request will say. One that lists models and not this one is a
		// typo caught before anything is sent.
		if err == nil && !slices.Contains(names, sel.Model.Model) {
			return sel, nil, configErr("model %s: %s does not list it; it lists %s (pass --model %s:<model>, or add it to the provider's models in %s)",
				sel.Model.Model, sel.Provider.Key, strings.Join(names, ", "), sel.Provider.Key, filepath.Join(o.NovaHome, "config.json"))
		}
		return sel, nil, nil
	}
	// An OpenAI-compatible server hosts whatever it hosts: ask it.
	if err != nil {
		return sel, nil, configErr("provider %q serves many models and none was named, and asking it failed (%v): pass --model %s:<model>, set NOVA_MODEL, or add models to %s",
			sel.Provider.Key, err, sel.Provider.Key, filepath.Join(o.NovaHome, "config.json"))
	}
	sel.Model.Model = names[0]
	return sel, []string{fmt.Sprintf("using model %s, the first of %d that %s lists; choose another with --model %s:<model>",
		names[0], len(names), sel.Provider.Key, sel.Provider.Key)}, nil
}

// openSession creates a new session or opens the one to resume, and
// returns the history to carry on from.
func (rt *Runtime) openSession(o Options, sel config.Selection) ([]llm.Message, error) {
	store := session.NewStore(rt.NovaHome)
	id := o.Resume
	if id != "" {
		full, err := store.Resolve(id)
		if err != nil {
			return nil, configErr("--resume %s: %v", id, err)
		}
		id = full
	}
	if o.Continue && id == "" {
		meta, err := store.Latest(rt.Workdir)
		if err != nil {
			return nil, configErr("--continue: %v", err)
		}
		id = meta.ID
	}
	if o.ForkSession && id != "" {
		return rt.forkSession(store, id, o, sel)
	}
	if id != "" && o.SessionID != "" {
		return nil, configErr("--session-id names a new session; with --resume or --continue it needs --fork-session (the fork gets the id)")
	}
	if id != "" && o.NoPersistence {
		return nil, configErr("--no-session-persistence with --resume or --continue would delete the session resumed; add --fork-session to carry on in a session that is not kept")
	}
	if id == "" {
		key := o.AgentKey
		if key == "" {
			key = "main"
		}
		sess, err := store.Create(session.Meta{ID: o.SessionID, WorkspaceDir: rt.Workdir, AgentKey: key, Model: sel.ID()})
		if err != nil {
			return nil, createErr(o.SessionID, rt.NovaHome, err)
		}
		rt.Session, rt.noPersist = sess, o.NoPersistence
		return nil, nil
	}
	sess, warns, err := store.Open(id)
	if err != nil {
		return nil, configErr("resume %s: %w", id, err)
	}
	rt.Session = sess
	for _, w := range warns {
		rt.Warnings = append(rt.Warnings, w.String())
	}
	return sess.Messages(), nil
}

// createErr is a new session that could not be made: the id given is
// taken (the person's to fix), or the disk's failure.
func createErr(id, novaHome string, err error) error {
	if errors.Is(err, session.ErrExists) {
		return configErr("--session-id %s: %v; resume it with --resume, or give a new id", id, err)
	}
	return writeErr("cannot create the session", filepath.Join(novaHome, "sessions"), err)
}

// writeErr is a start-up that could not write in dir: the machine's
// failure, in words that say what is full or read-only and where.
func writeErr(what, dir string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("%s in %s: the file system there is full (no space left on device); free some space, or set NOVA_HOME to a directory on another disk", what, dir)
	case errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("%s in %s: the disk quota there is used up; free some space, or set NOVA_HOME to a directory elsewhere", what, dir)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%s in %s: the file system there is read-only; set NOVA_HOME to a writable directory", what, dir)
	}
	return fmt.Errorf("%s in %s: %w", what, dir, err)
}
