package live

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// A run started by Run is Local and one started by Start is not, each
// with the prompt that started it; Events gives a run's frames from its
// first to its done, to a watcher that came after the run started.
func TestRunLocalAndEvents(t *testing.T) {
	r := newHandRunner()
	s := NewSession(context.Background(), "s1", r)
	defer s.Close()
	ch := s.Run(context.Background(), llm.UserText("mine"))
	r.feed <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Result: "ok"}}
	for range ch {
	}
	own := s.LastRun()
	if !own.Local() || textOf(own.Input()) != "mine" {
		t.Errorf("Run's run: local %v, input %q", own.Local(), textOf(own.Input()))
	}

	sub, err := s.Start(llm.UserText("theirs"))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	other, err := own.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if other.Local() || textOf(other.Input()) != "theirs" {
		t.Errorf("Start's run: local %v, input %q", other.Local(), textOf(other.Input()))
	}
	r.feed <- text("a")
	evs := other.Events(context.Background())
	r.feed <- text("b")
	r.feed <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Result: "ok"}}
	var got []string
	for ev := range evs {
		got = append(got, string(ev.Type)+":"+ev.Text)
	}
	if want := "text_delta:a text_delta:b done:"; strings.Join(got, " ") != want {
		t.Errorf("events = %q, want %q", strings.Join(got, " "), want)
	}

	// The placeholder has none; a cancelled watcher's channel closes.
	if _, ok := <-NewSession(context.Background(), "s2", r).LastRun().Events(context.Background()); ok {
		t.Error("the placeholder had an event")
	}
	sub2, err := s.Start(llm.UserText("long"))
	if err != nil {
		t.Fatal(err)
	}
	defer sub2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	evs = s.LastRun().Events(ctx)
	cancel()
	select {
	case _, ok := <-evs:
		for ok {
			_, ok = <-evs
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Events did not end with its context")
	}
	s.Interrupt()
}

// An ask answered where the run showed it (the terminal) is no longer
// pending: an answer through the session after it (a browser's) is
// refused, and the first answer is the one the call got.
func TestAnswerAfterAnsweredElsewhere(t *testing.T) {
	ran := make(chan struct{}, 1)
	s := NewSession(context.Background(), "s1", askingAgent(t, ran))
	defer s.Close()
	sub, err := s.Start(llm.UserText("x"))
	if err != nil {
		t.Fatal(err)
	}
	var ask *agent.PermissionAsk
	for ask == nil {
		if f := next(t, sub); f.Value.Type == agent.EventPermissionAsk {
			ask = f.Value.Ask
		}
	}
	if !ask.Answer(agent.PermissionAnswer{Allow: true}) {
		t.Fatal("the first answer was not taken")
	}
	var answered *agent.Answered
	for answered == nil {
		if f := next(t, sub); f.Value.Type == agent.EventAnswered {
			answered = f.Value.Answered
		}
	}
	if answered.RequestID != ask.RequestID || !answered.Allow {
		t.Errorf("answered = %+v", answered)
	}
	if err := s.Answer(ask.RequestID, agent.PermissionAnswer{}); !errors.Is(err, ErrNoAsk) {
		t.Errorf("an answer after the terminal's: %v, want ErrNoAsk", err)
	}
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the allowed call did not run")
	}
}

func textOf(m llm.Message) string {
	var s string
	for _, p := range m.Parts {
		s += p.Text
	}
	return s
}
