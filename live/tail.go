package live

import "context"

// Tail hands fn the frames of replay, then those sub delivers, in order and
// each once, until the log ends (Tail reports true), ctx ends or fn returns
// false (false). A subscriber that fell behind and was let go (Dropped)
// subscribes again after the last frame handed, the same way it first did
// (Subscribe or Follow), so a slow reader misses nothing the log still
// holds; lost is set on the first frame handed after frames the log no
// longer held. Every frontend that follows a run reads it through Tail.
func Tail[T any](ctx context.Context, sub *Sub[T], replay []Frame[T], fn func(f Frame[T], lost bool) bool) bool {
	var last int64
	lost := false
	hand := func(f Frame[T]) bool {
		if last != 0 && f.Seq <= last {
			return true
		}
		ok := fn(f, lost)
		lost = false
		last = f.Seq
		return ok
	}
	for {
		for _, f := range replay {
			if !hand(f) {
				sub.Close()
				return false
			}
		}
	frames:
		for {
			select {
			case f, open := <-sub.C():
				if !open {
					break frames
				}
				if !hand(f) {
					sub.Close()
					return false
				}
			case <-ctx.Done():
				sub.Close()
				return false
			}
		}
		if !sub.Dropped() {
			return true
		}
		sub, replay, lost = sub.again(last)
	}
}

// again subscribes to the subscriber's log once more after cursor, as a
// relay when it was one.
func (s *Sub[T]) again(cursor int64) (*Sub[T], []Frame[T], bool) {
	s.log.mu.Lock()
	relay := s.relay
	s.log.mu.Unlock()
	if relay {
		return s.log.Follow(cursor)
	}
	return s.log.Subscribe(cursor)
}
