package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// handRunner is a run the test drives by hand: it emits what the test
// sends and, when cancelled, says interrupted and ends.
type handRunner struct {
	feed chan agent.Event
	runs int
}

func newHandRunner() *handRunner { return &handRunner{feed: make(chan agent.Event)} }

func (h *handRunner) Run(ctx context.Context, _ llm.Message) <-chan agent.Event {
	h.runs++
	out := make(chan agent.Event)
	go func() {
		defer close(out)
		for {
			select {
			case ev, ok := <-h.feed:
				if !ok {
					return
				}
				out <- ev
				if ev.Type == agent.EventDone {
					return
				}
			case <-ctx.Done():
				out <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Subtype: agent.SubtypeInterrupted}}
				return
			}
		}
	}()
	return out
}

func text(s string) agent.Event { return agent.Event{Type: agent.EventTextDelta, Text: s} }

func next(t *testing.T, sub *Sub[agent.Event]) Frame[agent.Event] {
	t.Helper()
	select {
	case f, ok := <-sub.C():
		if !ok {
			t.Fatal("subscription closed")
		}
		return f
	case <-time.After(5 * time.Second):
		t.Fatal("no frame")
	}
	return Frame[agent.Event]{}
}

func waitState(t *testing.T, s *Session, want State) int64 {
	t.Helper()
	for i := 0; i < 500; i++ {
		st, last := s.Status()
		if st == want {
			return last
		}
		time.Sleep(2 * time.Millisecond)
	}
	st, _ := s.Status()
	t.Fatalf("state %q, want %q", st, want)
	return 0
}

func TestSessionRunSlotReplayDetach(t *testing.T) {
	r := newHandRunner()
	s := NewSession(context.Background(), "s1", r)
	if st, _ := s.Status(); st != StateNone {
		t.Fatalf("new session state %q", st)
	}
	sub, err := s.Start(llm.UserText("hi"))
	if err != nil {
		t.Fatal(err)
	}
	// D1: one run at a time.
	if _, err := s.Start(llm.UserText("again")); !errors.Is(err, ErrBusy) {
		t.Fatalf("second start: %v, want ErrBusy", err)
	}
	r.feed <- text("a")
	r.feed <- text("b")
	if f := next(t, sub); f.Seq != 1 || f.Value.Text != "a" {
		t.Fatalf("first frame %+v", f)
	}
	next(t, sub)
	if st, last := s.Status(); st != StateActive || last != 2 {
		t.Errorf("status %s %d, want active 2", st, last)
	}
	// D4: the watcher leaves; the run goes on, detached.
	sub.Close()
	if st, _ := s.Status(); st != StateDetached {
		t.Errorf("after the watcher left: %s", st)
	}
	r.feed <- text("c")
	waitLast := func(n int64) {
		for i := 0; i < 500; i++ {
			if _, last := s.Status(); last == n {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
		t.Fatalf("last seq never reached %d", n)
	}
	waitLast(3)
	// D3: back from the last frame seen: the missed one, then live.
	back, replay, resync, ok := s.Subscribe(2)
	if !ok || resync || len(replay) != 1 || replay[0].Value.Text != "c" {
		t.Fatalf("rejoin: ok %v resync %v replay %+v", ok, resync, replay)
	}
	r.feed <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Subtype: agent.SubtypeSuccess}}
	if f := next(t, back); f.Seq != 4 || f.Value.Type != agent.EventDone {
		t.Fatalf("live frame %+v", f)
	}
	if _, open := <-back.C(); open {
		t.Error("the subscription stays open after the run")
	}
	waitState(t, s, StateDone)
	// The slot is free again, and numbers go on.
	sub2, err := s.Start(llm.UserText("more"))
	if err != nil {
		t.Fatal(err)
	}
	r.feed <- text("d")
	if f := next(t, sub2); f.Seq != 5 {
		t.Errorf("the next run's first frame is %d, want 5", f.Seq)
	}
	// Interrupt of a detached run frees the slot before it returns.
	sub2.Close()
	if !s.Interrupt() {
		t.Fatal("Interrupt found no run")
	}
	if st, _ := s.Status(); st != StateDone {
		t.Errorf("after interrupt: %s", st)
	}
	_, replay, _, _ = s.Subscribe(5)
	if len(replay) != 1 || replay[0].Value.Done == nil || replay[0].Value.Done.Subtype != agent.SubtypeInterrupted {
		t.Errorf("the log does not end with the interruption: %+v", replay)
	}
	if s.Interrupt() {
		t.Error("a second interrupt found a run")
	}
	// Close drops the log and refuses runs.
	s.Close()
	if _, _, _, ok := s.Subscribe(0); ok {
		t.Error("the log outlived Close")
	}
	if _, err := s.Start(llm.UserText("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("start after close: %v", err)
	}
}

// An ask is answered once, and only through its own session; the answer
// reaches the tool call.
func TestSessionAsksBoundToSession(t *testing.T) {
	ran := make(chan struct{}, 1)
	s1 := NewSession(context.Background(), "s1", askingAgent(t, ran))
	s2 := NewSession(context.Background(), "s2", askingAgent(t, nil))
	defer s1.Close()
	defer s2.Close()
	sub, err := s1.Start(llm.UserText("x"))
	if err != nil {
		t.Fatal(err)
	}
	var ask *agent.PermissionAsk
	for ask == nil {
		if f := next(t, sub); f.Value.Type == agent.EventPermissionAsk {
			ask = f.Value.Ask
		}
	}
	if p := s1.Pending(); len(p) != 1 || p[0].RequestID != ask.RequestID {
		t.Errorf("pending = %+v", p)
	}
	if err := s2.Answer(ask.RequestID, agent.PermissionAnswer{Allow: true}); !errors.Is(err, ErrNoAsk) {
		t.Errorf("another session answered: %v", err)
	}
	if err := s1.Answer(ask.RequestID, agent.PermissionAnswer{Allow: true}); err != nil {
		t.Fatalf("answer: %v", err)
	}
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the allowed call did not run")
	}
	if err := s1.Answer(ask.RequestID, agent.PermissionAnswer{}); !errors.Is(err, ErrNoAsk) {
		t.Errorf("a second answer: %v", err)
	}
	s1.Wait()
	if p := s1.Pending(); len(p) != 0 {
		t.Errorf("pending after the run = %+v", p)
	}
}

// closeIdle leaves a session with a run going on, watched or detached,
// as it is; an idle one it closes, refusing any later run.
func TestSessionCloseIdle(t *testing.T) {
	r := newHandRunner()
	s := NewSession(context.Background(), "s1", r)
	sub, err := s.Start(llm.UserText("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if s.closeIdle() {
		t.Fatal("closeIdle closed a session with an active run")
	}
	sub.Close()
	waitState(t, s, StateDetached)
	if s.closeIdle() {
		t.Fatal("closeIdle closed a session with a detached run")
	}
	if _, err := s.Start(llm.UserText("again")); !errors.Is(err, ErrBusy) {
		t.Errorf("start during the run: %v, want ErrBusy (the session is still open)", err)
	}
	r.feed <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Result: "ok"}}
	waitState(t, s, StateDone)
	if !s.closeIdle() {
		t.Fatal("closeIdle did not close an idle session")
	}
	if _, err := s.Start(llm.UserText("later")); !errors.Is(err, ErrClosed) {
		t.Errorf("start after closeIdle: %v, want ErrClosed", err)
	}
	if r.runs != 1 {
		t.Errorf("%d runs, want 1", r.runs)
	}
}

// The run slot is free by the time the run's stream ends: whoever sees
// the end (a client's [DONE], POST /api/chat's answer) may start the next
// run, or change the workspace, at once and is not told the session is
// busy.
func TestSessionSlotFreeWhenStreamEnds(t *testing.T) {
	r := newHandRunner()
	s := NewSession(context.Background(), "s1", r)
	for i := range 200 {
		sub, err := s.Start(llm.UserText("hi"))
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		r.feed <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Result: "ok"}}
		for range sub.C() {
		}
		if st, _ := s.Status(); st != StateDone {
			t.Fatalf("run %d: state %q once its stream ended, want done", i, st)
		}
	}
}
