package live

import (
	"context"
	"testing"
)

// A reader that falls more than a subscriber buffer behind is let go by
// the log; Tail joins again and hands every frame once, in order.
func TestTailFollowsAgainAfterFallingBehind(t *testing.T) {
	n := subscriberBuffer * 3
	l := NewLog[int](n+10, 1)
	sub, replay, _ := l.Subscribe(0)
	for i := 1; i <= n; i++ {
		l.Append(i)
	}
	l.End()
	if !sub.Dropped() {
		t.Fatal("the subscriber was not dropped: the test does not provoke the re-follow")
	}
	var got []int
	lostSeen := false
	ended := Tail(context.Background(), sub, replay, func(f Frame[int], lost bool) bool {
		lostSeen = lostSeen || lost
		got = append(got, f.Value)
		return true
	})
	if !ended {
		t.Fatal("Tail did not report the log's end")
	}
	if len(got) != n {
		t.Fatalf("got %d frames, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("frame %d is %d: out of order or repeated", i, v)
		}
	}
	if lostSeen {
		t.Fatal("lost was set though the log kept every frame")
	}
}

// When the frames the reader missed were evicted, the first frame after
// the gap says so.
func TestTailSaysWhenFramesWereLost(t *testing.T) {
	n := subscriberBuffer * 3
	l := NewLog[int](subscriberBuffer, 1)
	sub, replay, _ := l.Subscribe(0)
	for i := 1; i <= n; i++ {
		l.Append(i)
	}
	l.End()
	var lostAt []int
	last := 0
	Tail(context.Background(), sub, replay, func(f Frame[int], lost bool) bool {
		if lost {
			lostAt = append(lostAt, f.Value)
		}
		if f.Value <= last {
			t.Fatalf("frame %d after %d", f.Value, last)
		}
		last = f.Value
		return true
	})
	if len(lostAt) != 1 || last != n {
		t.Fatalf("lost marked at %v, last frame %d; want one mark and the last frame %d", lostAt, last, n)
	}
}

// fn returning false stops Tail and leaves the log.
func TestTailStopsWhenTold(t *testing.T) {
	l := NewLog[int](10, 1)
	sub, replay, _ := l.Subscribe(0)
	l.Append(1)
	l.Append(2)
	if Tail(context.Background(), sub, replay, func(Frame[int], bool) bool { return false }) {
		t.Fatal("Tail reported the end of a log that has not ended")
	}
	if l.Subscribers() != 0 {
		t.Fatal("the subscriber is still on the log")
	}
}
