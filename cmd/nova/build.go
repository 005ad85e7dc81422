package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/providers"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/tools"
)

// runtime is everything one session of the agent needs, built from flags,
// config and settings. Close releases the session lock and background shells.
type runtime struct {
	novaHome  string
	workdir   string
	selection config.Selection
	checker   *permission.Checker
	registry  *tools.Registry
	env       *tools.Env
	session   *session.Session
	agent     *agent.Agent
	warnings  []string
}

// Close releases what the runtime holds.
func (r *runtime) Close() {
	if r.env != nil {
		_ = r.env.Close()
	}
	if r.session != nil {
		_ = r.session.Close()
	}
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
	sandbox         bool
	addDirs         []string
	interactive     bool
}

// build assembles config -> provider client -> permission checker -> tools
// -> session -> agent. Its errors are configuration errors (exit code 2).
func build(ctx context.Context, s *IOStreams, o buildOptions) (*runtime, error) {
	novaHome, err := config.Home(s.Getenv)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	workdir, err := os.Getwd()
	if err != nil {
		return nil, usageErr("working directory: %v", err)
	}
	if resolved, err := filepath.EvalSymlinks(workdir); err == nil {
		workdir = resolved
	}
	rt := &runtime{novaHome: novaHome, workdir: workdir}
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
		return nil, usageErr("provider %q (%s) serves many models and none was named: pass --model %s:<model>, set NOVA_MODEL, or add models to %s",
			sel.Provider.Key, sel.Provider.BaseURL, sel.Provider.Key, filepath.Join(novaHome, "config.json"))
	}
	rt.selection = sel
	client, err := providers.New(sel.Provider.ProviderConfig(file.Timeouts), llm.DefaultRetryPolicy())
	if err != nil {
		return nil, usageErr("%v", err)
	}

	if rt.checker, err = buildChecker(workdir, o); err != nil {
		return nil, err
	}
	rt.registry = tools.NewRegistry()
	for _, t := range append(tools.Builtin(), &tools.Remember{NovaHome: novaHome}) {
		if err := rt.registry.Register(t); err != nil {
			return nil, fmt.Errorf("register tools: %w", err)
		}
	}

	history, err := rt.openSession(o, sel)
	if err != nil {
		return nil, err
	}
	env := tools.NewEnv(workdir)
	env.AddDirs = o.addDirs
	env.SessionID = rt.session.ID()
	env.SpillDir = rt.session.SpillDir()
	rt.env = env

	home, _ := os.UserHomeDir()
	src := &agent.ContextSource{NovaHome: novaHome, Workdir: workdir, Home: home}
	window, maxOut := sel.Model.Limits()
	rt.agent = agent.New(agent.Config{
		Client:        client,
		Model:         sel.Model.Model,
		MaxTokens:     maxOut,
		ContextWindow: window,
		System:        agent.SystemPrompt(),
		AppendSystem:  o.appendSystem,
		Context:       func() string { return src.Message(ctx) },
		Discover:      src.Discover,
		Pipeline:      &tools.Pipeline{Registry: rt.registry, Checker: rt.checker},
		Env:           env,
		Interactive:   o.interactive,
		MaxTurns:      o.maxTurns,
		Recorder:      rt.session,
		History:       history,
	})
	ok = true
	return rt, nil
}

// openSession creates a new session or opens the one to resume, and
// returns the history to carry on from.
func (rt *runtime) openSession(o buildOptions, sel config.Selection) ([]llm.Message, error) {
	store := session.NewStore(rt.novaHome)
	id := o.resume
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
			return nil, fmt.Errorf("create session: %w", err)
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

// buildChecker makes the permission checker from flags.
func buildChecker(workdir string, o buildOptions) (*permission.Checker, error) {
	mode := permission.ModeDefault
	if o.permissionMode != "" {
		m, ok := permission.ParseMode(o.permissionMode)
		if !ok {
			return nil, usageErr("--permission-mode %q: want default, acceptEdits, plan or bypassPermissions", o.permissionMode)
		}
		mode = m
	}
	home, _ := os.UserHomeDir()
	c, err := permission.NewChecker(permission.Config{
		Mode: mode, Workspace: workdir, AddDirs: o.addDirs, Home: home,
		Rules: permission.Rules{Allow: o.allowedTools, Deny: o.disallowedTools},
	})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return c, nil
}
