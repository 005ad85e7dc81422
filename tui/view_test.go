package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// toolScript is a finished run with an edit, a command and a failure.
func toolScript() []agent.Event {
	edit := &llm.ToolCall{ID: "t1", Name: "Edit", Input: js(map[string]any{"file_path": "greet.txt", "old_string": "hello world", "new_string": "hello nova"})}
	bash := &llm.ToolCall{ID: "t2", Name: "Bash", Input: js(map[string]any{"command": "go test ./..."})}
	read := &llm.ToolCall{ID: "t3", Name: "Read", Input: js(map[string]any{"file_path": "missing.go"})}
	return []agent.Event{
		{Type: agent.EventTurnStart, Turn: 1},
		text("Let me fix the greeting."),
		{Type: agent.EventToolCall, ToolCall: edit},
		{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "t1", Name: "Edit", Output: "edited", DurationMS: 12,
			Display: display.Diff(display.FileDiff{Path: "greet.txt", Diff: "--- greet.txt\n+++ greet.txt\n@@ -1,2 +1,2 @@\n-hello world\n+hello nova\n keep\n", Added: 1, Removed: 1})}},
		{Type: agent.EventToolCall, ToolCall: bash},
		{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "t2", Name: "Bash", Output: "ok  \tpkg/a\t0.1s\nok  \tpkg/b\t0.2s\n", DurationMS: 1530,
			Display: display.OfCommand(display.Command{Command: "go test ./...", ExitCode: 0})}},
		{Type: agent.EventToolCall, ToolCall: read},
		{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "t3", Name: "Read", Output: "file does not exist: missing.go", IsError: true, DurationMS: 1}},
		{Type: agent.EventTurnEnd, Turn: 1},
		done(agent.SubtypeSuccess),
	}
}

func TestTUIToolCallsCollapsed(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{toolScript()}
	h := newHarness(t, b)
	h.typeText("fix the greeting")
	h.press("enter")
	h.golden("tools_collapsed")
}

func TestTUIToolCallsExpanded(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{toolScript()}
	h := newHarness(t, b)
	h.typeText("fix the greeting")
	h.press("enter")
	h.press("ctrl+o")
	h.golden("tools_expanded")
	h.contains("1 - hello world")
	h.contains("1 + hello nova")
	h.contains("$ go test ./...")
}

func TestTUIDiffIsColoured(t *testing.T) {
	st := newStyles(true)
	ls := numberedDiff("--- a\n+++ a\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n", &st)
	if len(ls) != 3 || !strings.Contains(ls[0], "\x1b[") || !strings.Contains(ls[1], "\x1b[") {
		t.Fatalf("removed/added lines are not coloured: %q", ls)
	}
	if !strings.HasSuffix(ls[2], "   same") {
		t.Errorf("context line's code coloured: %q", ls[2])
	}
	if got := ansi.Strip(strings.Join(ls, "\n")); got != "1 - old\n1 + new\n2   same" {
		t.Errorf("numbered diff:\n%s", got)
	}
}

func TestTUIDiffGolden(t *testing.T) {
	b := newFake()
	diff := "--- main.go\n+++ main.go\n@@ -3,7 +3,8 @@\n import \"fmt\"\n \n func main() {\n-\tfmt.Println(\"hello\")\n+\tname := \"nova\"\n+\tfmt.Println(\"hello\", name)\n }\n"
	b.runs = [][]agent.Event{{
		{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "w", Name: "Write", Input: js(map[string]any{"file_path": "main.go", "content": "..."})}},
		{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "w", Name: "Write", Output: "wrote", DurationMS: 3,
			Display: display.Diff(display.FileDiff{Path: "main.go", Diff: diff, Added: 2, Removed: 1})}},
		done(agent.SubtypeSuccess),
	}}
	h := newHarness(t, b)
	h.typeText("greet by name")
	h.press("enter")
	h.press("ctrl+o")
	h.golden("diff")
}

func TestTUIStatusLine80(t *testing.T) {
	st := newStyles(true)
	cost := 0.42
	s := Status{Model: "anthropic:claude-sonnet-4-5", Mode: permission.ModeAcceptEdits, Cwd: "/work/project", Branch: "feature/tui",
		Context: &agent.ContextUsage{Used: 41_000, Limit: 175_000, Percent: 23}, Usage: llm.Usage{InputTokens: 38_000, OutputTokens: 3_100}}
	check := func(name string, s Status) {
		got := stripANSI(statusView(s, 80, &st))
		if w := len([]rune(got)); w > 80 {
			t.Errorf("%s: %d columns", name, w)
		}
		goldenString(t, name, got)
	}
	check("status_80", s)
	s.CostUSD = &cost
	check("status_80_cost", s)

	// Cache reads are shown apart, never added into the input figure; when
	// room is short they go first, then all but the cost.
	s.Usage = llm.Usage{InputTokens: 2_000, CacheWriteTokens: 36_000, OutputTokens: 3_100, CacheReadTokens: 1_200_000}
	for _, tc := range []struct {
		width int
		want  string
	}{
		{140, "ctx 23% · 38.0k in, 3.1k out, 1.2M cached · $0.42 · /work/project (feature/tui)"},
		{100, "ctx 23% · 38.0k in, 3.1k out, 1.2M cached · $0.42"},
		{80, "ctx 23% · 38.0k in, 3.1k out · $0.42"},
		{60, "ctx 23% · $0.42"},
	} {
		got := stripANSI(statusView(s, tc.width, &st))
		if !strings.HasSuffix(got, tc.want) || len([]rune(got)) > tc.width {
			t.Errorf("width %d: %q, want it to end in %q", tc.width, got, tc.want)
		}
	}
}

// TestTUIStatusHome checks the directory is shortened with the home the
// backend names, never the process's.
func TestTUIStatusHome(t *testing.T) {
	st := newStyles(true)
	t.Setenv("HOME", "/work")
	for _, tc := range []struct{ home, want string }{
		{"/home/u", "~/src/app"},
		{"", "/home/u/src/app"},
	} {
		got := stripANSI(statusView(Status{Model: "m", Cwd: "/home/u/src/app", Home: tc.home}, 80, &st))
		if !strings.HasSuffix(strings.TrimSpace(got), tc.want) {
			t.Errorf("home %q: status %q, want it to end in %q", tc.home, got, tc.want)
		}
	}
}

func TestTUIEscInterrupts(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{{Type: agent.EventTurnStart, Turn: 1}, text("Working on it")}}
	h := newHarness(t, b)
	h.typeText("long task")
	h.press("enter")
	h.contains("esc to interrupt")
	cancelled := false
	cancel := h.m.run.cancel
	h.m.run.cancel = func() { cancelled = true; cancel() }
	h.press("esc")
	if !cancelled {
		t.Fatal("esc did not cancel the run")
	}
	ch := b.chans[0]
	ch <- done(agent.SubtypeInterrupted)
	close(ch)
	h.settle()
	h.contains("Interrupted")
	if h.m.run != nil {
		t.Error("run not finished")
	}
}

func TestTUIShiftTabCyclesMode(t *testing.T) {
	h := newHarness(t, newFake())
	h.press("shift+tab")
	h.contains("acceptEdits")
	h.press("shift+tab")
	h.contains("plan")
}

func TestTUIPasteCollapsedButSentInFull(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{done(agent.SubtypeSuccess)}}
	h := newHarness(t, b)
	big := strings.Repeat("line\n", 30)
	h.typeText("look: ")
	h.send(pasteMsg(big))
	h.contains("[pasted 30 lines]")
	h.press("enter")
	if len(b.inputs) != 1 {
		t.Fatalf("sent %d prompts", len(b.inputs))
	}
	got := b.inputs[0].Parts[len(b.inputs[0].Parts)-1].Text
	if strings.Count(got, "line") != 30 || strings.Contains(got, "[pasted") {
		t.Errorf("sent %q, want the paste in full", got)
	}
}

func TestTUIHistoryAndCtrlC(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{done(agent.SubtypeSuccess)}}
	h := newHarness(t, b)
	h.typeText("first prompt")
	h.press("enter")
	h.press("up")
	if v := h.m.in.ta.Value(); v != "first prompt" {
		t.Errorf("up recalled %q", v)
	}
	h.press("ctrl+c")
	if !h.m.in.empty() {
		t.Error("ctrl+c did not clear the input")
	}
	h.press("ctrl+c")
	h.contains("Press Ctrl+C again to quit")
	_, cmd := h.m.Update(keyCtrlC())
	if cmd == nil || !isQuit(cmd()) {
		t.Error("a second ctrl+c did not quit")
	}
}

func TestTUISlashCompletionAndHelp(t *testing.T) {
	h := newHarness(t, newFake())
	h.typeText("/he")
	h.contains("/help")
	h.press("enter")
	h.contains("ctrl+o")
	h.contains("/resume")
	if strings.Contains(h.screen(), "/model") || strings.Contains(h.screen(), "/doctor") {
		t.Error("commands without a backend feature are offered")
	}
}

// TestTUIShellCommandKeptByBackend: the output of !cmd is shown, and
// the next prompt carries only what was typed (the backend keeps the
// command in the conversation, so a copy here would be read twice).
func TestTUIShellCommandKeptByBackend(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{done(agent.SubtypeSuccess)}}
	h := newHarness(t, b)
	h.typeText("!git status")
	h.press("enter")
	h.contains("output of git status")
	h.typeText("what changed?")
	h.press("enter")
	if len(b.shell) != 1 || len(b.inputs) != 1 || len(b.inputs[0].Parts) != 1 || b.inputs[0].Parts[0].Text != "what changed?" {
		t.Errorf("shell %v inputs %+v", b.shell, b.inputs)
	}
}

func TestTUIResumePicker(t *testing.T) {
	b := newFake()
	b.sessions = sessionsFixture()
	b.history = []llm.Message{llm.UserText("<environment>x</environment>"), llm.UserText("old question"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("old answer")}}}
	h := newHarness(t, b)
	h.typeText("/resume")
	h.press("enter")
	h.contains("Resume a session")
	h.press("enter")
	if b.resumed != "01OLD" {
		t.Fatalf("resumed %q", b.resumed)
	}
	h.contains("old question")
	h.contains("old answer")
	if strings.Contains(h.screen(), "<environment>") {
		t.Error("environment context shown")
	}
}

func TestTUIIdleStopsTicking(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{text("hi"), done(agent.SubtypeSuccess)}}
	h := newHarness(t, b)
	h.typeText("hello")
	h.press("enter")
	if h.m.run != nil {
		t.Fatal("run still active")
	}
	if _, cmd := h.m.Update(tickMsg{}); cmd != nil {
		t.Error("the ticker keeps running while idle")
	}
	if h.m.ticking {
		t.Error("still marked ticking")
	}
}

func TestTUIFollowsResize(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{toolScript()}
	h := newHarness(t, b)
	h.typeText("fix the greeting")
	h.press("enter")
	h.press("ctrl+o")
	for _, size := range [][2]int{{120, 40}, {80, 24}, {60, 20}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(h.screen(), "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: line of %d columns: %q", size[0], size[1], w, l)
			}
		}
	}
}

func TestTUITodosShownWhileRunning(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{
		{Type: agent.EventTodos, Todos: []display.Todo{
			{Content: "Read the code", Status: "completed", ActiveForm: "Reading the code"},
			{Content: "Fix the bug", Status: "in_progress", ActiveForm: "Fixing the bug"},
			{Content: "Run the tests", Status: "pending", ActiveForm: "Running the tests"},
		}},
	}}
	h := newHarness(t, b)
	h.typeText("fix it")
	h.press("enter")
	h.contains("Todos 1/3")
	h.contains("◐ Fixing the bug")
	h.contains("☐ Run the tests")
	ch := b.chans[0]
	ch <- done(agent.SubtypeSuccess)
	close(ch)
	h.settle()
	if strings.Contains(h.screen(), "Todos") {
		t.Error("the todo list stays after the task ended")
	}
}

func TestTUIAtCompletesPaths(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"main.go", "internal/parser/parse.go", ".git/config"} {
		p := filepath.Join(dir, f)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, nil, 0o644)
	}
	b := newFake()
	b.status.Cwd = dir
	h := newHarness(t, b)
	h.typeText("look at @pars")
	h.contains("@internal/parser/parse.go")
	h.press("tab")
	if v := h.m.in.ta.Value(); v != "look at @internal/parser/parse.go " {
		t.Errorf("after tab: %q", v)
	}
	h.typeText("@conf")
	if strings.Contains(h.screen(), ".git/config") {
		t.Error(".git is offered")
	}
}
