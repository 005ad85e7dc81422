package live

import (
	"context"
	"fmt"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/skills"
	"github.com/nova-dev/nova/tools"
)

// HookConfig reads the hooks of the merged settings st: every layer's,
// the project's only when the folder is trusted (the merge left the
// others out). A hooks object nova cannot read is a ConfigError naming
// its file.
func HookConfig(st *config.Settings) (*hooks.Config, error) {
	srcs := make([]hooks.Source, len(st.HookSets))
	for i, hs := range st.HookSets {
		srcs[i] = hooks.Source{File: hs.File, Hooks: hs.Hooks}
	}
	cfg, err := hooks.Parse(srcs)
	if err != nil {
		return nil, configErr("%v", err)
	}
	return cfg, nil
}

// sessionHooks is a runtime's hook engine as the agent's Hooks: the
// session's SessionStart hooks start as it opens, and the agent's first
// prompt waits for them (as Claude Code's first response does).
type sessionHooks struct {
	*hooks.Engine
	started chan struct{}
	start   hooks.Outcome
}

// Started implements agent.Hooks.
func (s *sessionHooks) Started(ctx context.Context) hooks.Outcome {
	select {
	case <-s.started:
		return s.start
	case <-ctx.Done():
		return hooks.Outcome{}
	}
}

// startHooks makes the runtime's hook engine, wires it into the
// pipeline and the person's asks, and fires SessionStart in the
// background. It is made even when no settings file has hooks: a skill
// used later may bring its own (AddRun), and with none configured each
// hook point costs a look at two empty lists.
func (rt *Runtime) startHooks(ctx context.Context, o Options, tr *Setup, client llm.Client, model string) (*sessionHooks, error) {
	st := tr.Settings
	cfg, err := SessionHooks(tr)
	if err != nil {
		return nil, err
	}
	// The driving program's hooks (the Agent SDK's) run after the
	// settings' for the same event, as Claude Code runs them.
	cfg.Hooks = append(cfg.Hooks, o.ExtraHooks...)
	rt.Hooks = cfg
	rt.Warnings = append(rt.Warnings, cfg.Problems()...)
	e := hooks.New(cfg, hooks.Session{
		ID: rt.Session.ID(),
		// The transcript in Claude Code's format, which hooks written
		// for Claude Code parse (issue 24); nova's own is beside it.
		TranscriptPath: rt.Session.ClaudeTranscriptPath(),
		ProjectDir:     o.Workdir,
		Mode:           func() string { return string(rt.Checker.Mode()) },
		Env:            st.Env,
		EnvPolicy:      rt.Env.EnvPolicy,
		Getenv:         o.Getenv,
		Home:           o.Home,
		Client:         client,
		Model:          model,
		Judge:          rt.judge(),
		Observe:        o.HookObserver,
	})
	rt.engine = e
	rt.Pipeline.Hooks = e.Tools()
	if rt.Env.Ask != nil {
		rt.Env.Ask = notifyingAsker{Asker: rt.Env.Ask, e: e}
	}
	source := o.SessionSource
	if source == "" {
		source = "startup"
		if o.Resume != "" || o.Continue {
			source = "resume"
		}
	}
	sh := &sessionHooks{Engine: e, started: make(chan struct{})}
	go func() {
		defer close(sh.started)
		sh.start = e.Fire(ctx, hooks.SessionStartInput(source, model))
	}()
	return sh, nil
}

// notifyingAsker fires Notification hooks (permission_prompt) as a
// permission ask is put to a person. nova fires it at once: it cannot
// tell, below the frontends, whether the person is away.
type notifyingAsker struct {
	tools.Asker
	e *hooks.Engine
}

// AskPermission implements tools.Asker.
func (n notifyingAsker) AskPermission(ctx context.Context, ask tools.PermissionAsk) tools.Approval {
	n.e.Fire(ctx, hooks.NotificationInput(fmt.Sprintf("nova needs your permission to use %s", ask.Tool), "Permission needed", "permission_prompt"))
	return n.Asker.AskPermission(ctx, ask)
}

// skillHooks runs a skill's frontmatter hooks for the rest of the run of
// ctx, with the skill's directory as CLAUDE_SKILL_DIR and NOVA_SKILL_DIR
// in their environment (as its body may name it).
func (rt *Runtime) skillHooks(ctx context.Context, sk *skills.Skill) ([]string, error) {
	if rt.engine == nil {
		return nil, fmt.Errorf("this session runs no hooks")
	}
	env := map[string]string{"CLAUDE_SKILL_DIR": sk.Dir, "NOVA_SKILL_DIR": sk.Dir}
	for k, v := range sk.Vars {
		env[k] = v // a plugin's skill: its CLAUDE_PLUGIN_ROOT
	}
	return rt.engine.AddRun(ctx, hooks.Source{File: sk.Path, Hooks: sk.Hooks, Env: env})
}

// endHooks fires SessionEnd, with EndReason ("other" when unset), and
// stops the async hooks still running.
func (rt *Runtime) endHooks() {
	if rt.engine == nil {
		return
	}
	reason := rt.EndReason
	if reason == "" {
		reason = "other"
	}
	// The runtime's context may be over (nova is exiting): the hook's own
	// timeout bounds it.
	rt.engine.Fire(context.Background(), hooks.SessionEndInput(reason))
	rt.engine.Close()
}
