package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// modelBackend is a fake with /model: switching keeps the status figures,
// as interactiveBackend's does.
type modelBackend struct {
	*fakeBackend
	set []string
}

func (b *modelBackend) Models() []string {
	return []string{"anthropic:claude-sonnet-5-5", "anthropic:claude-opus-5-5", "anthropic:claude-haiku-5-5"}
}

func (b *modelBackend) SetModel(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.set = append(b.set, id)
	if id == "opus" {
		id = "anthropic:claude-opus-5-5"
	}
	b.status.Model = id
	return nil
}

// statusLine is the screen's last line.
func (h *harness) statusLine() string {
	lines := strings.Split(strings.TrimRight(h.screen(), "\n"), "\n")
	return lines[len(lines)-1]
}

// TestTUIStatusLineTokensAndCost: after a turn the status line shows the
// fresh input and the output apart from the cache reads (never one sum of
// all three), and the cost; /cost has every figure; a /model switch keeps
// them.
func TestTUIStatusLineTokensAndCost(t *testing.T) {
	f := newFake()
	u := llm.Usage{InputTokens: 900, CacheWriteTokens: 11_000, OutputTokens: 2_400, CacheReadTokens: 250_000}
	f.runs = [][]agent.Event{{{Type: agent.EventTurnStart, Turn: 1}, text("Done."), {Type: agent.EventTurnEnd, Turn: 1, Usage: &u}, done(agent.SubtypeSuccess)}}
	b := &modelBackend{fakeBackend: f}
	h := newHarnessWith(t, b, f)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	if s := h.statusLine(); strings.Contains(s, " in, ") || strings.Contains(s, "$") {
		t.Errorf("a token figure before any token: %q", s)
	}

	cost := 0.1234
	f.mu.Lock()
	f.status.Usage, f.status.CostUSD = u, &cost
	f.mu.Unlock()
	h.typeText("go")
	h.press("enter")
	h.contains("Done.")
	if s := h.statusLine(); !strings.Contains(s, "11.9k in, 2.4k out, 250.0k cached · $0.12") || strings.Contains(s, "264.3k") {
		t.Errorf("status line after the turn: %q", s)
	}

	h.typeText("/cost")
	h.press("enter")
	h.contains("Tokens this session: 900 input · 2.4k output · 250.0k cache read · 11.0k cache write")
	h.contains("Cost: $0.1234")

	h.typeText("/model opus")
	h.press("enter")
	h.contains("Model: anthropic:claude-opus-5-5")
	if s := h.statusLine(); !strings.HasPrefix(s, "anthropic:claude-opus-5-5") || !strings.Contains(s, "11.9k in, 2.4k out") || !strings.Contains(s, "$0.12") {
		t.Errorf("status line after /model opus: %q", s)
	}
	if len(b.set) != 1 || b.set[0] != "opus" {
		t.Errorf("SetModel calls = %q", b.set)
	}

	f.mu.Lock()
	f.status.CostUSD = nil
	f.mu.Unlock()
	h.typeText("/cost")
	h.press("enter")
	h.contains("Cost: unknown: no prices for anthropic:claude-opus-5-5")
}

// TestTUIModelPickerListsEveryModel: /model alone offers every model the
// backend lists.
func TestTUIModelPickerListsEveryModel(t *testing.T) {
	f := newFake()
	b := &modelBackend{fakeBackend: f}
	h := newHarnessWith(t, b, f)
	h.typeText("/model")
	h.press("enter")
	for _, id := range b.Models() {
		h.contains(id)
	}
	h.press("down")
	h.press("enter")
	h.contains("Model: anthropic:claude-opus-5-5")
}
