package live

import (
	"context"
	"errors"
)

// ForeignRun is a run of the session that the frontend in this process
// did not start (not Local: a browser's prompt, a server's !cmd), with
// the session it runs in (to interrupt it).
type ForeignRun struct {
	Session *Session
	Run     *RunRef
}

// ForeignRuns delivers every run of the current session that is not
// Local, as each starts after this call, until ctx ends or the
// controller is closed; then the channel is closed. When the session's
// runtime is replaced (/clear, /resume, /model) it follows the new one:
// the controller holds its lock from closing the old runtime until the
// new one is in place, so Runtime then returns the new one. A terminal
// that shares its session with browsers (/remote) shows these.
func (c *Controller) ForeignRuns(ctx context.Context) <-chan ForeignRun {
	out := make(chan ForeignRun)
	rt := c.Runtime()
	r := rt.Live.LastRun() // read now: a run that starts after the call is delivered
	go func() {
		defer close(out)
		for {
			next, err := r.Next(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case errors.Is(err, ErrClosed):
				now := c.Runtime()
				if now == rt {
					return // closed for good
				}
				rt, r = now, now.Live.LastRun()
				if r.ID() == "" || r.Local() {
					continue
				}
				next = r // a run in the new runtime was quicker than this loop
			case err != nil:
				return
			}
			r = next
			if r.Local() {
				continue
			}
			select {
			case out <- ForeignRun{Session: rt.Live, Run: r}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
