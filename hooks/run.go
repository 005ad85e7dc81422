package hooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/nova-dev/nova/tools"
)

// runOnly are the events a hook added for a run can never see: they
// happen outside any run (SessionStart, SessionEnd) or before a skill of
// the run can be active (UserPromptSubmit).
var runOnly = map[Event]string{
	SessionStart:     "it fires as a session opens, outside any run",
	SessionEnd:       "it fires as the session ends, outside any run",
	UserPromptSubmit: "it fires before the prompt that uses the skill is read",
}

// AddRun runs src's hooks (a skill's frontmatter "hooks", in Claude
// Code's shape) beside the configured ones for the rest of the run ctx
// belongs to: they fire for that run's events and stop when it ends
// (tools.RunScope). It returns, one line each, what of them will never
// run and why, for a notice. A shape Parse refuses is an error, and so is
// a ctx outside any run: hooks meant to guard a skill are never dropped
// silently, nor left running past it.
func (e *Engine) AddRun(ctx context.Context, src Source) ([]string, error) {
	if e == nil {
		return nil, errors.New("this session runs no hooks")
	}
	cfg, err := Parse([]Source{src})
	if err != nil {
		return nil, err
	}
	if cfg.Len() == 0 {
		return nil, nil
	}
	for i := range cfg.Hooks {
		e.compileIf(&cfg.Hooks[i])
	}
	scope := tools.RunScopeOf(ctx)
	if scope == nil {
		return nil, errors.New("there is no run for its hooks to last (they last from the skill's use to the end of its run)")
	}
	e.mu.Lock()
	if e.runs == nil {
		e.runs = map[*tools.RunScope][]Hook{}
	}
	_, had := e.runs[scope]
	e.runs[scope] = append(e.runs[scope], cfg.Hooks...)
	e.mu.Unlock()
	if !had && !scope.AtEnd(func() { e.endRun(scope) }) {
		e.endRun(scope)
		return nil, errors.New("its run has ended")
	}
	problems := cfg.Problems()
	for _, h := range cfg.Hooks {
		if why, ok := runOnly[h.Event]; ok {
			problems = append(problems, fmt.Sprintf("hook %s in %s never runs: %s", h.label(), h.File, why))
		}
	}
	return problems, nil
}

// endRun forgets the hooks added for scope's run.
func (e *Engine) endRun(scope *tools.RunScope) {
	e.mu.Lock()
	delete(e.runs, scope)
	e.mu.Unlock()
}

// hooksFor are the hooks that may fire for ctx: the configured ones, then
// those added for its run and for the runs it runs inside (a subagent's
// parent's: a skill's guard holds for the subagents it starts).
func (e *Engine) hooksFor(ctx context.Context) []*Hook {
	out := make([]*Hook, 0, len(e.cfg.Hooks))
	for i := range e.cfg.Hooks {
		out = append(out, &e.cfg.Hooks[i])
	}
	for scope := tools.RunScopeOf(ctx); scope != nil; scope = scope.Parent() {
		e.mu.Lock()
		// The slice is only appended to: the elements taken here stay
		// as they are whatever AddRun does next.
		run := e.runs[scope]
		e.mu.Unlock()
		for i := range run {
			out = append(out, &run[i])
		}
	}
	return out
}

// hasFor reports whether a hook for ev may fire for ctx.
func (e *Engine) hasFor(ctx context.Context, ev Event) bool {
	for _, h := range e.hooksFor(ctx) {
		if h.Event == ev {
			return true
		}
	}
	return false
}

// firstTime reports whether h, a "once" hook, has not run in the session
// yet, and marks it as run.
func (e *Engine) firstTime(h *Hook) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ranOnce[h.id] {
		return false
	}
	if e.ranOnce == nil {
		e.ranOnce = map[string]bool{}
	}
	e.ranOnce[h.id] = true
	return true
}
