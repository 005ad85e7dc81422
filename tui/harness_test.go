package tui

import (
	"testing"

	"github.com/nova-dev/nova/agent"
)

// The harness parks exactly the read of a run that has nothing more, with
// what was there already on the screen, and takes it up again when the test
// feeds the run: which commands wait is known, not timed.
func TestHarnessParksOnlyTheEmptyRunRead(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{{Type: agent.EventTurnStart, Turn: 1}, text("first part")}}
	h := newHarness(t, b)
	h.typeText("go")
	h.press("enter")
	if len(h.parked) != 1 || h.parked[0] != (<-chan agent.Event)(b.chans[0]) {
		t.Fatalf("parked = %v, want the run's channel alone", h.parked)
	}
	h.contains("first part")
	h.settle() // nothing fed: nothing to do, the read stays parked
	if len(h.parked) != 1 || h.m.run == nil {
		t.Fatalf("settle with nothing fed changed the run: parked %d, run %v", len(h.parked), h.m.run)
	}

	ch := b.chans[0]
	ch <- text(", second part")
	h.settle()
	h.contains("first part, second part")
	if len(h.parked) != 1 {
		t.Fatalf("parked = %d after one event, want the read parked again", len(h.parked))
	}
	ch <- done(agent.SubtypeSuccess)
	close(ch)
	h.settle()
	if len(h.parked) != 0 || h.m.run != nil {
		t.Errorf("after the run ended: parked %d, run %v", len(h.parked), h.m.run)
	}
}
