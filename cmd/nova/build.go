package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/openai"
	"github.com/nova-dev/nova/llm/providers"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/sandbox"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/tools"
)

// runtime is everything one session of the agent needs, built from flags,
// config and settings. Close releases the session lock and background shells.
type runtime struct {
	novaHome  string
	workdir   string
	home      string // the user's home directory, from the streams
	selection config.Selection
	checker   *permission.Checker
	registry  *tools.Registry
	pipeline  *tools.Pipeline // the one path of every tool call, the agent's and !cmd's
	env       *tools.Env
	session   *session.Session
	agent     *agent.Agent
	scratch   string // removed on Close
	warnings  []string
	// ignored are the project grants left out: the workspace is not trusted.
	ignored []config.IgnoredSetting
}

// Close releases what the runtime holds.
func (r *runtime) Close() error {
	if r.env != nil {
		_ = r.env.Close()
	}
	var err error
	if r.session != nil {
		// It says what a full disk kept out of the transcript.
		err = r.session.Close()
	}
	if r.scratch != "" {
		_ = os.RemoveAll(r.scratch)
	}
	return err
}

// buildOptions is what shapes a runtime beyond config files.
type buildOptions struct {
	model           string
	maxTurns        int
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
}

// build assembles config -> provider client -> permission checker -> tools
// -> session -> agent. Its errors are configuration errors (exit code 2),
// except those of the machine (a full or read-only disk), which are
// failures (exit code 1).
func build(ctx context.Context, s *IOStreams, o buildOptions) (*runtime, error) {
	novaHome, workdir, err := locate(s)
	if err != nil {
		return nil, err
	}
	rt := &runtime{novaHome: novaHome, workdir: workdir, home: s.Home}
	ok := false
	defer func() {
		if !ok {
			rt.Close()
		}
	}()

	file, err := config.LoadFile(novaHome)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	sel, err := config.Select(config.Providers(file, s.Getenv), file, o.model, s.Getenv)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if sel.Model.Model == "" {
		// An OpenAI-compatible server hosts whatever it hosts: ask it.
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		names, err := openai.ListModels(lctx, sel.Provider.ProviderConfig(file.Timeouts))
		cancel()
		if err != nil {
			return nil, usageErr("provider %q serves many models and none was named, and asking it failed (%v): pass --model %s:<model>, set NOVA_MODEL, or add models to %s",
				sel.Provider.Key, err, sel.Provider.Key, filepath.Join(novaHome, "config.json"))
		}
		sel.Model.Model = names[0]
		rt.warnings = append(rt.warnings, fmt.Sprintf("using model %s, the first of %d that %s lists; choose another with --model %s:<model>",
			names[0], len(names), sel.Provider.Key, sel.Provider.Key))
	}
	rt.selection = sel
	client, err := providers.New(sel.Provider.ProviderConfig(file.Timeouts), llm.DefaultRetryPolicy())
	if err != nil {
		return nil, usageErr("%v", err)
	}

	// The shell keeps its state here; the sandbox must let it write there.
	tmp := filepath.Join(novaHome, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, writeErr("cannot create nova's scratch directory", tmp, err)
	}
	if rt.scratch, err = os.MkdirTemp(tmp, "run-*"); err != nil {
		return nil, writeErr("cannot create nova's scratch directory", tmp, err)
	}
	// Shell commands a nova killed before it could stop them (SIGKILL, a
	// crash) left running are stopped now; this nova's are recorded alike.
	runDir := filepath.Join(novaHome, "run")
	if n := tools.ReapOrphanShells(runDir); n > 0 {
		rt.warnings = append(rt.warnings, fmt.Sprintf("stopped %d process(es) that shell commands of an earlier nova left running when it died", n))
	}
	tr, err := loadTrust(ctx, novaHome, workdir, s.Home, o, rt.scratch)
	if err != nil {
		return nil, err
	}
	if tr.sandbox != nil {
		rt.warnings = append(rt.warnings, tr.sandbox.Warnings()...)
	}
	if tr.notice != "" {
		rt.warnings = append(rt.warnings, tr.notice)
	}
	rt.ignored = tr.settings.Ignored
	if rt.checker, err = permission.NewChecker(tr.cfg); err != nil {
		return nil, usageErr("%v", err)
	}
	rt.registry = tools.NewRegistry()
	for _, t := range append(tools.Builtin(), &tools.Remember{NovaHome: novaHome}) {
		if err := rt.registry.Register(t); err != nil {
			return nil, failure(fmt.Errorf("register tools: %w", err))
		}
		if !sel.Model.CanUseTools() {
			// A model configured with "tools": false is offered none: it
			// would answer a tool list with errors or gibberish.
			rt.registry.SetEnabled(t.Name(), false)
		}
	}
	if !sel.Model.CanUseTools() {
		rt.warnings = append(rt.warnings, fmt.Sprintf("model %s is configured without tools: it can only answer, not read, edit or run anything", sel.ID()))
	}

	history, err := rt.openSession(o, sel)
	if err != nil {
		return nil, err
	}
	env := tools.NewEnv(workdir)
	env.Home = s.Home
	tools.RecordShellsIn(env, runDir)
	env.AddDirs = tr.cfg.AddDirs
	if tr.sandbox != nil {
		env.Sandbox = tr.sandbox
	}
	env.SandboxUnavailable = tr.sandboxUnavailable
	if len(tr.settings.Env) > 0 {
		// The user's env always, the project's only when trusted: the
		// settings were merged that way.
		env.ExtraEnv = tr.settings.Env
	}
	env.Modes = rt.checker
	env.DeniedRead = rt.checker.ReadDenied
	env.SessionID = rt.session.ID()
	env.SpillDir = rt.session.SpillDir()
	// The model may always read back what was spilled for it.
	rt.checker.AddReadDir(env.SpillDir)
	env.ScratchDir = rt.scratch
	// Asks and tool notices go to the person watching the run; print mode
	// has nobody to ask, so its asks are denials the model is told about.
	env.Notify = agent.Notify
	if o.interactive {
		env.Ask = agent.Person{}
	}
	rt.env = env

	src := &agent.ContextSource{NovaHome: novaHome, Workdir: workdir, Home: s.Home}
	window, maxOut := sel.Model.Limits()
	thinking := sel.Model.ThinkingBudget
	if v := s.Getenv("MAX_THINKING_TOKENS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, usageErr("MAX_THINKING_TOKENS=%q: want a number of tokens", v)
		}
		thinking = n
	}
	rt.pipeline = &tools.Pipeline{Registry: rt.registry, Checker: rt.checker}
	rt.agent = agent.New(agent.Config{
		Client:         client,
		Model:          sel.Model.Model,
		MaxTokens:      maxOut,
		ThinkingBudget: thinking,
		ContextWindow:  window,
		System:         agent.SystemPrompt(),
		AppendSystem:   o.appendSystem,
		Context:        src.Message,
		Discover:       src.Discover,
		Pipeline:       rt.pipeline,
		Env:            env,
		MaxTurns:       o.maxTurns,
		Recorder:       rt.session,
		History:        history,
	})
	ok = true
	return rt, nil
}

// openSession creates a new session or opens the one to resume, and
// returns the history to carry on from.
func (rt *runtime) openSession(o buildOptions, sel config.Selection) ([]llm.Message, error) {
	store := session.NewStore(rt.novaHome)
	id := o.resume
	if id != "" {
		full, err := store.Resolve(id)
		if err != nil {
			return nil, usageErr("--resume %s: %v", id, err)
		}
		id = full
	}
	if o.cont && id == "" {
		meta, err := store.Latest(rt.workdir)
		if err != nil {
			return nil, usageErr("--continue: %v", err)
		}
		id = meta.ID
	}
	if id == "" {
		sess, err := store.Create(session.Meta{WorkspaceDir: rt.workdir, AgentKey: "main", Model: sel.ID()})
		if err != nil {
			return nil, writeErr("cannot create the session", filepath.Join(rt.novaHome, "sessions"), err)
		}
		rt.session = sess
		return nil, nil
	}
	sess, warns, err := store.Open(id)
	if err != nil {
		return nil, usageErr("resume %s: %v", id, err)
	}
	rt.session = sess
	for _, w := range warns {
		rt.warnings = append(rt.warnings, w.String())
	}
	return sess.Messages(), nil
}

// writeErr is a start-up that could not write in dir: the machine's
// failure, not the command line's (exit code 1, no usage hint), in words
// that say what is full or read-only and where.
func writeErr(what, dir string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return failure(fmt.Errorf("%s in %s: the file system there is full (no space left on device); free some space, or set NOVA_HOME to a directory on another disk", what, dir))
	case errors.Is(err, syscall.EDQUOT):
		return failure(fmt.Errorf("%s in %s: the disk quota there is used up; free some space, or set NOVA_HOME to a directory elsewhere", what, dir))
	case errors.Is(err, syscall.EROFS):
		return failure(fmt.Errorf("%s in %s: the file system there is read-only; set NOVA_HOME to a writable directory", what, dir))
	}
	return failure(fmt.Errorf("%s in %s: %w", what, dir, err))
}

// trust is the permission and sandbox set-up of a runtime, for the
// checker, the tools and nova doctor.
type trust struct {
	settings *config.Settings // merged as trust allows; Ignored lists what was left out
	files    []string         // settings files loaded
	state    trustState
	cfg      permission.Config
	choice   sandboxChoice
	probe    *sandbox.Report // nil when the sandbox is off
	sandbox  *sandbox.Sandbox
	// sandboxUnavailable says the sandbox was asked for explicitly but
	// cannot run: the tools' Env says so to every Bash check.
	sandboxUnavailable bool
	// sandboxErr says why the wanted sandbox cannot run; notice says it at start.
	sandboxErr error
	notice     string
}

// loadTrust reads the settings files (what the project grants only when
// the workspace is trusted), probes the sandbox when it is on and builds
// the permission configuration; o was checked (buildOptions.check).
// Errors are configuration errors. home is the user's home directory.
// scratch, when set, is a directory the sandboxed shell must be able to
// write.
func loadTrust(ctx context.Context, novaHome, workdir, home string, o buildOptions, scratch string) (*trust, error) {
	ts, err := resolveTrust(novaHome, workdir, o.trust)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	st, files, err := config.LoadSettings(novaHome, workdir, home, ts.trusted)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	t := &trust{settings: st, files: files, state: ts, choice: chooseSandbox(st, o)}
	mode := permission.Mode(o.permissionMode)
	available := false
	if t.choice.on() {
		r := probeSandbox(ctx, novaHome, o.freshProbe)
		t.probe = &r
		dirs := append(append([]string(nil), st.Permissions.AdditionalDirectories...), o.addDirs...)
		if scratch != "" {
			dirs = append(dirs, scratch)
		}
		sb, err := sandbox.New(sandbox.Config{
			Workspace: workdir, AddDirs: dirs, Home: home, NovaHome: novaHome, Probed: &r,
			Network: isTrue(st.Sandbox.Network), AllowUnixSockets: isTrue(st.Sandbox.AllowUnixSockets), Mask: st.Sandbox.DenyRead,
		})
		t.sandboxErr = err
		switch {
		case err == nil:
			t.sandbox, available = sb, true
		case t.choice.explicit():
			t.sandboxUnavailable = true
			t.notice = fmt.Sprintf("the Bash sandbox is enabled but cannot run: %v. Bash commands will need approval (and are refused in print mode).", err)
		default:
			// On by default only: nova works with the checker alone rather
			// than refuse every command on a machine without a sandbox.
			t.notice = fmt.Sprintf("the Bash sandbox (on by default) cannot run here: %v. Bash commands run outside it, under the permission rules alone; "+
				"to stop this notice, set \"sandbox\": {\"enabled\": false} in %s.", err, filepath.Join(novaHome, "settings.json"))
		}
	}
	cfg, err := st.PermissionConfig(config.PermissionOptions{
		Workspace: workdir, Home: home, NovaHome: novaHome, Mode: mode, AddDirs: o.addDirs,
		AllowedTools: o.allowedTools, DisallowedTools: o.disallowedTools,
	})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if err := permission.CheckStartup(cfg.Mode, available, os.Geteuid()); err != nil {
		return nil, usageErr("%v", err)
	}
	t.cfg = cfg
	return t, nil
}

// isTrue reads an optional setting that defaults to false.
func isTrue(b *bool) bool { return b != nil && *b }
