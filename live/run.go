package live

import (
	"context"
	"errors"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// Run starts a run of input and returns its events as the agent would
// (Runner): a frontend that drives its session alone (print mode, the
// TUI) uses it in place of the agent, and so goes through the one run
// slot. Cancelling ctx interrupts the run. When the slot is taken the
// channel carries an error and a done event, as the agent's does. The
// channel is closed after the done event; it never misses a frame: if
// the reader falls behind it follows again from the last frame it got.
// The run is Local (RunRef.Local).
func (s *Session) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	out := make(chan agent.Event, 64)
	sub, run, err := s.start(input, false, true, nil)
	if err != nil {
		go func() {
			defer close(out)
			msg := err.Error()
			if errors.Is(err, ErrBusy) {
				msg = "a run is already in progress"
			}
			out <- agent.Event{Type: agent.EventError, Text: msg}
			out <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Subtype: agent.SubtypeError, IsError: true, Error: msg, Denials: []agent.Denial{}}}
		}()
		return out
	}
	go func() {
		defer close(out)
		stop := context.AfterFunc(ctx, func() { s.Interrupt() })
		defer stop()
		// The reader gets every frame, the interrupted run's done
		// included: nothing but the run's end ends the relay.
		run.relay(context.Background(), sub, nil, out)
	}()
	return out
}

// Events are the run's frames from its first one the log still holds,
// as Run gives its own: none is missed when the reader falls behind,
// and the channel closes after the run's last frame (at once for the
// placeholder), or when ctx ends. A frontend that drives the session
// shows a run a server's client started through it (see Local).
func (r *RunRef) Events(ctx context.Context) <-chan agent.Event {
	out := make(chan agent.Event, 64)
	sub, replay, _, ok := r.Subscribe(0)
	if !ok {
		close(out)
		return out
	}
	go func() {
		defer close(out)
		r.relay(ctx, sub, replay, out)
	}()
	return out
}

// relay sends the frames of replay and sub to out, in order, until the
// run's log ends or ctx does (see Tail).
func (r *RunRef) relay(ctx context.Context, sub *Sub[agent.Event], replay []Frame[agent.Event], out chan<- agent.Event) {
	Tail(ctx, sub, replay, func(f Frame[agent.Event], _ bool) bool {
		select {
		case out <- f.Value:
			return true
		case <-ctx.Done():
			return false
		}
	})
}
