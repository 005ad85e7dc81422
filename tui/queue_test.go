package tui

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
)

// A prompt sent while nova works waits under the transcript and goes, with
// any other queued prompt, as one message when the run ends.
func TestTUIQueuedPromptsSentWhenRunEnds(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{{Type: agent.EventTurnStart, Turn: 1}, text("working on it")}, {text("ran them"), done(agent.SubtypeSuccess)}}
	h := newHarness(t, b)
	h.typeText("first task")
	h.press("enter")
	h.typeText("then run the tests")
	h.press("enter")
	h.typeText("and commit")
	h.press("enter")
	h.contains("⏵ queued: then run the tests")
	h.contains("⏵ queued: and commit")
	if v := h.m.in.ta.Value(); v != "" {
		t.Errorf("input after queueing = %q, want empty", v)
	}
	if len(b.inputs) != 1 {
		t.Fatalf("%d runs started while the first one worked", len(b.inputs))
	}

	ch := b.chans[0]
	ch <- done(agent.SubtypeSuccess)
	close(ch)
	h.settle()
	if len(b.inputs) != 2 {
		t.Fatalf("runs = %d after the first ended, want the queued prompts sent", len(b.inputs))
	}
	if got := b.inputs[1].Text(); got != "then run the tests\n\nand commit" {
		t.Errorf("queued message = %q", got)
	}
	if strings.Contains(h.screen(), "queued:") {
		t.Errorf("the queue is still shown:\n%s", h.screen())
	}
}

// Esc interrupts and takes the queue back into the input; nothing is sent.
func TestTUIEscReturnsQueuedPrompts(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{{Type: agent.EventTurnStart, Turn: 1}, text("working on it")}}
	h := newHarness(t, b)
	h.typeText("first task")
	h.press("enter")
	h.typeText("queued one")
	h.press("enter")
	h.typeText("draft")
	h.press("esc")
	if v := h.m.in.ta.Value(); v != "queued one\n\ndraft" {
		t.Errorf("input after esc = %q", v)
	}
	ch := b.chans[0]
	ch <- done(agent.SubtypeInterrupted)
	close(ch)
	h.settle()
	if len(b.inputs) != 1 {
		t.Errorf("runs = %d, want the queued prompt not sent after an interrupt", len(b.inputs))
	}
}
