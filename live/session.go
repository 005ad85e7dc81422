package live

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// Runner runs the agent of a session (an *agent.Agent).
type Runner interface {
	Run(ctx context.Context, input llm.Message) <-chan agent.Event
}

// ErrBusy is returned by Start while the session's run slot is taken
// (seed 000, D1): one run at a time per session.
var ErrBusy = errors.New("session is busy: a run is in progress")

// ErrNoAsk is returned when an answer names no pending ask of the
// session: unknown, already answered, or another session's.
var ErrNoAsk = errors.New("no such pending approval in this session")

// ErrClosed is returned once the session was closed.
var ErrClosed = errors.New("session is closed")

// State is where a session's run slot is.
type State string

// The states of a run slot (seed 000, D3's stream status).
const (
	// StateNone: the session has not run since it was opened.
	StateNone State = ""
	// StateActive: a run is going on and someone watches it.
	StateActive State = "active"
	// StateDetached: a run is going on with nobody watching (D4).
	StateDetached State = "detached"
	// StateDone: the last run ended; its log is still kept.
	StateDone State = "done"
)

// interruptWait bounds how long Interrupt waits for a cancelled run to
// wind down (tools killed, results written) before it returns.
const interruptWait = 10 * time.Second

// Session is one open session: its agent and its one run slot.
type Session struct {
	id     string
	runner Runner
	// base is the context runs start under: a run outlives the request
	// that started it (D4), not the session.
	base context.Context

	mu     sync.Mutex
	log    *Log[agent.Event] // of the current or last run; nil before any
	cancel context.CancelFunc
	done   chan struct{} // closed when the current run has ended
	// finishing says the current run has sent its done event: it is over
	// for whoever watches, though its goroutine has not quite let go.
	finishing bool
	asks      map[string]*agent.PermissionAsk
	questions questions // the AskUserQuestion questions pending (questions.go)
	watch     watchers  // who follows the session across runs (host_idle.go)
	closed    bool
	runs      *RunRef // the current or last run, for watchers of every run (runs.go)
}

// NewSession opens id for runs of runner. Runs are cancelled when ctx
// ends or the session is closed.
func NewSession(ctx context.Context, id string, runner Runner) *Session {
	return &Session{id: id, runner: runner, base: ctx, asks: map[string]*agent.PermissionAsk{}}
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

// Start takes the run slot and runs input, returning a subscription from
// the run's first frame, so the starter misses nothing. With the slot
// taken it returns ErrBusy.
func (s *Session) Start(input llm.Message) (*Sub[agent.Event], error) {
	sub, _, err := s.start(input, false, false, nil)
	return sub, err
}

// StartFunc takes the run slot for run, a run of the session that is not
// a prompt to the model (the person's own command: Controller.Shell):
// its events are numbered, kept and watched like a prompt's, its asks
// are the session's, and the slot is taken while it lasts. input is what
// the run is shown as. With the slot taken it returns ErrBusy.
func (s *Session) StartFunc(input llm.Message, run func(ctx context.Context) <-chan agent.Event) (*Sub[agent.Event], error) {
	sub, _, err := s.start(input, false, false, run)
	return sub, err
}

// StartRelay is Start for a relay (see Log.Follow): the run counts as
// detached until someone watches the relay's own stream.
func (s *Session) StartRelay(input llm.Message) (*Sub[agent.Event], error) {
	sub, _, err := s.start(input, true, false, nil)
	return sub, err
}

// start takes the slot for input; relay is StartRelay's, local Run's
// (RunRef.Local); run, when not nil, runs instead of the session's
// runner (StartFunc).
func (s *Session) start(input llm.Message, relay, local bool, run func(context.Context) <-chan agent.Event) (*Sub[agent.Event], *RunRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, ErrClosed
	}
	if s.running() && s.finishing {
		// A watcher that saw the last run's done event may start the next
		// at once: the slot is let go a moment later.
		done := s.done
		s.mu.Unlock()
		select {
		case <-done:
		case <-time.After(interruptWait):
		}
		s.mu.Lock()
		if s.closed {
			return nil, nil, ErrClosed
		}
	}
	if s.running() {
		return nil, nil, ErrBusy
	}
	first := int64(1)
	if s.log != nil {
		first = s.log.LastSeq() + 1
	}
	log := NewLog[agent.Event](ReplayFrames, first)
	ctx, cancel := context.WithCancel(s.base)
	done := make(chan struct{})
	s.log, s.cancel, s.done, s.finishing = log, cancel, done, false
	s.linkRun(log, input, local)
	var sub *Sub[agent.Event]
	if relay {
		sub, _, _ = log.Follow(0)
	} else {
		sub, _, _ = log.Subscribe(0)
	}
	var events <-chan agent.Event
	if run != nil {
		events = run(ctx)
	} else {
		events = s.runner.Run(ctx, input)
	}
	go s.pump(log, events, cancel, done)
	return sub, s.runs, nil
}

// pump numbers the run's events into its log, keeping the asks pending
// until they are answered or the run moves past them. The slot is freed
// before the log ends, so whoever sees the run's stream end may start the
// next run at once (not be told the session is busy).
func (s *Session) pump(log *Log[agent.Event], events <-chan agent.Event, cancel context.CancelFunc, done chan struct{}) {
	for ev := range events {
		s.questions.see(ev)
		switch {
		case ev.Type == agent.EventPermissionAsk && ev.Ask != nil:
			s.mu.Lock()
			s.asks[ev.Ask.RequestID] = ev.Ask
			s.mu.Unlock()
		case ev.Type == agent.EventAnswered && ev.Answered != nil:
			// Answered where the ask was shown (the terminal): an answer
			// through Answer now would come too late.
			s.forgetAsk(func(a *agent.PermissionAsk) bool { return a.RequestID == ev.Answered.RequestID })
		case ev.Type == agent.EventToolResult && ev.Result != nil:
			s.forgetAsk(func(a *agent.PermissionAsk) bool { return a.ID == ev.Result.ID })
		case ev.Type == agent.EventDone:
			s.mu.Lock()
			if s.done == done {
				s.finishing = true
			}
			s.mu.Unlock()
		}
		log.Append(ev)
	}
	// The run's context ended with it: whatever was still asked is moot.
	s.forgetAsk(func(*agent.PermissionAsk) bool { return true })
	s.questions.forgetAll()
	cancel()
	close(done)
	log.End()
}

func (s *Session) forgetAsk(match func(*agent.PermissionAsk) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, a := range s.asks {
		if match(a) {
			delete(s.asks, id)
		}
	}
}

// running reports whether the slot is taken; s.mu is held.
func (s *Session) running() bool {
	if s.done == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// Subscribe joins the current or last run from cursor (see
// Log.Subscribe). ok is false when the session has not run yet.
func (s *Session) Subscribe(cursor int64) (sub *Sub[agent.Event], replay []Frame[agent.Event], resync, ok bool) {
	s.mu.Lock()
	log := s.log
	s.mu.Unlock()
	if log == nil {
		return nil, nil, false, false
	}
	sub, replay, resync = log.Subscribe(cursor)
	return sub, replay, resync, true
}

// Follow is Subscribe for a relay (see Log.Follow).
func (s *Session) Follow(cursor int64) (sub *Sub[agent.Event], replay []Frame[agent.Event], resync, ok bool) {
	s.mu.Lock()
	log := s.log
	s.mu.Unlock()
	if log == nil {
		return nil, nil, false, false
	}
	sub, replay, resync = log.Follow(cursor)
	return sub, replay, resync, true
}

// Status says where the run slot is and the newest frame's number. A
// relay's own watchers are the relay's to count.
func (s *Session) Status() (State, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return StateNone, 0
	}
	last := s.log.LastSeq()
	switch {
	case !s.running():
		return StateDone, last
	case s.log.Subscribers() == 0:
		return StateDetached, last
	}
	return StateActive, last
}

// Busy says a run holds the slot and has not sent its done event yet.
func (s *Session) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running() && !s.finishing
}

// Pending returns the asks waiting for an answer, in no set order.
func (s *Session) Pending() []*agent.PermissionAsk {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*agent.PermissionAsk, 0, len(s.asks))
	for _, a := range s.asks {
		out = append(out, a)
	}
	return out
}

// Answer answers the pending ask requestID of this session, once. An id
// that is unknown, already answered (here, or where the run's frontend
// showed it) or another session's is ErrNoAsk.
func (s *Session) Answer(requestID string, ans agent.PermissionAnswer) error {
	s.mu.Lock()
	a, ok := s.asks[requestID]
	delete(s.asks, requestID)
	s.mu.Unlock()
	if !ok || !a.Answer(ans) {
		return ErrNoAsk
	}
	return nil
}

// Interrupt cancels the run in progress, watched or detached, and waits
// (a bounded time) for it to end, so the slot is free when it returns.
// It reports whether there was a run to interrupt.
func (s *Session) Interrupt() bool {
	s.mu.Lock()
	if !s.running() {
		s.mu.Unlock()
		return false
	}
	cancel, done, finishing := s.cancel, s.done, s.finishing
	s.mu.Unlock()
	if finishing {
		// Its done event is out: there is nothing left to interrupt.
		select {
		case <-done:
		case <-time.After(interruptWait):
		}
		return false
	}
	cancel()
	select {
	case <-done:
	case <-time.After(interruptWait):
	}
	return true
}

// Close interrupts any run, drops the log and refuses further runs.
func (s *Session) Close() {
	s.Interrupt()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.endRunsLocked()
	if s.log != nil {
		s.log.End()
	}
	s.log = nil
}

// closeIdle is Close for a session with no run going on: while a run is
// active or detached it leaves the session as it is and reports false.
// The check and the close are one step under the session's lock, so no
// run can start between them (and be cut by the close).
func (s *Session) closeIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running() {
		return false
	}
	s.closed = true
	s.endRunsLocked()
	if s.log != nil {
		s.log.End()
	}
	s.log = nil
	return true
}

// Wait blocks until the current run, if any, has ended.
func (s *Session) Wait() {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Spec describes a session to create.
type Spec struct {
	// AgentKey names the agent definition ("main" when empty).
	AgentKey string
	// Provider and Model override the agent's model; empty keeps it.
	Provider, Model string
	// Workspace is the session's directory; empty means the host's.
	Workspace string
}

// ErrNoSession is returned for a session id that does not exist.
var ErrNoSession = errors.New("no such session")
