package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
)

// statusCmdBackend is a fake with a statusLine command whose answers the
// test scripts, one per run of it.
type statusCmdBackend struct {
	*fakeBackend
	answers []statusLineMsg
	seen    []Status
}

func (b *statusCmdBackend) HasStatusLine() bool { return true }

func (b *statusCmdBackend) StatusLine(_ context.Context, s Status) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = append(b.seen, s)
	if len(b.answers) == 0 {
		return "", errors.New("no more answers")
	}
	a := b.answers[0]
	b.answers = b.answers[1:]
	return a.text, a.err
}

// lineAboveStatus is the screen's line over nova's own status line.
func (h *harness) lineAboveStatus() string {
	lines := strings.Split(strings.TrimRight(h.screen(), "\n"), "\n")
	return lines[len(lines)-2]
}

// TestTUIStatusLineCommand: when a turn ends the command runs with the
// session's status and its line shows above nova's status line, colours
// kept and other escapes dropped; nova's own line stays; a command that
// fails shows nothing, and the UI goes on.
func TestTUIStatusLineCommand(t *testing.T) {
	f := newFake()
	turn := []agent.Event{{Type: agent.EventTurnStart, Turn: 1}, text("Done."), {Type: agent.EventTurnEnd, Turn: 1}, done(agent.SubtypeSuccess)}
	f.runs = [][]agent.Event{turn, turn}
	b := &statusCmdBackend{fakeBackend: f, answers: []statusLineMsg{
		{text: "\x1b[2J\x1b[32mmain\x1b[0m ✓ ctx-ok\x07"},
		{err: errors.New("exited 1")},
	}}
	h := newHarnessWith(t, b, f)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 24})
	h.typeText("go")
	h.press("enter")
	h.contains("Done.")
	if got := h.lineAboveStatus(); got != "main ✓ ctx-ok" {
		t.Errorf("line above the status line = %q", got)
	}
	if !strings.HasPrefix(h.statusLine(), "anthropic:claude-sonnet-4-5") {
		t.Errorf("nova's status line = %q", h.statusLine())
	}
	if len(b.seen) == 0 || b.seen[0].SessionID != "01JTEST" {
		t.Errorf("the command was given %+v", b.seen)
	}
	if s := safeLine("\x1b[2J\x1b[32mmain\x1b[0m\x1b]0;title\x07 x"); strings.Contains(s, "\x1b[2J") || strings.Contains(s, "\x1b]") || !strings.Contains(s, "\x1b[32m") {
		t.Errorf("safeLine kept %q", s)
	}

	h.typeText("again")
	h.press("enter")
	h.contains("Done.")
	if got := h.lineAboveStatus(); strings.Contains(got, "ctx-ok") {
		t.Errorf("a failing command left %q", got)
	}
	h.typeText("still here")
	if !strings.Contains(h.screen(), "still here") {
		t.Error("the UI stopped taking input after a failing status command")
	}
}

// TestTUIStatusLineCoalesced: refreshes asked for while a run of the
// command is under way make one more run, not one each.
func TestTUIStatusLineCoalesced(t *testing.T) {
	f := newFake()
	b := &statusCmdBackend{fakeBackend: f, answers: []statusLineMsg{{text: "one"}, {text: "two"}, {text: "three"}}}
	m := New(context.Background(), b, Options{})
	first := m.refreshStatusLine()
	if first == nil || m.refreshStatusLine() != nil || m.refreshStatusLine() != nil {
		t.Fatal("a second run started while one was under way")
	}
	next := m.statusLineDone(first().(statusLineMsg))
	if m.sl.text != "one" || next == nil {
		t.Fatalf("text %q, follow-up %v", m.sl.text, next)
	}
	if m.statusLineDone(next().(statusLineMsg)) != nil || m.sl.text != "two" {
		t.Errorf("text %q after the follow-up", m.sl.text)
	}
	if len(b.seen) != 2 {
		t.Errorf("ran %d times, want 2", len(b.seen))
	}
}
