package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// conversation grows an agent's history the way the loop does: each answer
// is appended as an assistant message and its tool results as one user
// message, and the next request carries all of it.
type conversation struct {
	msgs []llm.Message
	n    int
}

// answer appends an assistant message with text and calls tool calls, and
// their results of resultBytes bytes each.
func (c *conversation) answer(text string, calls, resultBytes int) {
	asst := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart(text)}}
	results := llm.Message{Role: llm.RoleUser}
	for range calls {
		c.n++
		id := fmt.Sprintf("toolu_%03d", c.n)
		asst.Parts = append(asst.Parts, llm.Part{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{
			ID: id, Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"f%03d.go"}`, c.n))}})
		results.Parts = append(results.Parts, llm.Part{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{
			CallID: id, Name: "Read", Content: []llm.Part{llm.TextPart(fmt.Sprintf("%03d %s", c.n, strings.Repeat("r", resultBytes)))}}})
	}
	c.msgs = append(c.msgs, asst)
	if calls > 0 {
		c.msgs = append(c.msgs, results)
	}
}

// TestCacheReadsThePreviousRequest sends a growing conversation through the
// client to the cache model and checks what the breakpoints are for: every
// request reads from the cache everything the previous request sent,
// including after a turn of 12 parallel calls (25 new blocks, more than the
// 20-block lookback) and after a turn that ends and a new prompt.
func TestCacheReadsThePreviousRequest(t *testing.T) {
	steps := []struct {
		name        string
		text        string
		calls, size int
		prompt      string // a new user prompt after the answer
	}{
		{name: "one call", text: "Reading.", calls: 1, size: 800},
		{name: "twelve parallel calls", text: "Reading them all.", calls: 12, size: 300},
		{name: "one call after the wide turn", text: "One more.", calls: 1, size: 800},
		{name: "end of turn, new prompt", text: "Done.", prompt: "now the tests"},
		{name: "two calls", text: "Looking.", calls: 2, size: 500},
		{name: "twelve calls again", text: "All of these.", calls: 12, size: 200},
		{name: "the last", text: "Finished.", calls: 1, size: 100},
	}
	var turns []llmtest.Turn
	for range len(steps) + 1 {
		turns = append(turns, llmtest.Turn{Text: "ok"})
	}
	srv := llmtest.New(turns...)
	defer srv.Close()
	cache := llmtest.NewCache()
	srv.UseCache(cache)
	client := newTestClient(srv)

	tools := []llm.ToolSpec{
		{Name: "Read", Description: strings.Repeat("Reads a file. ", 200), InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "Grep", Description: strings.Repeat("Searches files. ", 200), InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
	conv := &conversation{msgs: []llm.Message{llm.UserText("read the code")}}
	send := func() llmtest.CacheUsage {
		t.Helper()
		req := llm.Request{Model: "claude-test-1", System: strings.Repeat("You are nova. ", 300), Tools: tools, Messages: conv.msgs}
		evs, err := run(t.Context(), client, req)
		if err != nil {
			t.Fatalf("request %d: %v", len(cache.Usage())+1, err)
		}
		u := cache.Usage()
		if len(u) == 0 {
			t.Fatal("the cache saw no request")
		}
		got := u[len(u)-1]
		// The client reports the cache's counts as they came.
		usage := ofType(evs, llm.EventUsage)
		if len(usage) != 1 || usage[0].Usage.CacheReadTokens != got.CacheReadTokens || usage[0].Usage.CacheWriteTokens != got.CacheWriteTokens {
			t.Errorf("client usage %+v, cache %+v", usage, got)
		}
		return got
	}

	prev := send()
	if prev.CacheWriteTokens == 0 {
		t.Fatalf("first request wrote nothing: %+v", prev)
	}
	for _, st := range steps {
		conv.answer(st.text, st.calls, st.size)
		if st.prompt != "" {
			conv.msgs = append(conv.msgs, llm.UserText(st.prompt))
		}
		u := send()
		if u.Breakpoints > llmtest.MaxBreakpoints {
			t.Errorf("%s: %d breakpoints", st.name, u.Breakpoints)
		}
		// Everything the previous request sent but the few tokens after its
		// last block (the start of the assistant turn) is read.
		if want := prev.Total() - 3; u.CacheReadTokens < want {
			t.Errorf("%s: read %d of %d tokens (%.0f%%), want at least the previous request's %d",
				st.name, u.CacheReadTokens, u.Total(), 100*u.ReadShare(), want)
		}
		if u.CacheWriteTokens == 0 {
			t.Errorf("%s: nothing written for the next request", st.name)
		}
		prev = u
	}
}
