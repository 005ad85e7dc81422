package tui

import (
	"strings"
	"testing"
)

// hooksBackend is a fake backend with the HookList capability.
type hooksBackend struct {
	*fakeBackend
	report string
}

func (b *hooksBackend) HookReport() string { return b.report }

// TestTUIHooksListsHooks: /hooks is offered only by a backend that can
// list hooks, and shows what it says.
func TestTUIHooksListsHooks(t *testing.T) {
	plain := newHarness(t, newFake())
	for _, c := range plain.m.commandNames() {
		if c == "/hooks" {
			t.Fatal("/hooks offered by a backend without hooks")
		}
	}
	b := &hooksBackend{fakeBackend: newFake(), report: "Hooks (1):\n  PreToolUse\n    Bash  command [python3 guard.py]  timeout 60s  (.claude/settings.json)\n"}
	h := newHarness(t, b.fakeBackend)
	h.m.b = b
	h.m.in.comp.commands = h.m.commandNames()
	h.typeText("/hooks")
	h.press("enter")
	h.contains("PreToolUse")
	h.contains("Bash  command [python3 guard.py]  timeout 60s  (.claude/settings.json)")
	if !strings.Contains(strings.Join(h.m.commandNames(), " "), "/hooks /exit") {
		t.Errorf("commands = %v, want /hooks before /exit", h.m.commandNames())
	}
}
