package tui

import (
	"strings"
	"testing"
)

// catalogBackend is a fake with /model's dialog: named, priced models,
// and a default that can be saved.
type catalogBackend struct {
	*modelBackend
	defaults []string
}

func (b *catalogBackend) ModelEntries() []ModelEntry {
	return []ModelEntry{
		{ID: "anthropic:claude-sonnet-5-5", Name: "Claude Sonnet 5.5", Alias: "sonnet", ContextWindow: 200_000, Price: "$2 in, $10 out /Mtok", Default: true},
		{ID: "anthropic:claude-opus-5-5", Name: "Claude Opus 5.5", Alias: "opus", ContextWindow: 200_000, Price: "$4 in, $20 out /Mtok"},
		{ID: "anthropic:claude-haiku-5-5", Name: "Claude Haiku 5.5", Alias: "haiku", ContextWindow: 200_000, Price: "$0.10 in, $0.50 out /Mtok"},
		{ID: "local:qwen3-coder", Name: "Qwen3 Coder", ContextWindow: 32_000},
	}
}

func (b *catalogBackend) SetDefaultModel(id string) (string, error) {
	b.defaults = append(b.defaults, id)
	return "default_model in ~/.nova/config.json", nil
}

// selectedLine is the dialog's highlighted line.
func (h *harness) selectedLine() string {
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, "❯ ") && strings.Contains(l, ". ") {
			return l
		}
	}
	return ""
}

// TestTUIModelDialog: /model names each model with its id, context size
// and price, the cursor starts on the model in use, enter switches the
// session only and d also saves the default; esc leaves all as it was.
func TestTUIModelDialog(t *testing.T) {
	f := newFake()
	f.status.Model = "anthropic:claude-opus-5-5"
	b := &catalogBackend{modelBackend: &modelBackend{fakeBackend: f}}
	h := newHarnessWith(t, b, f)
	h.typeText("/model")
	h.press("enter")
	for _, want := range []string{"Select a model", "Claude Sonnet 5.5 (sonnet) · default", "anthropic:claude-sonnet-5-5 · 200k context · $2 in, $10 out /Mtok",
		"Claude Opus 5.5 (opus) · ✔ current", "local:qwen3-coder · 32k context", "d switch and make default"} {
		h.contains(want)
	}
	if l := h.selectedLine(); !strings.Contains(l, "Claude Opus 5.5") {
		t.Errorf("cursor not on the current model: %q\n%s", l, h.screen())
	}
	h.press("esc")
	if len(b.set) != 0 || len(b.defaults) != 0 {
		t.Errorf("esc switched or saved: %v %v", b.set, b.defaults)
	}

	h.typeText("/model")
	h.press("enter")
	h.press("down")
	h.press("enter")
	h.contains("Model: anthropic:claude-haiku-5-5")
	if len(b.set) != 1 || b.set[0] != "anthropic:claude-haiku-5-5" || len(b.defaults) != 0 {
		t.Errorf("enter: set %v, defaults %v (want haiku, no default)", b.set, b.defaults)
	}

	h.typeText("/model")
	h.press("enter")
	if l := h.selectedLine(); !strings.Contains(l, "Claude Haiku 5.5") {
		t.Errorf("cursor not on the model switched to: %q", l)
	}
	h.press("up")
	h.press("d")
	if flat := strings.Join(strings.Fields(h.screen()), " "); !strings.Contains(flat, "Model: anthropic:claude-opus-5-5 · the default of new sessions from now on (default_model in ~/.nova/config.json)") {
		t.Errorf("d did not say where the default went:\n%s", h.screen())
	}
	if len(b.set) != 2 || b.set[1] != "anthropic:claude-opus-5-5" || len(b.defaults) != 1 || b.defaults[0] != "anthropic:claude-opus-5-5" {
		t.Errorf("d: set %v, defaults %v", b.set, b.defaults)
	}

	// d on the model in use saves the default without a switch.
	h.typeText("/model")
	h.press("enter")
	h.press("d")
	if len(b.set) != 2 || len(b.defaults) != 2 {
		t.Errorf("d on the current model: set %v, defaults %v", b.set, b.defaults)
	}
}
