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
func (s *Session) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	out := make(chan agent.Event, 64)
	sub, err := s.Start(input)
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
		var last int64
		for {
			for f := range sub.C() {
				last = f.Seq
				out <- f.Value
			}
			if !sub.Dropped() {
				return
			}
			next, replay, _, ok := s.Subscribe(last)
			if !ok {
				return
			}
			for _, f := range replay {
				if f.Seq > last {
					last = f.Seq
					out <- f.Value
				}
			}
			sub = next
		}
	}()
	return out
}
