package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools/display"
)

// longHistory is a 1,000-message session: prompts, Markdown answers with
// code, and tool calls with results.
func longHistory() []llm.Message {
	var msgs []llm.Message
	for i := 0; len(msgs) < 1000; i++ {
		id := fmt.Sprintf("t%d", i)
		msgs = append(msgs,
			llm.UserText(fmt.Sprintf("question %d: why does the test fail?", i)),
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
				llm.TextPart(fmt.Sprintf("Answer %d. The **test** fails because:\n\n- the map is nil\n- `go vet` says so\n\n```go\nm := map[string]int{}\nm[\"k\"] = %d\n```\n", i, i)),
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "Bash", Input: js(map[string]any{"command": "go test ./..."})}},
			}},
			llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: []llm.Part{llm.TextPart("ok pkg 0.1s\n")}}}}},
		)
	}
	return msgs
}

// streamTokens is a 2,000-token Markdown answer (headings, paragraphs,
// lists, Go blocks with tabs, a table), cut into tokens of about four bytes
// as a model streams them.
func streamTokens() []string {
	var b strings.Builder
	for i := 0; b.Len() < 8000; i++ {
		fmt.Fprintf(&b, "## Step %d\n\nThe **test** fails because the map is nil; `go vet` says so, and the fix is small.\n\n- make the map\n- write to it\n\n```go\nfunc f() {\n\tm := map[string]int{}\n\tm[\"k\"] = %d\n}\n```\n\n| case | result |\n|---|---|\n| nil map | panic |\n| made | ok |\n\n", i, i)
	}
	var toks []string
	for s := b.String(); s != ""; {
		n := min(4, len(s))
		toks, s = append(toks, s[:n]), s[n:]
	}
	return toks[:2000]
}

// BenchmarkTUIFrame is the time to draw a frame of a 1,000-message session
// while a 2,000-token Markdown answer streams in, one frame per token (a
// 200 tokens/s stream gets one frame per six tokens at 30 fps: this is
// the worst case). Each block is rendered once as it closes; a frame
// re-wraps the open block and draws the visible entries from their
// caches (target: under 8 ms a frame).
func BenchmarkTUIFrame(b *testing.B) {
	fb := newFake()
	fb.history = longHistory()
	h := newHarness(&testing.T{}, fb)
	h.m.View() // the first frame renders the visible entries' Markdown once
	toks := streamTokens()
	b.ReportAllocs()
	b.ResetTimer()
	frames := 0
	for i := 0; i < b.N; i++ {
		for _, tok := range toks {
			h.m.tr.apply(agent.Event{Type: agent.EventTextDelta, Text: tok}, h.m.now())
			_ = h.m.View()
			frames++
		}
		h.m.tr.endStreaming()
	}
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(frames), "ms/frame")
}

// BenchmarkTUIFrameScrolled draws frames while paging through the whole
// 1,000-message session, each page rendering entries not seen before.
func BenchmarkTUIFrameScrolled(b *testing.B) {
	fb := newFake()
	fb.history = longHistory()
	h := newHarness(&testing.T{}, fb)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.m.tr.scroll(20)
		_ = h.m.View()
		if h.m.tr.offset > 0 && i%500 == 499 {
			h.m.tr.offset = 0
		}
	}
}

// BenchmarkTUIToolResult is folding a tool result with a diff into the
// transcript and drawing the frame.
func BenchmarkTUIToolResult(b *testing.B) {
	fb := newFake()
	h := newHarness(&testing.T{}, fb)
	diff := display.Diff(display.FileDiff{Path: "a.go", Diff: "--- a.go\n+++ a.go\n@@ -1 +1 @@\n-old\n+new\n", Added: 1, Removed: 1})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprint(i)
		h.m.tr.apply(agent.Event{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "Edit", Input: js(map[string]any{"file_path": "a.go"})}}, h.m.now())
		h.m.tr.apply(agent.Event{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: id, Name: "Edit", Display: diff}}, h.m.now())
		_ = h.m.View()
	}
}
