package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools"
)

// ShellOutcome is what a person's own command ("!cmd") came to.
type ShellOutcome struct {
	// Output is what the command printed (or why it did not run).
	Output string `json:"output"`
	// ExitCode is the command's exit status; -1 when it did not run.
	ExitCode int `json:"exit_code"`
	// Denied says the permission check (or the person) refused it.
	Denied bool `json:"denied,omitempty"`
	// Reason says why it was denied.
	Reason string `json:"reason,omitempty"`
}

// Shell runs command as the person's own Bash call ("!cmd") through the
// session's one pipeline, as a run of its own: its tool call, an ask it
// needs and its result are events on the returned channel, closed after
// the done event, as a model's call's are, so every frontend shows and
// answers them alike. The call is marked typed (their own words need no
// question), which is an input to the check, not a way around it: a
// deny rule, a dangerous command, plan mode and the sandbox still hold.
// The command and what it printed are a message of the conversation as
// the call returns (recordShell), so the transcript has it at once. The outcome is set before the channel
// closes. A run in progress refuses it, as it refuses a second run.
func (a *Agent) Shell(ctx context.Context, command string, out *ShellOutcome) <-chan Event {
	return a.op(ctx, func(ctx context.Context) *Done {
		*out = a.shell(ctx, command)
		done := &Done{Subtype: SubtypeSuccess, Result: out.Output, Denials: []Denial{}}
		if out.Denied {
			done.Denials = append(done.Denials, Denial{ToolName: "Bash", Reason: out.Reason})
		}
		return done
	}, func(msg string) { *out = ShellOutcome{Output: msg, ExitCode: -1, Denied: true, Reason: msg} })
}

// CompactRun is Compact (a person's /compact, not the automatic one) as
// a run of its own: its compaction event, the hooks' notices and an
// error go to whoever watches, and done ends it. *errOut is Compact's
// error, set before the channel closes.
func (a *Agent) CompactRun(ctx context.Context, instructions string, errOut *error) <-chan Event {
	return a.op(ctx, func(ctx context.Context) *Done {
		err := a.Compact(ctx, instructions)
		*errOut = err
		done := &Done{Subtype: SubtypeSuccess, Denials: []Denial{}}
		if err != nil {
			a.send(Event{Type: EventError, Text: err.Error()})
			done.Subtype, done.IsError, done.Error = SubtypeError, true, err.Error()
		}
		return done
	}, func(msg string) { *errOut = errors.New(msg) })
}

// op runs fn as a run that is not a prompt (Shell, CompactRun): it takes
// the agent as a run does, fn's events are the channel's, and the done
// event fn returns ends it. With a run in progress, busy is told why and
// the channel carries the error and a failed done.
func (a *Agent) op(ctx context.Context, fn func(ctx context.Context) *Done, busy func(msg string)) <-chan Event {
	ch := make(chan Event, 16)
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		msg := "a run is already in progress"
		busy(msg)
		go func() {
			ch <- Event{Type: EventError, Text: msg}
			ch <- Event{Type: EventDone, Done: &Done{Subtype: SubtypeError, IsError: true, Error: msg, Denials: []Denial{}}}
			close(ch)
		}()
		return ch
	}
	a.running, a.manual = true, true
	a.emit = func(ev Event) { ch <- ev }
	a.mu.Unlock()
	go func() {
		defer close(ch)
		rctx, scope := tools.WithRunScope(withSink(ctx, a.send))
		done := fn(rctx)
		scope.End()
		a.mu.Lock()
		a.running, a.manual, a.emit = false, false, nil
		a.mu.Unlock()
		ch <- Event{Type: EventDone, Done: done}
	}()
	return ch
}

// shell makes the typed call and tells the model what it printed.
func (a *Agent) shell(ctx context.Context, command string) ShellOutcome {
	input, err := json.Marshal(map[string]any{"command": command})
	if err != nil {
		return ShellOutcome{Output: err.Error(), ExitCode: -1}
	}
	if a.cfg.Pipeline == nil {
		return ShellOutcome{Output: "this session runs no tools", ExitCode: -1, Denied: true, Reason: "no tools"}
	}
	call := tools.Call{ID: "shell_" + newID(), Name: "Bash", Input: input, Typed: true}
	a.send(Event{Type: EventToolCall, ToolCall: &llm.ToolCall{ID: call.ID, Name: call.Name, Input: call.Input}})
	o := a.cfg.Pipeline.Run(ctx, call, a.cfg.Env)
	a.send(Event{Type: EventToolResult, Result: &ToolResult{
		ID: o.Call.ID, Name: o.Call.Name, Output: o.Result.Output, IsError: o.Result.IsError, Denied: o.Denied,
		Decision: o.Decision, SpillPath: o.SpillPath, DurationMS: o.Duration.Milliseconds(), Display: o.Result.Display,
	}})
	res := ShellOutcome{Output: o.Result.Output, ExitCode: -1}
	if o.Denied {
		res.Denied = true
		res.Reason = fmt.Sprintf("denied (%s): %s", o.Decision.Layer, o.Decision.Reason)
		res.Output = res.Reason
		return res
	}
	if d := o.Result.Display; d != nil && d.Command != nil {
		res.ExitCode = d.Command.ExitCode
	} else if !o.Result.IsError {
		res.ExitCode = 0
	}
	// Claude Code's words for a person's command, so the model reads it
	// as the person's, not as a call of its own.
	a.recordShell(ctx, fmt.Sprintf("<bash-input>%s</bash-input>\n<bash-stdout>%s</bash-stdout>", command, strings.TrimRight(res.Output, "\n")))
	return res
}

// recordShell makes text (a person's command and its output) a message
// of the conversation now, in history and the transcript, rather than a
// note for the next request: whoever reads the session's messages (GET
// .../messages, a frontend that reloads, a resume) has it at once, and
// the model reads it with the next request all the same. The first
// message of a session carries the context a run would put ahead of
// its prompt, so the context still rides in the first user message.
func (a *Agent) recordShell(ctx context.Context, text string) {
	a.mu.Lock()
	fresh := len(a.history) == 0
	a.mu.Unlock()
	parts := []llm.Part{llm.TextPart(text)}
	if fresh && a.cfg.Context != nil {
		if prefix := a.cfg.Context(ctx); prefix != "" {
			parts = append([]llm.Part{llm.TextPart(prefix)}, parts...)
		}
	}
	if err := a.appendMessage(llm.Message{Role: llm.RoleUser, Parts: parts}); err != nil {
		a.send(Event{Type: EventNotice, Text: err.Error()})
	}
}
