// Package live is the live-session core below every frontend: per open
// session, the agent and its one run slot, every event of the run numbered
// in a bounded replay log, subscribers that join from any point and runs
// that go on with nobody watching, and the session's pending asks. The
// TUI, print mode and the server all run a session through it.
package live

import (
	"sync"
)

// ReplayFrames is how many frames a run's log keeps for subscribers that
// join late or come back (seed 000, D2).
const ReplayFrames = 500

// subscriberBuffer is how many frames may wait for one subscriber. One
// that falls further behind is dropped and told so (Sub.Dropped): it
// never holds up the run or the other subscribers.
const subscriberBuffer = 1024

// Frame is one value of a log with its sequence number.
type Frame[T any] struct {
	Seq   int64
	Value T
}

// Log is a numbered, bounded record of one run's frames, with
// subscribers. Sequence numbers only grow; the oldest frames are evicted
// past the capacity. It is safe for concurrent use.
type Log[T any] struct {
	mu     sync.Mutex
	frames []Frame[T] // oldest first
	cap    int
	start  int64 // the seq of the first frame ever appended
	next   int64 // the seq the next frame gets
	subs   map[*Sub[T]]struct{}
	ended  bool
}

// NewLog returns an empty log keeping capacity frames whose first frame
// will be numbered first (so numbers go on across a session's runs).
func NewLog[T any](capacity int, first int64) *Log[T] {
	if first < 1 {
		first = 1
	}
	return &Log[T]{cap: max(capacity, 1), start: first, next: first, subs: map[*Sub[T]]struct{}{}}
}

// Append numbers v, keeps it and hands it to every subscriber. A
// subscriber whose buffer is full is dropped, not waited for.
func (l *Log[T]) Append(v T) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return 0
	}
	f := Frame[T]{Seq: l.next, Value: v}
	l.next++
	if len(l.frames) == l.cap {
		copy(l.frames, l.frames[1:])
		l.frames = l.frames[:l.cap-1]
	}
	l.frames = append(l.frames, f)
	for s := range l.subs {
		select {
		case s.ch <- f:
		default:
			s.dropped = true
			l.removeLocked(s)
		}
	}
	return f.Seq
}

// End marks the log complete: no frame follows, and every subscriber's
// channel closes once it has drained what it was sent.
func (l *Log[T]) End() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	l.ended = true
	for s := range l.subs {
		l.removeLocked(s)
	}
}

// Ended reports whether End was called.
func (l *Log[T]) Ended() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// LastSeq is the number of the newest frame, or first-1 before any.
func (l *Log[T]) LastSeq() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next - 1
}

// FirstSeq is the number the log's first frame has, or will have.
func (l *Log[T]) FirstSeq() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.start
}

// Subscribers is how many watchers are attached (Follow's relays are
// not watchers).
func (l *Log[T]) Subscribers() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for s := range l.subs {
		if !s.relay {
			n++
		}
	}
	return n
}

// Follow is Subscribe for a relay that passes the frames on to watchers
// of its own (the server's stream encoder): it does not make a run count
// as watched.
func (l *Log[T]) Follow(cursor int64) (sub *Sub[T], replay []Frame[T], resync bool) {
	sub, replay, resync = l.Subscribe(cursor)
	l.mu.Lock()
	sub.relay = true
	l.mu.Unlock()
	return sub, replay, resync
}

// Subscribe returns the frames after cursor still kept, and a
// subscription for the frames to come (already closed when the log has
// ended). A cursor inside the kept window (from the frame before the
// oldest kept one to the newest) replays exactly what follows it. Any
// other cursor — from the future, evicted, negative — replays everything
// kept with resync set: the subscriber must reset to it rather than
// assume it continues what it had (seed 000, D2). Cursor 0 means "from
// the start" and is exact while nothing was evicted.
func (l *Log[T]) Subscribe(cursor int64) (sub *Sub[T], replay []Frame[T], resync bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := l.next // seq of the oldest kept frame
	if len(l.frames) > 0 {
		first = l.frames[0].Seq
	}
	switch {
	case cursor == 0 && first == l.start:
		replay = append(replay, l.frames...)
	case cursor >= first-1 && cursor <= l.next-1 && cursor > 0:
		replay = append(replay, l.frames[cursor-(first-1):]...)
	default:
		replay = append(replay, l.frames...)
		resync = true
	}
	sub = &Sub[T]{log: l, ch: make(chan Frame[T], subscriberBuffer)}
	if l.ended {
		close(sub.ch)
		sub.closed = true
	} else {
		l.subs[sub] = struct{}{}
	}
	return sub, replay, resync
}

func (l *Log[T]) removeLocked(s *Sub[T]) {
	delete(l.subs, s)
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
}

// Sub is one subscriber of a Log.
type Sub[T any] struct {
	log     *Log[T]
	ch      chan Frame[T]
	closed  bool // guarded by log.mu
	dropped bool // guarded by log.mu
	relay   bool // guarded by log.mu
}

// C delivers the frames after the replay; it is closed when the log
// ends, the subscriber leaves, or it fell behind (Dropped).
func (s *Sub[T]) C() <-chan Frame[T] { return s.ch }

// Close leaves the log; frames already sent stay readable.
func (s *Sub[T]) Close() {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	s.log.removeLocked(s)
}

// Dropped reports whether the log let go of the subscriber because it
// fell behind: it missed frames and must subscribe again from the last
// one it saw.
func (s *Sub[T]) Dropped() bool {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.dropped
}
