package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools"
)

// Hooks are the agent's hook points (issue 16), where what the person
// configured under "hooks" runs: the first prompt of the agent takes the
// session's SessionStart context; every prompt goes through
// UserPromptSubmit; TurnStart and TurnEnd frame each model turn; Stop runs
// when the model is done and may send it back to work; PreCompact and
// PostCompact frame a compaction, after which SessionStart runs again
// with source "compact". Tool calls' hooks run in the pipeline, not here.
// hooks.Engine does the running; live wires it.
type Hooks interface {
	// Fire runs the hooks of in's event and returns what they decided.
	Fire(ctx context.Context, in hooks.Input) hooks.Outcome
	// Started waits for the session's SessionStart hooks, which run as
	// the session opens, and returns their outcome. The agent calls it
	// once, before its first request.
	Started(ctx context.Context) hooks.Outcome
}

// ErrCompactionBlocked is what Compact returns when a PreCompact hook
// blocked it; history is left as it was.
var ErrCompactionBlocked = errors.New("a PreCompact hook blocked the compaction")

// stopHookCap bounds how many times in a row Stop hooks may send the
// model back to work (Claude Code's cap): a hook whose condition never
// holds cannot keep a run going for ever.
const stopHookCap = 8

// notify tells the person what hooks said for them.
func (a *Agent) notify(turn int, notices []string) {
	for _, n := range notices {
		a.send(Event{Type: EventNotice, Turn: turn, Text: n})
	}
}

// promptHooks runs, before a prompt reaches the model, the session's
// SessionStart hooks (for the agent's first prompt) and UserPromptSubmit
// hooks. It returns what they add for the model ahead of the prompt and
// after it, kept apart from the prompt so that a slash command in it is
// still the prompt's last text when it is expanded (issue 24: with a
// UserPromptSubmit hook, /cmd reached the model as literal text), or
// false when the run ends here: the prompt was blocked (an error the
// person reads) or a hook stopped it.
func (a *Agent) promptHooks(ctx context.Context, input llm.Message, done *Done) (before, after []llm.Part, goOn bool) {
	h := a.cfg.Hooks
	a.mu.Lock()
	first := !a.started
	a.started = true
	a.mu.Unlock()
	if first {
		o := h.Started(ctx)
		a.notify(0, o.Notices)
		for _, c := range o.Context {
			before = append(before, llm.TextPart(c))
		}
	}
	o := h.Fire(ctx, hooks.PromptInput(input.Text()))
	a.notify(0, o.Notices)
	switch {
	case o.Stop:
		a.hookStopped("a UserPromptSubmit hook", o.StopReason)
		return nil, nil, false
	case o.Block:
		a.finish(done, SubtypeError, "a UserPromptSubmit hook blocked the prompt, which was not sent: "+o.Reason)
		return nil, nil, false
	}
	for _, c := range o.Context {
		after = append(after, llm.TextPart(c))
	}
	return before, after, true
}

// turnHooks runs TurnStart or TurnEnd hooks and reports whether one
// stopped the run.
func (a *Agent) turnHooks(ctx context.Context, ev hooks.Event, turn int, stop llm.StopReason) bool {
	if a.cfg.Hooks == nil {
		return false
	}
	o := a.cfg.Hooks.Fire(ctx, hooks.TurnInput(ev, turn, string(stop)))
	a.notify(turn, o.Notices)
	if o.Stop {
		a.hookStopped("a "+string(ev)+" hook", o.StopReason)
	}
	return o.Stop
}

// stopState is a run's record of Stop hooks sending the model back.
type stopState struct {
	active bool // a Stop hook has sent the model back in this run
	times  int  // how many times in a row
}

// stopHooks runs the Stop hooks once the model is done and reports
// whether it goes on: a hook blocked the stop (its reason is the model's
// next instruction) or gave it feedback to act on.
func (a *Agent) stopHooks(ctx context.Context, st *stopState, turn int, last string) bool {
	if a.cfg.Hooks == nil {
		return false
	}
	o := a.cfg.Hooks.Fire(ctx, hooks.StopInput(st.active, last))
	a.notify(turn, o.Notices)
	switch {
	case o.Stop:
		a.hookStopped("a Stop hook", o.StopReason)
		return false
	case !o.Block && len(o.Context) == 0:
		return false
	case st.times >= stopHookCap:
		a.send(Event{Type: EventNotice, Turn: turn, Text: fmt.Sprintf("Stop hooks sent the model back %d times in a row; nova lets it stop", stopHookCap)})
		return false
	}
	st.active, st.times = true, st.times+1
	msg := llm.Message{Role: llm.RoleUser}
	if o.Block {
		msg.Parts = append(msg.Parts, llm.TextPart("Stop hook feedback:\n"+o.Reason))
	}
	for _, c := range o.Context {
		msg.Parts = append(msg.Parts, llm.TextPart(c))
	}
	if err := a.appendMessage(msg); err != nil {
		a.send(Event{Type: EventNotice, Turn: turn, Text: err.Error()})
	}
	return true
}

// hookStopped tells the person a hook (who) stopped the run
// ("continue": false), with its reason.
func (a *Agent) hookStopped(who, reason string) {
	text := who + " stopped the run"
	if reason != "" {
		text += ": " + reason
	}
	a.send(Event{Type: EventNotice, Text: text})
}

// toolHookStop is the stop a tool call's hooks asked for, or nil.
func toolHookStop(outs []tools.Outcome) *string {
	for _, o := range outs {
		if o.Hook != nil && o.Hook.Stop {
			return &o.Hook.StopReason
		}
	}
	return nil
}

// compactHooks runs PreCompact hooks; a block is ErrCompactionBlocked.
func (a *Agent) compactHooks(ctx context.Context, trigger, instructions string) error {
	if a.cfg.Hooks == nil {
		return nil
	}
	o := a.cfg.Hooks.Fire(ctx, hooks.PreCompactInput(trigger, instructions))
	a.notify(0, o.Notices)
	if o.Block {
		return fmt.Errorf("%w: %s", ErrCompactionBlocked, strings.TrimSpace(o.Reason))
	}
	return nil
}

// compactedHooks runs, after a summary was made, SessionStart hooks with
// source "compact" (their context joins the summary, the new start of the
// conversation) and returns the text to keep.
func (a *Agent) compactedHooks(ctx context.Context, text string) string {
	if a.cfg.Hooks == nil {
		return text
	}
	o := a.cfg.Hooks.Fire(ctx, hooks.SessionStartInput("compact", a.cfg.Model))
	a.notify(0, o.Notices)
	for _, c := range o.Context {
		text += "\n\n" + c
	}
	return text
}
