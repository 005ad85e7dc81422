package live

import (
	"context"
	"errors"
)

// Controller is the operations of open session id (opened from its
// transcript when it is not open): the one implementation nova serve's
// model, mode, compact, shell and rules routes call, as the terminal
// does. A session has one controller while its runtime stays the same,
// so two switches of one session are made one after the other, not
// both on the same runtime.
func (h *Host) Controller(_ context.Context, id string) (*Controller, error) {
	// A controller's lock is taken without h.mu held: a switch holds it
	// while it takes h.mu (rebuilt), so the other order would deadlock.
	for range 3 {
		rt, err := h.runtime(id)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		c := h.ctls[id]
		h.mu.Unlock()
		if c != nil && c.Runtime() == rt {
			return c, nil
		}
		h.mu.Lock()
		if h.open[id] != rt || h.ctls[id] != c {
			// Replaced (a switch of c), closed, or given a controller by
			// another request since: look again.
			h.mu.Unlock()
			continue
		}
		if h.ctls == nil {
			h.ctls = map[string]*Controller{}
		}
		o := h.base
		o.Workdir, o.Model, o.AgentKey = rt.Workdir, rt.Selection.ID(), rt.Session.Meta().AgentKey
		c = ControllerFor(h.ctx, o, func(ctx context.Context, o Options) (*Runtime, error) { return h.rebuilt(ctx, id, o) }, rt)
		c.replacing = h.replacing
		h.ctls[id] = c
		h.mu.Unlock()
		return c, nil
	}
	// Closed (deleted, moved, idle) as often as it was opened.
	return nil, noSession(id, errors.New("closed"))
}

// replacing is told by a controller of the host that it is about to
// close session id's runtime and build the next: until settled, the
// session counts as being built, so a request for it waits for the new
// runtime (runtime) instead of getting the closed one.
func (h *Host) replacing(id string) (settled func()) {
	b := &hostBuild{done: make(chan struct{})}
	h.mu.Lock()
	delete(h.open, id)
	h.building[id] = b
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		if h.building[id] == b {
			delete(h.building, id)
		}
		h.mu.Unlock()
		close(b.done)
	}
}

// rebuilt is how a controller of the host replaces a session's runtime
// (a model switch): made as every runtime of the host is, and open in
// place of session was's runtime, under the id it has.
func (h *Host) rebuilt(ctx context.Context, was string, o Options) (*Runtime, error) {
	rt, err := h.make(ctx, o)
	if err != nil {
		return nil, err
	}
	id := rt.Session.ID()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		_ = rt.Close()
		return nil, ErrClosed
	}
	if was != id {
		// A failed switch's fresh session stands in for the old one, whose
		// runtime the controller has closed.
		delete(h.open, was)
		delete(h.ctls, was)
	}
	h.open[id] = rt
	h.touchLocked(id)
	return rt, nil
}

// Controller is the shared session's operations when the frontend that
// drives it gave them (NewSharedController); otherwise ErrShared.
func (h *Shared) Controller(_ context.Context, id string) (*Controller, error) {
	if _, err := h.runtime(id); err != nil {
		return nil, err
	}
	if h.ctl == nil {
		return nil, ErrShared
	}
	return h.ctl, nil
}

// NewSharedController is the host of the session c drives (the
// terminal's), whose operations the browser reaches through c: the same
// calls the terminal makes, on the same runtime.
func NewSharedController(c *Controller) *Shared {
	return &Shared{current: c.Runtime, ctl: c}
}
