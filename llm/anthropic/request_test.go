package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

func TestRequestBody(t *testing.T) {
	srv := llmtest.New(llmtest.Turn{Text: "ok"})
	defer srv.Close()

	png := []byte{0x89, 'P', 'N', 'G', 1, 2, 3}
	req := llm.Request{
		Model:  "claude-test-1",
		System: "You are nova.",
		Tools: []llm.ToolSpec{
			{Name: "Read", Description: "Read a file", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
			{Name: "Bash", Description: "Run a command", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		},
		ThinkingBudget: 2048,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("look at this"), {Type: llm.PartImage, MediaType: "image/png", Data: png}}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartThinking, Text: "I will read it.", Signature: "sig-abc"},
				llm.TextPart("Reading."),
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"path":"a.go"}`)}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "toolu_1", Name: "Read", IsError: true, Content: []llm.Part{
					llm.TextPart("no such file"), {Type: llm.PartImage, MediaType: "image/png", Data: png},
				}}},
			}},
		},
	}
	if _, err := run(t.Context(), newTestClient(srv), req); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/messages" {
		t.Errorf("path = %s", r.Path)
	}
	if got := r.Header.Get("x-api-key"); got != "sk-test-key" {
		t.Errorf("x-api-key = %q", got)
	}
	var body wireRequest
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("body: %v\n%s", err, r.Body)
	}
	if body.Model != "claude-test-1" || !body.Stream || body.MaxTokens != defaultMaxTokens {
		t.Errorf("model, stream, max_tokens = %q, %v, %d", body.Model, body.Stream, body.MaxTokens)
	}
	if body.Thinking.Type != "enabled" || body.Thinking.Budget != 2048 {
		t.Errorf("thinking = %+v", body.Thinking)
	}
	if len(body.System) != 1 || body.System[0]["text"] != "You are nova." || !ephemeral(body.System[0]["cache_control"]) {
		t.Errorf("system = %v", body.System)
	}
	if len(body.Tools) != 2 || body.Tools[0].CacheControl != nil || !ephemeral(body.Tools[1].CacheControl) {
		t.Fatalf("tools = %+v; want two, cache_control only on the last", body.Tools)
	}
	if body.Tools[0].Description != "Read a file" || !jsonEqual(body.Tools[0].InputSchema, req.Tools[0].InputSchema) {
		t.Errorf("tool 0 = %+v", body.Tools[0])
	}
	if len(body.Messages) != 3 {
		t.Fatalf("got %d messages", len(body.Messages))
	}
	img := body.Messages[0].Content[1]
	src, _ := img["source"].(map[string]any)
	if img["type"] != "image" || src["type"] != "base64" || src["media_type"] != "image/png" || src["data"] != "iVBORwECAw==" {
		t.Errorf("image block = %v", img)
	}
	asst := body.Messages[1].Content
	if asst[0]["type"] != "thinking" || asst[0]["thinking"] != "I will read it." || asst[0]["signature"] != "sig-abc" {
		t.Errorf("thinking block = %v", asst[0])
	}
	if asst[2]["type"] != "tool_use" || asst[2]["id"] != "toolu_1" || asst[2]["name"] != "Read" {
		t.Errorf("tool_use block = %v", asst[2])
	}
	if in, _ := asst[2]["input"].(map[string]any); in["path"] != "a.go" {
		t.Errorf("tool_use input = %v", asst[2]["input"])
	}
	// Breakpoints: the end of the previous request (the last block before
	// the newest assistant message) and the newest block, nothing between.
	for i, m := range body.Messages[:2] {
		for j, b := range m.Content {
			if want := i == 0 && j == len(m.Content)-1; ephemeral(b["cache_control"]) != want {
				t.Errorf("message %d block %d: cache_control %v, want it only at the previous request's end", i, j, b["cache_control"])
			}
		}
	}
	tr := body.Messages[2].Content[0]
	if tr["type"] != "tool_result" || tr["tool_use_id"] != "toolu_1" || tr["is_error"] != true || !ephemeral(tr["cache_control"]) {
		t.Errorf("tool_result block = %v", tr)
	}
	content, _ := tr["content"].([]any)
	if len(content) != 2 {
		t.Fatalf("tool_result content = %v", tr["content"])
	}
	if c0, _ := content[0].(map[string]any); c0["type"] != "text" || c0["text"] != "no such file" {
		t.Errorf("tool_result text = %v", c0)
	}
	if c1, _ := content[1].(map[string]any); c1["type"] != "image" {
		t.Errorf("tool_result image = %v", c1)
	}
}

// wireRequest is the part of a Messages request the tests look at.
type wireRequest struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	Stream    bool   `json:"stream"`
	Thinking  struct {
		Type   string `json:"type"`
		Budget int    `json:"budget_tokens"`
	} `json:"thinking"`
	System []map[string]any `json:"system"`
	Tools  []struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"input_schema"`
		CacheControl map[string]any  `json:"cache_control"`
	} `json:"tools"`
	Messages []struct {
		Role    string           `json:"role"`
		Content []map[string]any `json:"content"`
	} `json:"messages"`
}

// marshalParams builds the request body buildParams would send.
func marshalParams(t *testing.T, req llm.Request) wireRequest {
	t.Helper()
	p, err := buildParams(req)
	if err != nil {
		t.Fatalf("buildParams: %v", err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var w wireRequest
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatalf("unmarshal: %v\n%s", err, raw)
	}
	return w
}

func TestBuildParamsTokens(t *testing.T) {
	tests := []struct {
		name                 string
		maxTokens, budget    int
		wantMax, wantBudget  int
		wantThinkingDisabled bool
	}{
		{name: "defaults", wantMax: 8192, wantThinkingDisabled: true},
		{name: "explicit max", maxTokens: 1000, wantMax: 1000, wantThinkingDisabled: true},
		{name: "budget below max", maxTokens: 16000, budget: 4000, wantMax: 16000, wantBudget: 4000},
		{name: "budget above max keeps room for the answer", maxTokens: 4096, budget: 10000, wantMax: 14096, wantBudget: 10000},
		{name: "budget raised to the API minimum", budget: 100, wantMax: 8192, wantBudget: 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := marshalParams(t, llm.Request{Model: "m", MaxTokens: tt.maxTokens, ThinkingBudget: tt.budget, Messages: []llm.Message{llm.UserText("x")}})
			if w.MaxTokens != tt.wantMax {
				t.Errorf("max_tokens = %d, want %d", w.MaxTokens, tt.wantMax)
			}
			if tt.wantThinkingDisabled {
				if w.Thinking.Type != "" {
					t.Errorf("thinking = %+v, want none", w.Thinking)
				}
				return
			}
			if w.Thinking.Type != "enabled" || w.Thinking.Budget != tt.wantBudget || w.Thinking.Budget >= w.MaxTokens {
				t.Errorf("thinking = %+v with max_tokens %d, want budget %d below it", w.Thinking, w.MaxTokens, tt.wantBudget)
			}
		})
	}
}

func TestBuildParamsMessages(t *testing.T) {
	tests := []struct {
		name  string
		msgs  []llm.Message
		check func(t *testing.T, w wireRequest)
	}{
		{
			name: "garbled tool input goes back as an empty object",
			msgs: []llm.Message{
				llm.UserText("go"),
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "t1", Name: "Edit", Input: json.RawMessage(`{"path": "x", "new`)}}}},
			},
			check: func(t *testing.T, w wireRequest) {
				if in, ok := w.Messages[1].Content[0]["input"].(map[string]any); !ok || len(in) != 0 {
					t.Errorf("input = %v, want {}", w.Messages[1].Content[0]["input"])
				}
			},
		},
		{
			name: "unsigned thinking is dropped, empty messages left out",
			msgs: []llm.Message{
				llm.UserText("go"),
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartThinking, Text: "hmm"}}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartThinking, Text: "hmm"}, llm.TextPart("done")}},
			},
			check: func(t *testing.T, w wireRequest) {
				if len(w.Messages) != 2 || len(w.Messages[1].Content) != 1 || w.Messages[1].Content[0]["type"] != "text" {
					t.Errorf("messages = %+v", w.Messages)
				}
			},
		},
		{
			name: "redacted thinking round-trips",
			msgs: []llm.Message{
				llm.UserText("go"),
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartThinking, Signature: redactedPrefix + "ENCRYPTED"}, llm.TextPart("ok")}},
			},
			check: func(t *testing.T, w wireRequest) {
				b := w.Messages[1].Content[0]
				if b["type"] != "redacted_thinking" || b["data"] != "ENCRYPTED" {
					t.Errorf("block = %v", b)
				}
			},
		},
		{
			name: "breakpoint skips a trailing thinking block",
			msgs: []llm.Message{
				llm.UserText("go"),
				{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("a"), {Type: llm.PartThinking, Text: "t", Signature: "s"}}},
			},
			check: func(t *testing.T, w wireRequest) {
				c := w.Messages[1].Content
				if !ephemeral(c[0]["cache_control"]) || c[1]["cache_control"] != nil {
					t.Errorf("content = %v", c)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, marshalParams(t, llm.Request{Model: "m", Messages: tt.msgs}))
		})
	}
}

func TestBuildParamsRejects(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"schema not an object", llm.Request{Tools: []llm.ToolSpec{{Name: "X", InputSchema: json.RawMessage(`[1]`)}}}},
		{"unknown role", llm.Request{Messages: []llm.Message{{Role: "system", Parts: []llm.Part{llm.TextPart("x")}}}}},
		{"tool call part without call", llm.Request{Messages: []llm.Message{{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := buildParams(tt.req); err == nil {
				t.Error("buildParams accepted it")
			}
		})
	}
}

func ephemeral(v any) bool {
	m, ok := v.(map[string]any)
	return ok && m["type"] == "ephemeral"
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
