package live

import (
	"testing"
)

func seqs[T any](fs []Frame[T]) []int64 {
	out := []int64{}
	for _, f := range fs {
		out = append(out, f.Seq)
	}
	return out
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func span(from, to int64) []int64 {
	out := []int64{}
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// The replay window of D2: a cursor inside the kept frames replays exactly
// what follows; an unknown one (future, evicted, negative) replays all
// that is kept and says resync.
func TestLogReplayWindow(t *testing.T) {
	l := NewLog[int](5, 1)
	for i := 0; i < 8; i++ { // frames 1..8; 4..8 kept
		l.Append(i)
	}
	for _, tt := range []struct {
		name   string
		cursor int64
		want   []int64
		resync bool
	}{
		{"just before the oldest kept", 3, span(4, 8), false},
		{"inside", 6, span(7, 8), false},
		{"the newest", 8, []int64{}, false},
		{"future", 9, span(4, 8), true},
		{"evicted", 2, span(4, 8), true},
		{"negative", -1, span(4, 8), true},
		{"from the start, after evictions", 0, span(4, 8), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sub, replay, resync := l.Subscribe(tt.cursor)
			defer sub.Close()
			if !equal(seqs(replay), tt.want) || resync != tt.resync {
				t.Errorf("cursor %d: replay %v resync %v, want %v %v", tt.cursor, seqs(replay), resync, tt.want, tt.resync)
			}
		})
	}
	fresh := NewLog[int](5, 10) // a later run of the session
	fresh.Append(1)
	if _, replay, resync := fresh.Subscribe(0); resync || !equal(seqs(replay), []int64{10}) {
		t.Errorf("from the start of a later run: %v %v", seqs(replay), resync)
	}
	if _, replay, resync := fresh.Subscribe(9); resync || !equal(seqs(replay), []int64{10}) {
		t.Errorf("from the previous run's last frame: %v %v", seqs(replay), resync)
	}
}

// A subscriber that stops reading is dropped and told so; the others and
// the writer go on.
func TestLogDropsSlowSubscriber(t *testing.T) {
	l := NewLog[int](ReplayFrames, 1)
	slow, _, _ := l.Subscribe(0)
	fast, _, _ := l.Subscribe(0)
	n := 0
	for i := 0; i < subscriberBuffer+10; i++ {
		l.Append(i) // never blocks on slow
		if f := <-fast.C(); f.Seq == int64(i+1) {
			n++
		}
	}
	l.End()
	if _, open := <-fast.C(); open || fast.Dropped() || n != subscriberBuffer+10 {
		t.Errorf("the reading subscriber got %d frames in order (dropped %v)", n, fast.Dropped())
	}
	if !slow.Dropped() {
		t.Fatal("the subscriber that never read was not dropped")
	}
	kept := 0
	for range slow.C() {
		kept++
	}
	if kept != subscriberBuffer {
		t.Errorf("the dropped subscriber can still read the %d frames it was sent, got %d", subscriberBuffer, kept)
	}
	// It comes back from its last frame and the log replays the rest.
	_, replay, resync := l.Subscribe(int64(kept))
	if resync || len(replay) != 10 {
		t.Errorf("rejoin: %d frames, resync %v", len(replay), resync)
	}
}

// After End a subscription is closed at once, with the replay.
func TestLogEnded(t *testing.T) {
	l := NewLog[string](ReplayFrames, 1)
	l.Append("a")
	l.End()
	if l.Append("b") != 0 {
		t.Error("a frame was appended after End")
	}
	sub, replay, _ := l.Subscribe(0)
	if _, open := <-sub.C(); open || len(replay) != 1 {
		t.Errorf("after End: open %v, replay %d", open, len(replay))
	}
}
