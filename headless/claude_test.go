package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// messages decodes stream-json output into its lines and their kinds:
// type, type/subtype for system messages, stream_event/<event type>.
func messages(t *testing.T, out string) ([]map[string]any, []string) {
	t.Helper()
	var ms []map[string]any
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		k := m["type"].(string)
		switch k {
		case "system":
			k += "/" + m["subtype"].(string)
		case "stream_event":
			k += "/" + m["event"].(map[string]any)["type"].(string)
		}
		ms, kinds = append(ms, m), append(kinds, k)
	}
	return ms, kinds
}

// TestClaudeMessages holds the messages of a turn with thinking, text and a
// tool call, and the turn after it, to the shapes Claude Code 2.1.333
// writes (see docs/sdk.md): one assistant message per block, written as
// the block ends, the blocks of a response sharing its message id; the
// tool result as a user message; with partial messages, Anthropic's raw
// stream events around them.
func TestClaudeMessages(t *testing.T) {
	evs := replay{
		{Type: agent.EventTurnStart, Turn: 1},
		{Type: agent.EventThinkingDelta, Turn: 1, Text: "The user "},
		{Type: agent.EventThinkingDelta, Turn: 1, Text: "wants the file."},
		{Type: agent.EventTextDelta, Turn: 1, Text: "Reading."},
		{Type: agent.EventToolCall, Turn: 1, ToolCall: &llm.ToolCall{ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.txt"}`)}},
		{Type: agent.EventToolProgress, Turn: 1, Progress: &display.Progress{CallID: "toolu_1", Progress: 1, Total: 2, Message: "half"}},
		{Type: agent.EventToolResult, Turn: 1, Result: &agent.ToolResult{ID: "toolu_1", Name: "Read", Output: "hello",
			Decision: permission.Decision{Behavior: permission.Allow, Layer: permission.LayerMode, Reason: "read-only"}, SpillPath: "/s/1.txt", DurationMS: 3}},
		{Type: agent.EventTurnEnd, Turn: 1, StopReason: llm.StopToolUse, Usage: &llm.Usage{OutputTokens: 20}},
		{Type: agent.EventCompaction, Compaction: &agent.Compaction{Before: 900, After: 100}},
		{Type: agent.EventTurnStart, Turn: 2},
		{Type: agent.EventTextDelta, Turn: 2, Text: "It says hello."},
		{Type: agent.EventTurnEnd, Turn: 2, StopReason: llm.StopEndTurn, Usage: &llm.Usage{OutputTokens: 5}},
		done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "It says hello.", NumTurns: 2, StopReason: llm.StopEndTurn,
			Usage: llm.Usage{InputTokens: 100, OutputTokens: 25, CacheReadTokens: 50, CacheWriteTokens: 7}}),
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), evs, Options{Prompt: "p", Format: FormatStreamJSON, SessionID: "S", Model: "m:x", Cwd: "/w",
		Tools: []string{"Read"}, PermissionMode: "default", Version: "1.2.3", ContextWindow: 1000, MaxOutput: 100, Partial: true,
		Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	ms, kinds := messages(t, out.String())
	wantKinds := strings.Join([]string{
		"system/init",
		"stream_event/message_start",
		"stream_event/content_block_start", "stream_event/content_block_delta", "stream_event/content_block_delta",
		"assistant", "stream_event/content_block_stop",
		"stream_event/content_block_start", "stream_event/content_block_delta", "assistant", "stream_event/content_block_stop",
		"stream_event/content_block_start", "stream_event/content_block_delta", "assistant", "stream_event/content_block_stop",
		"tool_progress",
		"stream_event/message_delta", "stream_event/message_stop",
		"system/nova_tool_result", "user",
		"system/compact_boundary",
		"stream_event/message_start", "stream_event/content_block_start", "stream_event/content_block_delta",
		"assistant", "stream_event/content_block_stop", "stream_event/message_delta", "stream_event/message_stop",
		"result",
	}, " ")
	if got := strings.Join(kinds, " "); got != wantKinds {
		t.Fatalf("messages:\n%s\nwant:\n%s", got, wantKinds)
	}
	block := func(i int) map[string]any {
		return ms[i]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	}
	line := func(i int) string { b, _ := json.Marshal(ms[i]); return string(b) }
	if b := block(5); b["type"] != "thinking" || b["thinking"] != "The user wants the file." {
		t.Errorf("thinking message = %s", line(5))
	}
	if b := block(9); b["type"] != "text" || b["text"] != "Reading." {
		t.Errorf("text message = %s", line(9))
	}
	if b := block(13); b["type"] != "tool_use" || b["id"] != "toolu_1" || b["name"] != "Read" || b["input"].(map[string]any)["file_path"] != "a.txt" {
		t.Errorf("tool_use message = %s", line(13))
	}
	id := ms[5]["message"].(map[string]any)["id"]
	for _, i := range []int{9, 13} {
		if ms[i]["message"].(map[string]any)["id"] != id {
			t.Errorf("message %d has id %v, want the response's %v", i, ms[i]["message"].(map[string]any)["id"], id)
		}
	}
	if ms[24]["message"].(map[string]any)["id"] == id {
		t.Error("the second response reuses the first one's message id")
	}
	for _, i := range []int{5, 9, 13, 19, 24} {
		if ms[i]["session_id"] != "S" || ms[i]["uuid"] == "" || ms[i]["parent_tool_use_id"] != nil {
			t.Errorf("message %d lacks session_id, uuid or parent_tool_use_id: %s", i, line(i))
		}
	}
	if d := ms[16]["event"].(map[string]any)["delta"].(map[string]any); d["stop_reason"] != "tool_use" {
		t.Errorf("message_delta = %s", line(16))
	}
	if ev := ms[12]["event"].(map[string]any); ev["delta"].(map[string]any)["partial_json"] != `{"file_path":"a.txt"}` {
		t.Errorf("input_json_delta = %s", line(12))
	}
	if p := ms[15]; p["tool_use_id"] != "toolu_1" || p["tool_name"] != "Read" || p["message"] != "half" {
		t.Errorf("tool_progress = %s", line(15))
	}
	if m := ms[18]; m["spill_path"] != "/s/1.txt" || m["decision"].(map[string]any)["layer"] != "mode" {
		t.Errorf("nova_tool_result = %s", line(18))
	}
	if !strings.Contains(line(19), `"content":[{"content":"hello","is_error":false,"tool_use_id":"toolu_1","type":"tool_result"}]`) {
		t.Errorf("user message = %s", line(19))
	}
	res := out.String()[strings.LastIndex(strings.TrimSpace(out.String()), "\n")+1:]
	for _, want := range []string{
		`"usage":{"input_tokens":100,"cache_creation_input_tokens":7,"cache_read_input_tokens":50,"output_tokens":25}`,
		`"modelUsage":{"x":{"inputTokens":100,"outputTokens":25,"cacheReadInputTokens":50,"cacheCreationInputTokens":7,"webSearchRequests":0,"costUSD":0,"contextWindow":1000,"maxOutputTokens":100}}`,
		`"stop_reason":"end_turn"`, `"num_turns":2`, `"total_cost_usd":0`, `"permission_denials":[]`,
	} {
		if !strings.Contains(res, want) {
			t.Errorf("result lacks %s: %s", want, res)
		}
	}
	if strings.Contains(res, `"errors"`) {
		t.Errorf("a success carries errors: %s", res)
	}
	if init := line(0); !strings.Contains(init, `"claude_code_version":"1.2.3"`) || !strings.Contains(init, `"tools":["Read"]`) {
		t.Errorf("init = %s", init)
	}
}

// TestClaudeRetrySupersedes: a retry that voids the response names the
// assistant messages it had sent in the next one's supersedes.
func TestClaudeRetrySupersedes(t *testing.T) {
	evs := replay{
		{Type: agent.EventTurnStart, Turn: 1},
		{Type: agent.EventThinkingDelta, Turn: 1, Text: "VOID thinking"},
		{Type: agent.EventTextDelta, Turn: 1, Text: "VOID text"},
		{Type: agent.EventRetry, Turn: 1, Text: "response broke off", Retry: &llm.RetryInfo{Attempt: 2, MaxAttempts: 3, Kind: llm.ErrStream, DiscardPartial: true}},
		{Type: agent.EventTextDelta, Turn: 1, Text: "kept"},
		{Type: agent.EventTurnEnd, Turn: 1, StopReason: llm.StopEndTurn},
		done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "kept", NumTurns: 1}),
	}
	var out bytes.Buffer
	Run(context.Background(), evs, Options{Format: FormatStreamJSON, Stdout: &out, Stderr: &bytes.Buffer{}})
	ms, kinds := messages(t, out.String())
	if got := strings.Join(kinds, " "); got != "system/init assistant system/api_retry assistant result" {
		t.Fatalf("messages = %s", got)
	}
	voided := ms[1]["uuid"]
	sup, _ := ms[3]["supersedes"].([]any)
	if len(sup) != 1 || sup[0] != voided || ms[2]["discard_partial"] != true {
		t.Errorf("supersedes = %v, want [%v]; retry %v", ms[3]["supersedes"], voided, ms[2])
	}
	if strings.Contains(mustJSON(ms[3]), "VOID") {
		t.Errorf("the kept message holds voided text: %v", ms[3])
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestClaudeErrorResult: an error result carries errors, which the Agent
// SDK reads to report it.
func TestClaudeErrorResult(t *testing.T) {
	var out bytes.Buffer
	code := Run(context.Background(), replay{
		{Type: agent.EventError, Text: "provider down"},
		done(agent.Done{Subtype: agent.SubtypeError, IsError: true, Error: "provider down"}),
	}, Options{Format: FormatJSON, Stdout: &out, Stderr: &bytes.Buffer{}})
	var res Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if code != ExitFailed || !res.IsError || res.Subtype != agent.SubtypeError || len(res.Errors) != 1 || res.Errors[0] != "provider down" || res.StopReason != nil {
		t.Errorf("exit %d result %+v", code, res)
	}
}
