package tui

import (
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

func TestTUIStreamedAnswer(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{{
		{Type: agent.EventTurnStart, Turn: 1},
		text("Here is a **plan**:\n\n"), text("1. read the file\n2. fix it\n\n"),
		text("```go\nfunc main() {}\n```\n"),
	}}
	h := newHarness(t, b)
	h.typeText("fix the bug")
	h.press("enter")
	h.golden("streaming")
	ch := b.chans[0]
	ch <- agent.Event{Type: agent.EventTurnEnd, Turn: 1, Usage: &llm.Usage{InputTokens: 1200, OutputTokens: 300}}
	ch <- done(agent.SubtypeSuccess)
	close(ch)
	h.settle()
	h.golden("streamed_answer")
	if h.m.run != nil {
		t.Error("run still marked active after done")
	}
}
