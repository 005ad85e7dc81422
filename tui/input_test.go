package tui

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
)

// TestTUIBackslashEnterNewline: a backslash before Enter starts a new
// line instead of sending, and the prompt sent has the line break, not
// the backslash; ❯ is on the first line only.
func TestTUIBackslashEnterNewline(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{text("ok"), done(agent.SubtypeSuccess)}}
	h := newHarness(t, b)
	h.typeText(`first line\`)
	h.press("enter")
	if len(b.inputs) != 0 {
		t.Fatalf("backslash+enter sent the prompt: %+v", b.inputs)
	}
	h.typeText("second line")
	h.press("ctrl+j")
	h.typeText(`ends with \ inside`)
	s := h.screen()
	for _, want := range []string{"\n❯ first line\n", "\n  second line\n", "\n  ends with \\ inside\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("input lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, "❯"); n != 1 {
		t.Errorf("❯ shown %d times, want once (the first input line):\n%s", n, s)
	}
	h.press("enter")
	if len(b.inputs) != 1 {
		t.Fatalf("enter did not send: %d runs", len(b.inputs))
	}
	if got := b.inputs[0].Text(); got != "first line\nsecond line\nends with \\ inside" {
		t.Errorf("sent %q", got)
	}
}
