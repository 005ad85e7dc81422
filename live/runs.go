package live

import (
	"context"

	"github.com/oklog/ulid/v2"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// RunRef is one run of a session, a link in the chain of the session's
// runs. A watcher that follows a session rather than one run (the
// server's WebSocket) goes from each run to the next with Next: it meets
// every run in the order they started, however quickly they follow each
// other, and learns of a new run the moment it starts, whoever started it.
//
// Before the session's first run, LastRun returns a placeholder: ID "",
// no log, and Next is the first run.
type RunRef struct {
	s     *Session
	id    string            // "" for the placeholder
	log   *Log[agent.Event] // nil for the placeholder
	input llm.Message       // what started the run
	local bool              // started by Run (see Local)
	next  *RunRef           // guarded by s.mu
	ready chan struct{}     // closed once next is set or the session is closed
}

// LastRun is the session's current or last run, or the placeholder
// before its first.
func (s *Session) LastRun() *RunRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastRunLocked()
}

// lastRunLocked is LastRun with s.mu held.
func (s *Session) lastRunLocked() *RunRef {
	if s.runs == nil {
		s.runs = &RunRef{s: s, ready: make(chan struct{})}
		if s.closed {
			close(s.runs.ready)
		}
	}
	return s.runs
}

// linkRun makes the run whose log is log the session's last; s.mu is
// held, so it is linked in the same step that gives the run the slot.
func (s *Session) linkRun(log *Log[agent.Event], input llm.Message, local bool) {
	prev := s.lastRunLocked()
	r := &RunRef{s: s, id: ulid.Make().String(), log: log, input: input, local: local, ready: make(chan struct{})}
	prev.next = r
	close(prev.ready)
	s.runs = r
}

// endRunsLocked tells whoever waits for a next run that none will come:
// the session is closed. s.mu is held.
func (s *Session) endRunsLocked() {
	r := s.lastRunLocked()
	select {
	case <-r.ready:
	default:
		close(r.ready)
	}
}

// ID names the run: a ULID, unique across sessions and server restarts,
// so a client that kept it can tell whether the session's run is still
// the one it followed. It is "" for the placeholder.
func (r *RunRef) ID() string { return r.id }

// Input is the message that started the run (the prompt); empty for the
// placeholder. Read it, do not modify it.
func (r *RunRef) Input() llm.Message { return r.input }

// Local reports whether the run was started by Run: by the frontend that
// drives the session in this process (the terminal UI), not by a
// server's client through Start. A terminal shared with browsers shows
// the runs that are not its own as they start (see Events).
func (r *RunRef) Local() bool { return r.local }

// Subscribe joins the run's log from cursor, with Log.Subscribe's rules
// (an ended run replays what it kept; its channel is already closed). ok
// is false for the placeholder, which has no log.
func (r *RunRef) Subscribe(cursor int64) (sub *Sub[agent.Event], replay []Frame[agent.Event], resync, ok bool) {
	if r.log == nil {
		return nil, nil, false, false
	}
	sub, replay, resync = r.log.Subscribe(cursor)
	return sub, replay, resync, true
}

// LastSeq is the number of the run's newest frame (0 for the
// placeholder): the next frame of the run, or of the session's next run,
// is numbered after it.
func (r *RunRef) LastSeq() int64 {
	if r.log == nil {
		return 0
	}
	return r.log.LastSeq()
}

// FirstSeq is the number of the run's first frame, sent or to come (1
// for the placeholder): a watcher that sends it has the run from its
// start.
func (r *RunRef) FirstSeq() int64 {
	if r.log == nil {
		return 1
	}
	return r.log.FirstSeq()
}

// Next waits for the run that started after this one and returns it. It
// returns ErrClosed once the session is closed with no later run, and
// ctx's error when ctx ends first.
func (r *RunRef) Next(ctx context.Context) (*RunRef, error) {
	select {
	case <-r.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.next == nil {
		return nil, ErrClosed
	}
	return r.next, nil
}
