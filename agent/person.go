package agent

import (
	"context"
	"errors"

	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
)

// sinkKey carries, in the context of everything a run does, the run's
// event sink: a tool call reaches the person watching its own run, and a
// call made outside any run (the TUI's !cmd) reaches nobody.
type sinkKey struct{}

func withSink(ctx context.Context, send func(Event)) context.Context {
	return context.WithValue(ctx, sinkKey{}, send)
}

func sinkOf(ctx context.Context) func(Event) {
	send, _ := ctx.Value(sinkKey{}).(func(Event))
	return send
}

// Person is the tools.Asker of a session a person can answer: permission
// asks and questions become events of the run the call belongs to, and
// the call waits for the answer under its context (cancelled: a denial).
// A session nobody can answer (print mode) gives its Env no Asker.
type Person struct{}

// AskPermission implements tools.Asker.
func (Person) AskPermission(ctx context.Context, ask tools.PermissionAsk) tools.Approval {
	send := sinkOf(ctx)
	if send == nil {
		return tools.Approval{Message: "nobody was asked: the call was not made by a run"}
	}
	pa := &PermissionAsk{ID: ask.CallID, RequestID: "apr_" + newID(), Tool: ask.Tool, Input: ask.Input, Decision: ask.Decision,
		Suggestions: ask.Decision.Suggestions, Preview: ask.Preview, Host: ask.Host, reply: make(chan PermissionAnswer, 1)}
	send(Event{Type: EventPermissionAsk, Ask: pa})
	select {
	case ans := <-pa.reply:
		send(Event{Type: EventAnswered, Answered: &Answered{ID: pa.ID, RequestID: pa.RequestID, Allow: ans.Allow}})
		return ans.approval()
	case <-ctx.Done():
		return tools.Approval{Message: "interrupted"}
	}
}

// AskQuestions implements tools.Asker.
func (Person) AskQuestions(ctx context.Context, qs []tools.Question) ([]string, error) {
	send := sinkOf(ctx)
	if send == nil {
		return nil, errors.New("nobody to ask: the call was not made by a run")
	}
	q := &QuestionAsk{ID: newID(), Questions: qs, reply: make(chan []string, 1)}
	send(Event{Type: EventQuestion, Question: q})
	select {
	case ans := <-q.reply:
		send(Event{Type: EventAnswered, Answered: &Answered{ID: q.ID}})
		if ans == nil {
			return nil, errors.New("the user declined to answer")
		}
		return ans, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Notify is the Notify hook of a session's tools.Env: what a tool shows
// outside its result becomes an event of the run of ctx (the todo list,
// a todos event; a call's progress, a tool_progress event).
func Notify(ctx context.Context, d *display.Display) {
	send := sinkOf(ctx)
	if send == nil || d == nil {
		return
	}
	switch d.Kind {
	case display.KindTodos:
		send(Event{Type: EventTodos, Todos: append([]display.Todo{}, d.Todos...)})
	case display.KindProgress:
		if d.Progress != nil {
			p := *d.Progress
			send(Event{Type: EventToolProgress, Progress: &p})
		}
	}
}

// Notice tells the run of ctx something in words, as a notice event; it
// reports false when ctx belongs to no run. What runs inside a run and is
// not a tool (a command's expansion) tells its watchers with it.
func Notice(ctx context.Context, text string) bool { return notice(ctx, text) }

// notice tells the run of ctx something in words; it reports false when
// ctx belongs to no run.
func notice(ctx context.Context, text string) bool {
	send := sinkOf(ctx)
	if send == nil {
		return false
	}
	send(Event{Type: EventNotice, Text: text})
	return true
}
