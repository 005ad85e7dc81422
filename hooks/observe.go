package hooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// Observation is one hook run seen from outside the engine: told as it
// starts (Done false) and again as it ends, for a frontend that shows
// hooks at work (Claude Code's hook_started and hook_response messages,
// --include-hook-events). It decides nothing.
type Observation struct {
	// ID is the run's, the same at its start and its end.
	ID string
	// Name is what the run fired for: the event, and the value its
	// matcher saw ("PreToolUse:Bash"), as Claude Code names hooks.
	Name  string
	Event Event
	// ToolUseID is the tool call the run is about (PreToolUse,
	// PostToolUse ...); "" for events of no call.
	ToolUseID string
	// Done says the run has ended; the fields below are set only then.
	Done bool
	// Stdout and Stderr are what the hook wrote (an http hook's body, a
	// callback's answer as stdout); Output is both, one after the other as
	// Claude Code joins them (each keeps its last newline).
	Stdout, Stderr, Output string
	// ExitCode is a command hook's exit code; nil for other kinds and for
	// a command that never exited (it could not start, was killed).
	ExitCode *int
	// Outcome is "success" (the hook answered: exit 0, or its answer
	// came), "error" (any other exit, or it could not answer), or
	// "cancelled" (the run it belonged to was interrupted).
	Outcome string
	// Problem says why the hook could not answer, when it could not.
	Problem string
}

// Observation outcomes.
const (
	OutcomeSuccess   = "success"
	OutcomeError     = "error"
	OutcomeCancelled = "cancelled"
)

// observerKey carries a run's observer in its context (WithObserver).
type observerKey struct{}

// WithObserver makes fn, rather than the session's Observe, the one told
// of the hook runs made under ctx: the agent makes a run's hooks events of
// the run, so a frontend writes them in order with the messages around
// them (a Stop hook after the answer it judges).
func WithObserver(ctx context.Context, fn func(Observation)) context.Context {
	return context.WithValue(ctx, observerKey{}, fn)
}

// observed runs h as run does, telling the run's observer (WithObserver),
// else the session's Observe, of its start and end when one is set.
func (e *Engine) observed(ctx context.Context, h *Hook, in Input, name string, payload []byte) reply {
	obs, _ := ctx.Value(observerKey{}).(func(Observation))
	if obs == nil {
		obs = e.s.Observe
	}
	if obs == nil {
		return e.run(ctx, h, in.Event, payload)
	}
	id := runID()
	call, _ := in.Fields["tool_use_id"].(string)
	obs(Observation{ID: id, Name: name, Event: in.Event, ToolUseID: call})
	r := e.run(ctx, h, in.Event, payload)
	o := Observation{ID: id, Name: name, Event: in.Event, ToolUseID: call, Done: true, Stdout: r.stdout, Stderr: r.stderr, Problem: r.broken}
	if r.prompt != nil {
		// A prompt or agent hook's verdict is its answer.
		o.Stdout = r.prompt.Reason
	}
	o.Output = o.Stdout + o.Stderr
	if r.broken != "" {
		if o.Output != "" && !strings.HasSuffix(o.Output, "\n") {
			o.Output += "\n"
		}
		o.Output += r.broken
	}
	switch {
	case r.broken != "" && ctx.Err() != nil:
		o.Outcome = OutcomeCancelled
	case r.broken != "" || r.code != 0:
		o.Outcome = OutcomeError
	default:
		o.Outcome = OutcomeSuccess
	}
	if h.Type == KindCommand && r.broken == "" {
		code := r.code
		o.ExitCode = &code
	}
	obs(o)
	return r
}

// runID names one hook run.
func runID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
