package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// history is the pane's whole scrollback and screen, its trailing blank
// lines dropped.
func (tm *tmuxTerm) history() string {
	return strings.TrimRight(tm.tmux("capture-pane", "-p", "-S", "-", "-t", tm.name), "\n ")
}

// inOrderOnce reports what is wrong with s for wants: each must be in it
// exactly once, each after the one before. "" means nothing.
func inOrderOnce(s string, wants []string) string {
	at := 0
	for _, w := range wants {
		if n := strings.Count(s, w); n != 1 {
			return fmt.Sprintf("%q is there %d times, want once", w, n)
		}
		i := strings.Index(s, w)
		if i < at {
			return fmt.Sprintf("%q comes before what precedes it", w)
		}
		at = i + len(w)
	}
	return ""
}

// waitHistory polls the scrollback until every want is there once, in
// order, and returns it.
func (tm *tmuxTerm) waitHistory(wants []string) string {
	tm.t.Helper()
	return tm.waitHistoryAbove("", wants)
}

// waitHistoryAbove is waitHistory for the part of the scrollback above
// the last line that holds mark ("" for all of it).
func (tm *tmuxTerm) waitHistoryAbove(mark string, wants []string) string {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		h := tm.history()
		if i := strings.LastIndex(h, mark); mark != "" && i >= 0 {
			h = h[:i]
		}
		wrong := inOrderOnce(h, wants)
		if wrong == "" {
			return h
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the terminal's scrollback: %s; it holds:\n%s", wrong, h)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTUIInlineScrollback: with --screen inline every answer of the
// session is in the terminal's own scrollback while the session goes on,
// once each, in order, its single line breaks kept; nothing of the live
// region (the input, the status) is left in it, ctrl+l included; a resize redraws the live
// part and the session goes on; after quitting the same is there, and the
// resume line under it; resumed in a new terminal, the conversation is
// printed there once.
func TestTUIInlineScrollback(t *testing.T) {
	var story strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&story, "Story line %02d of answer three.\n", i)
	}
	e := newE2E(t,
		llmtest.Turn{Text: "Answer one, first line.\nAnswer one, second line.", ChunkDelay: 5 * time.Millisecond},
		llmtest.Turn{Text: "Inline title"}, // the session title, asked for after the first run
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_r", Name: "Read", Input: jsonInput(map[string]any{"file_path": "notes.txt"})}}},
		llmtest.Turn{Text: "Answer two: the notes say hello."},
		llmtest.Turn{Text: story.String(), ChunkDelay: 2 * time.Millisecond},
		llmtest.Turn{Text: "Answer four, after the resize."},
	)
	e.write("notes.txt", "hello\n")
	tm := e.startTUISized(80, 24, "--screen", "inline")
	tm.waitFor("Ask nova anything")

	tm.typeText("first question")
	tm.keys("Enter")
	wants := []string{"❯ first question", "Answer one, first line.\n", "Answer one, second line."}
	tm.waitHistory(wants)
	deadline := time.Now().Add(20 * time.Second)
	for len(e.srv.Requests()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the title's request, before the next prompt's
	}

	tm.typeText("read the notes")
	tm.keys("Enter")
	wants = append(wants, "❯ read the notes", "Read(notes.txt)", "Answer two: the notes say hello.")
	tm.waitHistory(wants)

	tm.typeText("tell a story")
	tm.keys("Enter")
	wants = append(wants, "❯ tell a story")
	for i := 1; i <= 40; i++ {
		wants = append(wants, fmt.Sprintf("Story line %02d of answer three.\n", i))
	}
	tm.waitHistory(wants)
	// ctrl+l redraws the live region; it clears nothing into the
	// scrollback.
	tm.keys("C-l")
	time.Sleep(200 * time.Millisecond)
	tm.waitFor("ctrl+o expand")
	during := tm.waitHistory(wants)
	// The live region is drawn once, at the bottom: none of it went into
	// the scrollback with the printed lines.
	for _, live := range []string{"ctrl+o expand", "Ask nova anything"} {
		if n := strings.Count(during, live); n > 1 {
			t.Errorf("%q is in the terminal %d times: the live region leaked into the scrollback:\n%s", live, n, during)
		}
	}

	tm.tmux("resize-window", "-t", tm.name, "-x", "64", "-y", "20")
	// The live region is drawn again at the new width: its rules are 64
	// wide, the status line under them.
	tm.waitFor(strings.Repeat("─", 64) + "\n? for keys · ctrl+o expand\nanthropic:")
	tm.typeText("after the resize")
	tm.keys("Enter")
	wants = append(wants, "❯ after the resize", "Answer four, after the resize.")
	tm.waitHistory(wants)

	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
	after := tm.waitHistory(append(wants, "Resume this session with: nova -r "))
	id := regexp.MustCompile(`Resume this session with: nova -r (\S+)`).FindStringSubmatch(after)
	if id == nil {
		t.Fatalf("no session id in the resume line:\n%s", after)
	}
	t.Logf("the terminal after quitting:\n%s", after)

	// Resumed in a new terminal, the session's conversation is printed
	// into it once, in order.
	tm2 := e.startTUISized(80, 24, "--screen", "inline", "-r", id[1])
	tm2.waitFor("Ask nova anything")
	tm2.waitHistory(wants)
}

// TestTUIInlineLongEditAsk: in inline mode (the user's "screen"
// setting, no flag) at 80×24, the ask of an Edit
// that rewrites 64 lines prints the whole numbered diff into the
// scrollback above the dialog, every removed and added line once and in
// order, while the dialog waits below; the answer given applies the edit.
func TestTUIInlineLongEditAsk(t *testing.T) {
	e, edited := longEditWorld(t)
	if err := os.MkdirAll(filepath.Join(e.home, ".nova"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".nova", "settings.json"), []byte(`{"screen": "inline"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := e.startTUISized(80, 24)
	tm.waitFor("Ask nova anything")
	tm.typeText("rewrite the config")
	tm.keys("Enter")
	tm.waitFor("Allow Edit?")
	wants := []string{"❯ rewrite the config", "Read(config.txt)"}
	for _, kind := range []string{"old", "new"} {
		for i := 1; i <= 64; i++ {
			wants = append(wants, fmt.Sprintf("%s line %02d of the config", kind, i))
		}
	}
	// The dialog, at the bottom, shows a window of the diff too: the
	// scrollback above it is what is read.
	h := tm.waitHistoryAbove("Allow Edit?", wants)
	if !strings.Contains(tm.screen(), "Allow Edit?") {
		t.Fatalf("the dialog is gone while the diff is printed:\n%s", tm.screen())
	}
	t.Logf("the terminal with the ask open:\n%s", h)
	tm.keys("y")
	// The finished call, printed collapsed under the diff, shows the
	// first lines of it again: what is above it is checked, then it.
	tm.waitHistory([]string{"❯ rewrite the config", "● Edit(config.txt)", "Rewrote the config."})
	tm.waitHistoryAbove("● Edit(config.txt)", wants)
	if got := e.read("config.txt"); got != edited {
		t.Errorf("config.txt after the approved edit:\n%s", got)
	}
}

// TestTUIInlineNoColor: under NO_COLOR what inline mode prints into the
// scrollback has no colour, as the live region has none: Bubble Tea
// writes a print above the program as it is given.
func TestTUIInlineNoColor(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "A **bold** answer with `code` and a [link](https://example.com)."})
	e.env = append(e.env, "NO_COLOR=1")
	tm := e.startTUISized(80, 24, "--screen", "inline")
	tm.waitFor("Ask nova anything")
	tm.typeText("colour me")
	tm.keys("Enter")
	tm.waitHistory([]string{"❯ colour me", "A bold answer with"})
	// -e keeps the attributes tmux holds for each cell, as SGR sequences.
	coloured := tm.tmux("capture-pane", "-e", "-p", "-S", "-", "-t", tm.name)
	top, _, _ := strings.Cut(coloured, "────")
	if c := colourSGR(top); c != "" {
		t.Errorf("the printed lines carry colour (%q) under NO_COLOR:\n%q", c, top)
	}
	// The same without NO_COLOR has colour there: the check sees it.
	e2 := newE2E(t, llmtest.Turn{Text: "A **bold** answer with `code` and a [link](https://example.com)."})
	tm2 := e2.startTUISized(80, 24, "--screen", "inline")
	tm2.waitFor("Ask nova anything")
	tm2.typeText("colour me")
	tm2.keys("Enter")
	tm2.waitHistory([]string{"❯ colour me", "A bold answer with"})
	top2, _, _ := strings.Cut(tm2.tmux("capture-pane", "-e", "-p", "-S", "-", "-t", tm2.name), "────")
	if colourSGR(top2) == "" {
		t.Errorf("no colour in the coloured run's printed lines: the check cannot see colour:\n%q", top2)
	}
}

// colourSGR is the first SGR sequence of s that sets a colour (not one
// that resets to the default, 39 or 49), or "".
func colourSGR(s string) string {
	for _, seq := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(s, -1) {
		for _, p := range strings.Split(seq[1], ";") {
			switch n, _ := strconv.Atoi(p); {
			case n >= 30 && n <= 38, n >= 40 && n <= 48, n >= 90 && n <= 97, n >= 100 && n <= 107:
				return seq[0]
			}
		}
	}
	return ""
}
