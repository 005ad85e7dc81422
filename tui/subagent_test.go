package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools/display"
)

var explore = &agent.AgentRef{ID: "a1b2c3d4", Type: "Explore", Description: "Find the parser"}

// sub marks ev as the work of the Explore subagent of call agent_1.
func sub(ev agent.Event) agent.Event {
	ev.ParentToolUseID, ev.Agent = "agent_1", explore
	return ev
}

// subagentStart is a lead that starts an Explore subagent, which looks
// around, greps, writes a todo list, reports its context and starts a
// Read of a file in the workspace; the channel stays open.
func subagentStart() []agent.Event {
	return []agent.Event{
		{Type: agent.EventTurnStart, Turn: 1},
		text("I'll send an explorer."),
		{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "agent_1", Name: "Agent",
			Input: js(map[string]any{"description": "Find the parser", "prompt": "Where is the parser?", "subagent_type": "Explore"})}},
		sub(agent.Event{Type: agent.EventTurnStart, Turn: 1}),
		sub(text("Looking around the tree for the parser.")),
		sub(agent.Event{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "s1", Name: "Grep", Input: js(map[string]any{"pattern": "func Parse"})}}),
		sub(agent.Event{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "s1", Name: "Grep", Output: "parser/parse.go", DurationMS: 4,
			Display: display.OfSearch(display.Search{Count: 1, Unit: "file"})}}),
		sub(agent.Event{Type: agent.EventTodos, Todos: []display.Todo{{Content: "subagent's own todo", Status: "pending"}}}),
		sub(agent.Event{Type: agent.EventContext, Context: &agent.ContextUsage{Used: 90_000, Limit: 100_000, Percent: 90}}),
		sub(agent.Event{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "s2", Name: "Read", Input: js(map[string]any{"file_path": "/work/project/parser/parse.go"})}}),
	}
}

// subagentEnd finishes the Read, then the Agent call with the
// subagent's answer, and the lead answers.
func subagentEnd() []agent.Event {
	return []agent.Event{
		sub(agent.Event{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "s2", Name: "Read", Output: "     1\tpackage parser\n     2\t\n     3\tfunc Parse() {}\n", DurationMS: 2}}),
		sub(text("The parser is parser/parse.go.")),
		sub(agent.Event{Type: agent.EventTurnEnd, Turn: 1}),
		{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "agent_1", Name: "Agent", Output: "The parser is in parser/parse.go.\nIt has one function, Parse.", DurationMS: 8_200}},
		text("The explorer found it: parser/parse.go."),
		{Type: agent.EventTurnEnd, Turn: 1},
		done(agent.SubtypeSuccess),
	}
}

func TestTUISubagentNested(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{subagentStart()}
	h := newHarness(t, b)
	h.typeText("where is the parser?")
	h.press("enter")

	// Collapsed: the header with the count and the latest activity, a
	// path of the workspace relative to it.
	h.golden("subagent_running")
	h.contains("Explore(Find the parser) · 2 tool uses")
	h.contains("⎿ ⠋ Read(parser/parse.go)")
	s := h.screen()
	for _, not := range []string{"Looking around", "subagent's own todo", "ctx 90%", "Grep("} {
		if strings.Contains(s, not) {
			t.Errorf("collapsed screen shows %q, the subagent's:\n%s", not, s)
		}
	}
	if got := len(h.m.todos); got != 0 {
		t.Errorf("the subagent's todos became the run's: %v", h.m.todos)
	}
	if h.m.status.Context != nil {
		t.Errorf("the subagent's context became the run's: %+v", h.m.status.Context)
	}

	// Expanded with ctrl+o: everything it did, in order.
	h.press("ctrl+o")
	h.contains("Looking around the tree for the parser.")
	h.contains("● Grep(func Parse) · 4ms · 1 file")
	h.press("ctrl+o")

	ch := b.chans[0]
	for _, ev := range subagentEnd() {
		ch <- ev
	}
	close(ch)
	h.settle()
	h.golden("subagent_done")
	h.contains("Explore(Find the parser) · 2 tool uses · 8.2s")
	h.contains("The parser is in parser/parse.go. (+1 lines · ctrl+o to expand)")
	h.contains("The explorer found it: parser/parse.go.")
	if strings.Contains(h.screen(), "The parser is parser/parse.go.") {
		t.Errorf("the subagent's message shows as the answer:\n%s", h.screen())
	}
	if f := h.m.farewell(); strings.Contains(f, "The parser is parser/parse.go.") {
		t.Errorf("the farewell's last answer is the subagent's: %q", f)
	}

	h.press("ctrl+o")
	h.golden("subagent_expanded")
	h.contains("● Read(parser/parse.go) · 2ms · Read 3 lines")
	h.contains("It has one function, Parse.")
}

// TestTUISubagentInterrupted: an interrupt mid-subagent leaves no
// spinner turning under the Agent call.
func TestTUISubagentInterrupted(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{subagentStart()}
	h := newHarness(t, b)
	h.typeText("where is the parser?")
	h.press("enter")
	h.press("esc")
	ch := b.chans[0]
	ch <- done(agent.SubtypeInterrupted)
	close(ch)
	h.settle()
	h.press("ctrl+o")
	h.contains("◌ Read(parser/parse.go) · interrupted")
	h.contains("Explore(Find the parser) · 2 tool uses · interrupted")
}

// asSubagent is a backend whose runs are a real agent's, relabelled as
// the work of an Explore subagent under an Agent call: its asks are
// real and answering them runs the call.
type asSubagent struct{ *agentBackend }

func (b asSubagent) Run(ctx context.Context, in llm.Message) <-chan agent.Event {
	inner := b.a.Run(ctx, in)
	out := make(chan agent.Event, 16)
	go func() {
		defer close(out)
		out <- agent.Event{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "agent_1", Name: "Agent",
			Input: js(map[string]any{"description": "Find the parser", "subagent_type": "Explore"})}}
		var last agent.Event
		for ev := range inner {
			if ev.Type == agent.EventDone {
				last = ev
				continue
			}
			out <- sub(ev)
		}
		out <- agent.Event{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "agent_1", Name: "Agent", Output: "explored", DurationMS: 10}}
		out <- last
	}()
	return out
}

func TestTUISubagentAsk(t *testing.T) {
	ab := newAgentBackend(t,
		toolTurn("call_1", "Bash", map[string]any{"command": "echo hi > made.txt", "description": "Make a file"}),
		textTurn("Made the file."))
	b := asSubagent{ab}
	h := newHarness(t, ab.fakeBackend)
	h.m.b = b
	h.typeText("explore")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.contains("Explore agent wants to run Bash · Find the parser")
	h.contains("Allow Bash?")
	h.press("y")
	h.waitFor(func() bool { return h.m.run == nil })
	if _, err := os.Stat(filepath.Join(ab.ws, "made.txt")); err != nil {
		t.Errorf("the subagent's approved call did not run: %v", err)
	}
	h.contains("Explore(Find the parser) · 1 tool use")
	if strings.Contains(h.screen(), "Made the file.") {
		t.Errorf("the subagent's answer shows as the run's:\n%s", h.screen())
	}
}

func TestReadSummary(t *testing.T) {
	for out, want := range map[string]string{
		"     1    package a\n":                                                    "Read 1 line",
		"     1    a\n     2    \n     3    c\n":                                   "Read 3 lines",
		"     1    a\n     2    b\n\n... 98 more lines; use offset=3 to read on\n": "Read 2 of 100 lines",
		"notes.txt is empty (0 lines).":                                            "",
		"Image /w/a.png (image/png, 10 bytes) is attached.":                        "",
	} {
		if got := readSummary(out); got != want {
			t.Errorf("readSummary(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestRelPath(t *testing.T) {
	for _, c := range [][3]string{
		{"/work/project/a/b.go", "/work/project", "a/b.go"},
		{"/work/project", "/work/project", "."},
		{"/work/projectx/a.go", "/work/project", "/work/projectx/a.go"},
		{"/etc/passwd", "/work/project", "/etc/passwd"},
		{"rel/a.go", "/work/project", "rel/a.go"},
		{"/a/b", "", "/a/b"},
	} {
		if got := relPath(c[0], c[1]); got != c[2] {
			t.Errorf("relPath(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// A resumed session has the Agent call and its answer, not the
// subagent's work: no count is made up.
func TestTUISubagentResumed(t *testing.T) {
	b := newFake()
	b.history = []llm.Message{
		llm.UserText("where is the parser?"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{ToolCall: &llm.ToolCall{ID: "agent_1", Name: "Agent",
			Input: js(map[string]any{"description": "Find the parser", "subagent_type": "Explore"})}}}},
		{Role: llm.RoleUser, Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: "agent_1", Content: []llm.Part{llm.TextPart("In parser/parse.go.")}}}}},
	}
	h := newHarness(t, b)
	h.contains("● Explore(Find the parser) · 0ms\n  ⎿ In parser/parse.go.")
	if strings.Contains(h.screen(), "tool use") {
		t.Errorf("a resumed Agent call shows a count of work it never saw:\n%s", h.screen())
	}
}
