package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// longEditWorld is a world whose model reads config.txt (64 lines) and
// then asks to Edit every line of it, and says "Rewrote the config.";
// edited is what the file holds once the edit is applied.
func longEditWorld(t *testing.T) (e *e2e, edited string) {
	t.Helper()
	var old, changed strings.Builder
	for i := 1; i <= 64; i++ {
		fmt.Fprintf(&old, "old line %02d of the config\n", i)
		fmt.Fprintf(&changed, "new line %02d of the config\n", i)
	}
	e = newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_r", Name: "Read", Input: jsonInput(map[string]any{"file_path": "config.txt"})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_e", Name: "Edit", Input: jsonInput(map[string]any{
			"file_path": "config.txt", "old_string": old.String(), "new_string": changed.String()})}}},
		llmtest.Turn{Text: "Rewrote the config."},
	)
	e.write("config.txt", old.String())
	return e, changed.String()
}

// TestTUILongEditAskReadWhole: at 80×24 the ask of an Edit that rewrites
// 64 lines can be read whole before it is answered: paging through the
// dialog shows every removed and every added line, a screenful at a time
// once ctrl+o gives the diff the screen, and the answer given there after
// reading it applies the edit.
func TestTUILongEditAskReadWhole(t *testing.T) {
	e, edited := longEditWorld(t)
	tm := e.startTUISized(80, 24)
	tm.waitFor("Ask nova anything")
	tm.typeText("rewrite the config")
	tm.keys("Enter")
	first := tm.waitFor("Allow Edit?")
	if !strings.Contains(first, "ctrl+o full diff") {
		t.Fatalf("the ask does not say how to see more of the diff:\n%s", first)
	}
	tm.keys("C-o")
	first = tm.waitFor("Allow Edit? · lines 1–")

	seen := map[string]bool{}
	line := regexp.MustCompile(`(old|new) line (\d\d) of the config`)
	end := regexp.MustCompile(`lines \d+–(\d+) of (\d+)`)
	pages := 0
	for ; pages < 100; pages++ {
		s := tm.screen()
		for _, m := range line.FindAllString(s, -1) {
			seen[m] = true
		}
		if m := end.FindStringSubmatch(s); m == nil || m[1] == m[2] {
			break // the whole diff fits, or its last line is shown
		}
		tm.keys("PageDown")
		tm.waitGone(lastShown(s))
	}
	t.Logf("read in %d pages; first page:\n%s", pages+1, first)
	var missing []string
	for i := 1; i <= 64; i++ {
		for _, kind := range []string{"old", "new"} {
			if l := fmt.Sprintf("%s line %02d of the config", kind, i); !seen[l] {
				missing = append(missing, l)
			}
		}
	}
	if pages > 9 {
		t.Errorf("128 lines of diff took %d pages at 80x24: the diff does not get the screen", pages+1)
	}
	if len(missing) > 0 {
		t.Fatalf("%d lines of the diff were never shown at 80x24, first %q; last screen:\n%s", len(missing), missing[0], tm.screen())
	}
	tm.keys("y")
	tm.waitFor("Rewrote the config.")
	if got := e.read("config.txt"); got != edited {
		t.Errorf("config.txt after the approved edit:\n%s", got)
	}
}

// lastShown is the dialog's position line ("lines 1–5 of 128") of screen
// s, which changes with every page.
func lastShown(s string) string {
	if m := regexp.MustCompile(`lines \d+–\d+ of \d+`).FindString(s); m != "" {
		return m
	}
	return "\x00"
}
