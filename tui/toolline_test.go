package tui

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools/display"
)

// A command too long for its line is cut, not the line: the duration
// and the result stay in view.
func TestTUILongCommandKeepsResult(t *testing.T) {
	long := "go test -race -count=1 -run 'TestSomething|TestSomethingElse|TestAThirdThing' ./internal/... ./cmd/..."
	b := newFake()
	b.runs = [][]agent.Event{{
		{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "b", Name: "Bash", Input: js(map[string]any{"command": long})}},
		{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "b", Name: "Bash", Output: "FAIL\n", DurationMS: 2300,
			Display: display.OfCommand(display.Command{Command: long, ExitCode: 1})}},
		done(agent.SubtypeSuccess),
	}}
	h := newHarness(t, b)
	h.typeText("test it")
	h.press("enter")
	var line string
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, "Bash(") {
			line = l
		}
	}
	if !strings.HasPrefix(line, "● Bash(go test -race") || !strings.HasSuffix(line, "…) · 2.3s · exit 1: FAIL") {
		t.Errorf("tool line %q: want the command cut and the result kept", line)
	}
	if w := len([]rune(line)); w > 80 {
		t.Errorf("tool line is %d wide at 80 columns", w)
	}
}
