package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm/llmtest"
)

// A browser's prompt that asks: its ask is in the browser and in the
// terminal's dialog.
func sharedAsk(t *testing.T) (*harness, *sharedBackend, *browser, string) {
	t.Helper()
	h, b, br := newSharedWorld(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: `{"command":"touch made.txt && echo made-it"}`}}},
		llmtest.Turn{Text: "Made it."})
	br.send(`{"type":"prompt","session_id":%q,"text":"make a file"}`, b.rt.Session.ID())
	h.deliverRun(b.runs)
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	ask := br.until(event(agent.EventPermissionAsk))["event"].(map[string]any)["ask"].(map[string]any)
	return h, b, br, ask["request_id"].(string)
}

// The attack of issue 23: the browser approves, then the terminal's "n"
// comes before its dialog has closed. The first answer wins on every
// side: the approved command runs, the model is told it ran (not that it
// was interrupted), and the run goes on to its answer.
func TestSharedLateTerminalAnswerIsNoOp(t *testing.T) {
	h, b, br, req := sharedAsk(t)
	sid := b.rt.Session.ID()
	br.send(`{"type":"approve","session_id":%q,"request_id":%q,"approved":true,"id":"a1"}`, sid, req)
	br.until(func(m map[string]any) bool { return m["type"] == "ok" && m["id"] == "a1" })
	// The answered event is on its way to the terminal, not delivered
	// yet: its dialog is still open when the key comes.
	if len(h.m.dialogs) == 0 {
		t.Fatal("the dialog closed before the terminal's key")
	}
	h.press("n")
	h.waitFor(func() bool { return h.m.run == nil })
	res := br.until(event(agent.EventToolResult))["event"].(map[string]any)["result"].(map[string]any)
	if out, _ := res["output"].(string); !strings.Contains(out, "made-it") || res["denied"] == true {
		t.Errorf("the model was told %v, want the command's output", res)
	}
	done := br.until(event(agent.EventDone))["event"].(map[string]any)["done"].(map[string]any)
	if done["subtype"] == string(agent.SubtypeInterrupted) {
		t.Errorf("the run was interrupted by the late answer: %v", done)
	}
	if _, err := os.Stat(filepath.Join(b.rt.Workdir, "made.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	h.contains("Made it.")
	h.contains("answered in the browser first")
}

// The positive control: when the terminal answers first, its answer
// wins. Its "n" denies and stops the run; the browser's approve after it
// is refused as not pending, and the command never runs.
func TestSharedTerminalAnswerFirstWins(t *testing.T) {
	h, b, br, req := sharedAsk(t)
	sid := b.rt.Session.ID()
	h.press("n")
	h.waitFor(func() bool { return h.m.run == nil })
	br.send(`{"type":"approve","session_id":%q,"request_id":%q,"approved":true,"id":"a1"}`, sid, req)
	m := br.until(func(m map[string]any) bool { return m["id"] == "a1" })
	if m["type"] != "error" || !strings.Contains(m["detail"].(string), "not pending") {
		t.Errorf("the browser's approve after the terminal's answer: %v", m)
	}
	if _, err := os.Stat(filepath.Join(b.rt.Workdir, "made.txt")); err == nil {
		t.Error("the command the terminal denied ran")
	}
	if strings.Contains(h.screen(), "answered in the browser first") {
		t.Error("the terminal's own first answer was taken for a late one")
	}
}
