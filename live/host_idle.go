package live

import (
	"sync"
	"time"
)

// Closing idle sessions. Each open session of a Host holds its
// transcript's lock and runs its own MCP servers, so a server that keeps
// every session it has touched open grows without end. CloseIdle closes
// the sessions nobody uses; the next request opens them again from their
// transcript, as after a restart.

// watchers counts who follows a session between runs.
type watchers struct {
	mu sync.Mutex
	n  int
}

// Watch says someone follows the session across runs (a WebSocket
// subscription): a Host does not close a watched session for being idle.
// Call release when done following it.
func (s *Session) Watch() (release func()) {
	s.watch.mu.Lock()
	s.watch.n++
	s.watch.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.watch.mu.Lock()
			s.watch.n--
			s.watch.mu.Unlock()
		})
	}
}

// Watched reports whether anyone follows the session (Watch).
func (s *Session) Watched() bool {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	return s.watch.n > 0
}

// CloseIdle closes, until stop is called or the host closes, every open
// session that for idle has had no request, no run and no watcher: its
// MCP servers stop and its lock is let go. A run, a watcher or a
// request (Open, Create, Context) keeps a session open; the next request
// after the close opens it again. A session closes between about 0.9 and
// 1.1 times idle after its last use. idle <= 0 closes none.
func (h *Host) CloseIdle(idle time.Duration) (stop func()) {
	if idle <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(max(idle/10, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				h.reap(idle, now)
			case <-done:
				return
			case <-h.ctx.Done():
				return
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

// reap closes the sessions idle at now. A session in use (running or
// watched) counts as used at now.
func (h *Host) reap(idle time.Duration, now time.Time) {
	h.mu.Lock()
	var closing []*Runtime
	var dones []func()
	for id, rt := range h.open {
		if rt.Live.Watched() {
			h.used[id] = now
			continue
		}
		if now.Sub(h.used[id]) < idle {
			continue
		}
		if !rt.Live.closeIdle() { // a run is going on
			h.used[id] = now
			continue
		}
		closing = append(closing, rt)
		dones = append(dones, h.detachLocked(id))
	}
	h.mu.Unlock()
	for i, rt := range closing {
		_ = rt.Close()
		dones[i]()
	}
}

// detachLocked takes session id out of the open ones to be closed; h.mu
// is held. Until closed is called (once the runtime has closed and let
// the transcript's lock go) a request for the session waits, rather than
// build a second runtime that would find the transcript locked.
func (h *Host) detachLocked(id string) (closed func()) {
	delete(h.open, id)
	delete(h.used, id)
	if h.closing == nil {
		h.closing = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	h.closing[id] = ch
	return func() {
		h.mu.Lock()
		if h.closing[id] == ch {
			delete(h.closing, id)
		}
		h.mu.Unlock()
		close(ch)
	}
}

// waitClosedLocked waits, h.mu held (and let go while waiting), until
// session id is not closing.
func (h *Host) waitClosedLocked(id string) {
	for {
		ch := h.closing[id]
		if ch == nil {
			return
		}
		h.mu.Unlock()
		<-ch
		h.mu.Lock()
	}
}

// touchLocked records a use of session id; h.mu is held.
func (h *Host) touchLocked(id string) {
	if h.used == nil {
		h.used = map[string]time.Time{}
	}
	h.used[id] = time.Now()
}
