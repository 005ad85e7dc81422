package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// scrollHistory is a session of a few prompts, each with an answer of
// many lines.
func scrollHistory() []llm.Message {
	var msgs []llm.Message
	for i := 1; i <= 4; i++ {
		var b strings.Builder
		for j := 1; j <= 12; j++ {
			fmt.Fprintf(&b, "Answer %d, line %d.\n\n", i, j)
		}
		msgs = append(msgs, llm.UserText(fmt.Sprintf("question %d", i)), llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart(b.String())}})
	}
	return msgs
}

// TestTUIScrolledMarker: scrolled up, the last line of the transcript
// says how many lines are below; End goes back to the bottom.
func TestTUIScrolledMarker(t *testing.T) {
	b := newFake()
	b.history = scrollHistory()
	h := newHarness(t, b)
	h.press("pgup")
	h.golden("scrolled_marker")
	h.contains("↓ 17 lines below · end to return")
	h.press("end")
	if s := h.screen(); strings.Contains(s, "lines below") || !strings.Contains(s, "Answer 4, line 12.") {
		t.Errorf("end did not return to the bottom:\n%s", s)
	}
	h.press("home")
	h.contains("question 1")
	h.contains("lines below")
	h.typeText("x") // in text, home and end are the cursor's
	h.press("end")
	h.contains("question 1")
}

// TestTUIScrolledViewHoldsWhileStreaming: text streaming in below a view
// scrolled up does not move it; the count of lines below grows.
func TestTUIScrolledViewHoldsWhileStreaming(t *testing.T) {
	b := newFake()
	b.history = scrollHistory()
	b.runs = [][]agent.Event{{{Type: agent.EventTurnStart, Turn: 1}}}
	h := newHarness(t, b)
	h.typeText("more")
	h.press("enter")
	h.press("pgup")
	before := h.screen()
	top := strings.Split(before, "\n")[:10]
	ch := b.chans[0]
	for i := 0; i < 5; i++ {
		ch <- text(fmt.Sprintf("Streamed paragraph %d.\n\n", i))
		h.settle()
		h.m.View()
	}
	after := h.screen()
	if got := strings.Split(after, "\n")[:10]; strings.Join(got, "\n") != strings.Join(top, "\n") {
		t.Errorf("the scrolled view moved while text streamed in:\n--- before ---\n%s\n--- after ---\n%s", before, after)
	}
	if !strings.Contains(after, "lines below") || strings.Contains(after, "Streamed paragraph") {
		t.Errorf("want the marker and none of the new text in view:\n%s", after)
	}
}

// TestTUIWheelArrowsDoNotRecall: without mouse capture a wheel comes as
// Up/Down. While the view is scrolled and the input is empty they scroll
// and never recall old prompts; a burst of them at the bottom is a wheel
// too, and the prompt its first arrow recalled is taken back.
func TestTUIWheelArrowsDoNotRecall(t *testing.T) {
	b := newFake()
	b.history = scrollHistory()
	b.runs = [][]agent.Event{{done(agent.SubtypeSuccess)}}
	h := newHarness(t, b)
	h.typeText("an old prompt")
	h.press("enter")

	h.press("pgup")
	off := h.m.tr.offset
	h.press("up")
	h.press("up")
	if v := h.m.in.ta.Value(); v != "" {
		t.Fatalf("up while scrolled recalled %q", v)
	}
	if h.m.tr.offset != off+2*wheelLines {
		t.Errorf("offset %d after two ups, want %d", h.m.tr.offset, off+2*wheelLines)
	}
	h.press("down")
	if h.m.tr.offset != off+wheelLines || h.m.in.ta.Value() != "" {
		t.Errorf("down: offset %d, input %q", h.m.tr.offset, h.m.in.ta.Value())
	}

	// At the bottom, a burst: arrows microseconds apart.
	h.press("end")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h.m.arrowClock = func() time.Time { at = at.Add(time.Millisecond); return at }
	h.press("up")
	h.press("up")
	h.press("up")
	if v := h.m.in.ta.Value(); v != "" {
		t.Errorf("a wheel burst left %q in the input", v)
	}
	if h.m.tr.offset != 3*wheelLines {
		t.Errorf("offset %d after a burst of three, want %d", h.m.tr.offset, 3*wheelLines)
	}

	// A person's Up at the bottom still recalls the last prompt.
	h.press("end")
	h.m.arrowClock = func() time.Time { at = at.Add(time.Second); return at }
	h.press("up")
	if v := h.m.in.ta.Value(); v != "an old prompt" {
		t.Errorf("up at the bottom recalled %q", v)
	}
	h.press("up") // and, the input not empty, goes on browsing
	if h.m.tr.offset != 0 {
		t.Errorf("browsing the history scrolled the view to %d", h.m.tr.offset)
	}
}

// TestTUIMouseWheelScrolls: a wheel the terminal reports as a mouse event.
func TestTUIMouseWheelScrolls(t *testing.T) {
	b := newFake()
	b.history = scrollHistory()
	h := newHarness(t, b)
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if h.m.tr.offset != wheelLines {
		t.Errorf("offset %d, want %d", h.m.tr.offset, wheelLines)
	}
	h.contains("lines below")
}
