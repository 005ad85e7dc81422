package tui

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
)

// TestTUITabsInGoBlock: tabs in an answer are expanded to the next
// multiple of 8, so a Go block and a Makefile keep their indentation.
func TestTUITabsInGoBlock(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{
		{Type: agent.EventTurnStart, Turn: 1},
		text("The fix:\n\n```go\nfunc main() {\n\tfor _, a := range os.Args {\n\t\tfmt.Println(a)\t// each\n\t}\n}\n```\n\nand the Makefile:\n\n```make\nbuild:\n\tgo build ./...\n```\n"),
		{Type: agent.EventTurnEnd, Turn: 1},
		done(agent.SubtypeSuccess),
	}}
	h := newHarness(t, b)
	h.typeText("fix it")
	h.press("enter")
	h.golden("tabs_go_block")
	h.contains("            for _, a := range os.Args {")
	h.contains("                    fmt.Println(a)  // each")
	h.contains("            go build ./...")
}

// TestTUIStreamingHalfFinished: while an answer streams, the blocks that
// are complete are Markdown (the paragraph's bold, the code block without
// its fences) and only the open one is raw.
func TestTUIStreamingHalfFinished(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{
		{Type: agent.EventTurnStart, Turn: 1},
		text("## The cause\n\nThe map is **nil**:\n\n```go\nvar m map[string]int\nm[\"k\"] = 1\n```\n\n"),
		text("So make it with `make` and **then wr"),
	}}
	h := newHarness(t, b)
	h.typeText("why does it panic?")
	h.press("enter")
	h.golden("streaming_half_finished")
	s := h.screen()
	for _, raw := range []string{"## The cause", "**nil**", "```"} {
		if strings.Contains(s, raw) {
			t.Errorf("a closed block shows raw %q:\n%s", raw, s)
		}
	}
	h.contains("**then wr") // the open block, as it came
}

// TestTUIStreamRendersEachBlockOnce streams an answer token by token, a
// frame after each: every block is rendered as Markdown once, when it
// closes, however many frames it stays on the screen, and the finished
// message costs only its last block.
func TestTUIStreamRendersEachBlockOnce(t *testing.T) {
	msg := "First paragraph with **bold**.\n\n- one\n- two\n\n```go\nfunc f() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nLast words."
	b := newFake()
	b.runs = [][]agent.Event{{{Type: agent.EventTurnStart, Turn: 1}}}
	h := newHarness(t, b)
	h.typeText("go")
	h.press("enter")
	ch := b.chans[0]
	before := h.m.md.blocks
	for _, tok := range strings.SplitAfter(msg, " ") {
		ch <- text(tok)
		h.settle()
		h.m.View()
	}
	if got := h.m.md.blocks - before; got != 4 {
		t.Errorf("streaming rendered %d blocks, want the 4 closed ones once each", got)
	}
	ch <- agent.Event{Type: agent.EventTurnEnd, Turn: 1}
	ch <- done(agent.SubtypeSuccess)
	close(ch)
	h.settle()
	h.m.View()
	if got := h.m.md.blocks - before; got != 5 {
		t.Errorf("after the end %d blocks rendered, want 5: the last one added", got)
	}
}
