package live

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// A watcher that holds a run reaches every later run through Next, in
// order, even runs that started and ended before it looked; Next waits
// for a run to come and fails once the session is closed.
func TestRunChain(t *testing.T) {
	r := newHandRunner()
	s := NewSession(context.Background(), "s1", r)
	first := s.LastRun()
	if first.ID() != "" || first.LastSeq() != 0 {
		t.Fatalf("placeholder: id %q last %d", first.ID(), first.LastSeq())
	}
	if _, _, _, ok := first.Subscribe(0); ok {
		t.Fatal("the placeholder has a log")
	}

	// Next waits until a run starts.
	got := make(chan *RunRef, 1)
	go func() {
		n, err := first.Next(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- n
	}()
	done := func() { r.feed <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Result: "ok"}} }
	sub, err := s.Start(llm.UserText("one"))
	if err != nil {
		t.Fatal(err)
	}
	r.feed <- text("a")
	done()
	for range sub.C() {
	}
	var run1 *RunRef
	select {
	case run1 = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not return when the run started")
	}
	if run1.ID() == "" || run1 != s.LastRun() || run1.LastSeq() != 2 {
		t.Fatalf("run 1: id %q, last %d, is last %v", run1.ID(), run1.LastSeq(), run1 == s.LastRun())
	}
	_, replay, resync, ok := run1.Subscribe(0)
	if !ok || resync || len(replay) != 2 || replay[0].Value.Text != "a" {
		t.Fatalf("run 1 replay: ok %v resync %v %+v", ok, resync, replay)
	}

	// Two runs go by before the watcher asks: it still meets both, in order.
	var ids []string
	for _, in := range []string{"two", "three"} {
		sub, err := s.Start(llm.UserText(in))
		if err != nil {
			t.Fatal(err)
		}
		r.feed <- text(in)
		done()
		for range sub.C() {
		}
		ids = append(ids, s.LastRun().ID())
	}
	at := run1
	for i, want := range []string{"two", "three"} {
		n, err := at.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		_, replay, _, _ := n.Subscribe(0)
		if n.ID() != ids[i] || n.ID() == at.ID() || len(replay) == 0 || replay[0].Value.Text != want {
			t.Fatalf("run after %q: id %q (want %q), replay %+v", at.ID(), n.ID(), ids[i], replay)
		}
		at = n
	}

	// The last run waits for one more; ctx bounds the wait.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := at.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with a cancelled context: %v", err)
	}
	s.Close()
	if _, err := at.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Next after Close: %v, want ErrClosed", err)
	}
	// A session closed before any run says so too.
	idle := NewSession(context.Background(), "s2", newHandRunner())
	idle.Close()
	if _, err := idle.LastRun().Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Next on a session closed before it ran: %v", err)
	}
}
