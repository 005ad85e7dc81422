package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// inlineHarness is a harness whose model runs in inline mode, its prints
// above the program recorded in order instead of written.
func inlineHarness(t *testing.T, b *fakeBackend) (*harness, *[]string) {
	t.Helper()
	h := newHarness(t, b)
	var printed []string
	h.m.inl = newInlineState(true)
	h.m.inl.sized = true
	h.m.inl.readyCmd = func(time.Duration) tea.Cmd { return func() tea.Msg { return printReadyMsg{} } }
	h.m.inl.printCmd = func(chunk string) tea.Cmd {
		printed = append(printed, chunk)
		return func() tea.Msg { return printedMsg{} }
	}
	return h, &printed
}

// TestInlinePrintsEachFinishedEntryOnce: in inline mode each entry goes to
// the scrollback once it is finished, exactly once and in order; what is
// still changing (the streaming answer, a running call) stays in the live
// region and is not printed until it is done; and quitting prints only
// what never was, then the resume line.
func TestInlinePrintsEachFinishedEntryOnce(t *testing.T) {
	b := newFake()
	call := &llm.ToolCall{ID: "t1", Name: "Bash", Input: js(map[string]any{"command": "ls"})}
	b.runs = [][]agent.Event{{
		{Type: agent.EventTurnStart, Turn: 1},
		text("Answer one, line one.\nAnswer one, line two."),
		{Type: agent.EventToolCall, ToolCall: call},
		{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "t1", Name: "Bash", Output: "listed"}},
		text("Answer two."),
		{Type: agent.EventTurnEnd},
		done(agent.SubtypeSuccess),
	}, nil}
	h, printed := inlineHarness(t, b)
	out := func() string { return stripANSI(strings.Join(*printed, "\n")) }

	h.typeText("first prompt")
	h.press("enter")
	wants := []string{"nova · /work/project", "❯ first prompt", "Answer one, line one.\n", "Answer one, line two.", "Bash(ls)", "Answer two."}
	checkOnceInOrder(t, out(), wants)
	if s := h.screen(); strings.Contains(s, "Answer one") || strings.Contains(s, "Bash(ls)") {
		t.Errorf("printed entries are still drawn in the live region:\n%s", s)
	}

	// A second run that streams: the open answer and the running call are
	// live, not printed, until they finish.
	h.typeText("second prompt")
	h.press("enter")
	ch := b.chans[1]
	ch <- agent.Event{Type: agent.EventTurnStart, Turn: 1}
	ch <- text("Streaming three")
	h.settle()
	h.contains("Streaming three")
	if strings.Contains(out(), "Streaming three") {
		t.Fatalf("the streaming answer was printed before it finished:\n%s", out())
	}
	ch <- text(", now done.")
	ch <- agent.Event{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "t2", Name: "Bash", Input: js(map[string]any{"command": "sleep 9"})}}
	h.settle()
	h.contains("Bash(sleep 9)")
	if strings.Contains(out(), "sleep 9") {
		t.Fatalf("the running call was printed:\n%s", out())
	}
	wants = append(wants, "❯ second prompt", "Streaming three, now done.")
	checkOnceInOrder(t, out(), wants)
	ch <- agent.Event{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "t2", Name: "Bash", Output: "slept"}}
	ch <- text("Answer four.")
	h.settle()
	// Quitting while the last answer still streams: it is printed after
	// the program, with the resume line, and nothing printed before is.
	h.press("ctrl+c")
	h.press("ctrl+c")
	if s := h.screen(); strings.TrimSpace(s) != "" {
		t.Errorf("the last frame is not empty: what it held would stay on the screen above the farewell:\n%s", s)
	}
	wants = append(wants, "Bash(sleep 9)")
	checkOnceInOrder(t, out(), wants)
	all := out() + "\n" + stripANSI(h.m.inlineFarewell())
	checkOnceInOrder(t, all, append(wants, "Answer four.", "Resume this session with: nova -r 01JTEST"))
	if again := h.m.inlineFarewell(); strings.Contains(again, "Answer four.") {
		t.Errorf("a second farewell prints the answer again:\n%s", again)
	}
}

// TestInlineResumePrintsHistoryOnce: a resume reloads the transcript; in
// inline mode the resumed conversation is printed once, under what was
// printed before.
func TestInlineResumePrintsHistoryOnce(t *testing.T) {
	b := newFake()
	h, printed := inlineHarness(t, b)
	b.history = []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("an old question")}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("An old answer.")}},
	}
	h.send(resultMsg{text: "Resumed session 01JOLD", reload: true})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24}) // any later message
	got := stripANSI(strings.Join(*printed, "\n"))
	checkOnceInOrder(t, got, []string{"nova · /work/project", "❯ an old question", "An old answer.", "Resumed session 01JOLD"})
}

// checkOnceInOrder fails t unless each of wants is in s exactly once,
// each after the one before.
func checkOnceInOrder(t *testing.T, s string, wants []string) {
	t.Helper()
	at := 0
	for _, w := range wants {
		if n := strings.Count(s, w); n != 1 {
			t.Fatalf("%q printed %d times, want once; printed:\n%s", w, n, s)
		}
		i := strings.Index(s, w)
		if i < at {
			t.Fatalf("%q printed out of order; printed:\n%s", w, s)
		}
		at = i + len(w)
	}
}

// TestInlineQuitWaitsForTheChunkOnItsWay: quitting while a chunk is on its
// way to the terminal ends the program once it is printed, not before (it
// would be lost) and without printing it again at exit.
func TestInlineQuitWaitsForTheChunkOnItsWay(t *testing.T) {
	b := newFake()
	h, _ := inlineHarness(t, b)
	h.m.inl.pending = []string{"a line on its way"}
	h.m.inl.busy = true
	var sent string
	h.m.inl.printCmd = func(chunk string) tea.Cmd { sent = chunk; return nil }
	h.m.printReady()
	if sent != "a line on its way" {
		t.Fatalf("sent %q", sent)
	}
	if cmd := h.m.quit(); cmd != nil {
		t.Fatalf("quit with a chunk on its way ended the program at once")
	}
	if got := h.m.inlineFarewell(); strings.Contains(got, "a line on its way") {
		t.Errorf("the farewell prints the chunk on its way again:\n%s", got)
	}
	_, cmd := h.m.Update(printedMsg{})
	if cmd == nil {
		t.Fatal("the chunk printed, the program does not end")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("after the chunk printed, %T, want the quit", cmd())
	}
}
