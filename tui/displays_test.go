package tui

import (
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools/display"
)

// Every display kind is shown by its own renderer: the one-line summary of
// the call, and with ctrl+o its body.
func TestTUIDisplayKinds(t *testing.T) {
	two := 2
	for _, tt := range []struct {
		tool    string
		output  string
		display *display.Display
		summary string
		body    string
	}{
		{"Bash", "boom\nfailed here", display.OfCommand(display.Command{Command: "make", ExitCode: 2}), "exit 2: failed here", "$ make"},
		{"Bash", "Command running in background with ID: bash_1", display.OfCommand(display.Command{Command: "sleep 9", Background: "bash_1"}), "running in the background as bash_1", "$ sleep 9"},
		{"BashOutput", "Status: failed (exit code 2)", display.OfShell(display.Shell{ID: "bash_1", Command: "x", Status: "failed", ExitCode: &two}), "bash_1 failed (exit 2)", "Status: failed"},
		{"Glob", "/w/a.go\n/w/b.go", display.OfSearch(display.Search{Count: 120, Unit: "files", Truncated: true, Denied: 3}), "120 files, not all shown, 3 left out by deny rules", "/w/a.go"},
		{"WebFetch", "# Notes", display.OfFetch(display.Fetch{URL: "https://x.test", Status: 200, Bytes: 2048, ContentType: "text/html"}), "200 · 2.0 KB · text/html", "# Notes"},
		{"TodoWrite", "Todos have been modified", display.OfTodos([]display.Todo{{Content: "Write it", Status: "completed", ActiveForm: "Writing it"}, {Content: "Test it", Status: "in_progress", ActiveForm: "Testing it"}}), "1/2 tasks done", "◐ Testing it"},
		{"AskUserQuestion", "The user answered", display.OfQuestions(display.Questions{Questions: []string{"Which name?"}, Answers: []string{"Twiddle"}}), "answered: Twiddle", "→ Twiddle"},
		{"ExitPlanMode", "Approved", display.OfPlan(display.Plan{Plan: "1. Rename Frob.", Approved: true, Mode: "acceptEdits"}), "plan approved · mode acceptEdits", "1. Rename Frob."},
	} {
		t.Run(string(tt.display.Kind)+"/"+tt.tool, func(t *testing.T) {
			b := newFake()
			b.runs = [][]agent.Event{{
				{Type: agent.EventTurnStart, Turn: 1},
				{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "t1", Name: tt.tool, Input: js(map[string]any{})}},
				{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "t1", Name: tt.tool, Output: tt.output, Display: tt.display}},
				{Type: agent.EventTurnEnd, Turn: 1},
				done(agent.SubtypeSuccess),
			}}
			h := newHarness(t, b)
			h.typeText("go")
			h.press("enter")
			h.contains(tt.tool + " · 0ms · " + tt.summary)
			h.press("ctrl+o")
			h.contains(tt.body)
		})
	}
}
