package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

var png = []byte("\x89PNG\r\n\x1a\nfake")

// conversation is a full turn cycle: a user asks, the assistant calls two
// tools, their results come back (one with an image), the user adds text.
func conversation() llm.Request {
	return llm.Request{
		Model:     "gpt-test",
		System:    "You are nova.",
		MaxTokens: 1000,
		Tools: []llm.ToolSpec{{
			Name: "Read", Description: "Read a file",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("look at this"), {Type: llm.PartImage, MediaType: "image/png", Data: png}}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartThinking, Text: "hmm", Signature: "sig"},
				llm.TextPart("Reading."),
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_1", Name: "Read", Input: json.RawMessage(`{"path":"a.go"}`)}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_2", Name: "Read", Input: json.RawMessage(`{"path":"b.png"}`)}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "call_1", Content: []llm.Part{llm.TextPart("package a")}}},
				{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "call_2", IsError: false, Content: []llm.Part{
					llm.TextPart("an image"), {Type: llm.PartImage, MediaType: "image/png", Data: png},
				}}},
				llm.TextPart("and now?"),
			}},
		},
	}
}

// get walks a decoded JSON value by keys and indexes, failing when absent.
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not an object: %v", path, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: no index %d in %v", path, k, v)
			}
			v = a[k]
		}
	}
	return v
}

func recorded(t *testing.T, a api, req llm.Request) llmtest.Request {
	t.Helper()
	srv := llmtest.New(llmtest.Turn{Text: "ok"})
	defer srv.Close()
	if _, err := stream(t, a.new(config(a, srv.URL)), req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Path != a.path {
		t.Errorf("path = %s, want %s", r.Path, a.path)
	}
	if h := r.Header.Get("Authorization"); h != "Bearer sk-test" {
		t.Errorf("Authorization = %q", h)
	}
	return r
}

func TestChatRequest(t *testing.T) {
	r := recorded(t, apis()[0], conversation())
	body := r.JSON()
	wantDataURL := "data:image/png;base64,iVBORw0KGgpmYWtl"
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"model"}, "gpt-test"},
		{[]any{"stream"}, true},
		{[]any{"stream_options", "include_usage"}, true},
		{[]any{"max_tokens"}, 1000.0},
		{[]any{"tools", 0, "type"}, "function"},
		{[]any{"tools", 0, "function", "name"}, "Read"},
		{[]any{"tools", 0, "function", "description"}, "Read a file"},
		{[]any{"tools", 0, "function", "parameters", "required", 0}, "path"},
		{[]any{"messages", 0, "role"}, "system"},
		{[]any{"messages", 0, "content"}, "You are nova."},
		{[]any{"messages", 1, "role"}, "user"},
		{[]any{"messages", 1, "content", 0, "text"}, "look at this"},
		{[]any{"messages", 1, "content", 1, "image_url", "url"}, wantDataURL},
		{[]any{"messages", 2, "role"}, "assistant"},
		{[]any{"messages", 2, "content"}, "Reading."},
		{[]any{"messages", 2, "tool_calls", 0, "id"}, "call_1"},
		{[]any{"messages", 2, "tool_calls", 0, "function", "name"}, "Read"},
		{[]any{"messages", 2, "tool_calls", 0, "function", "arguments"}, `{"path":"a.go"}`},
		{[]any{"messages", 2, "tool_calls", 1, "id"}, "call_2"},
		{[]any{"messages", 3, "role"}, "tool"},
		{[]any{"messages", 3, "tool_call_id"}, "call_1"},
		{[]any{"messages", 3, "content"}, "package a"},
		{[]any{"messages", 4, "role"}, "tool"},
		{[]any{"messages", 4, "tool_call_id"}, "call_2"},
		{[]any{"messages", 4, "content"}, "an image"},
		{[]any{"messages", 5, "role"}, "user"},
		{[]any{"messages", 5, "content", 0, "image_url", "url"}, wantDataURL},
		{[]any{"messages", 5, "content", 1, "text"}, "and now?"},
	}
	for _, c := range checks {
		if got := get(t, body, c.path...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v = %v, want %v", c.path, got, c.want)
		}
	}
	if n := len(get(t, body, "messages").([]any)); n != 6 {
		t.Errorf("%d messages, want 6", n)
	}
	if strings.Contains(string(r.Body), "hmm") {
		t.Error("thinking was sent back")
	}
}

func TestResponsesRequest(t *testing.T) {
	r := recorded(t, apis()[1], conversation())
	body := r.JSON()
	wantDataURL := "data:image/png;base64,iVBORw0KGgpmYWtl"
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"model"}, "gpt-test"},
		{[]any{"stream"}, true},
		{[]any{"store"}, false},
		{[]any{"instructions"}, "You are nova."},
		{[]any{"max_output_tokens"}, 1000.0},
		{[]any{"tools", 0, "type"}, "function"},
		{[]any{"tools", 0, "name"}, "Read"},
		{[]any{"tools", 0, "strict"}, false},
		{[]any{"tools", 0, "parameters", "required", 0}, "path"},
		{[]any{"input", 0, "role"}, "user"},
		{[]any{"input", 0, "content", 0, "type"}, "input_text"},
		{[]any{"input", 0, "content", 0, "text"}, "look at this"},
		{[]any{"input", 0, "content", 1, "type"}, "input_image"},
		{[]any{"input", 0, "content", 1, "image_url"}, wantDataURL},
		{[]any{"input", 1, "role"}, "assistant"},
		{[]any{"input", 1, "content"}, "Reading."},
		{[]any{"input", 2, "type"}, "function_call"},
		{[]any{"input", 2, "call_id"}, "call_1"},
		{[]any{"input", 2, "name"}, "Read"},
		{[]any{"input", 2, "arguments"}, `{"path":"a.go"}`},
		{[]any{"input", 3, "call_id"}, "call_2"},
		{[]any{"input", 4, "type"}, "function_call_output"},
		{[]any{"input", 4, "call_id"}, "call_1"},
		{[]any{"input", 4, "output"}, "package a"},
		{[]any{"input", 5, "type"}, "function_call_output"},
		{[]any{"input", 5, "call_id"}, "call_2"},
		{[]any{"input", 5, "output", 0, "type"}, "input_text"},
		{[]any{"input", 5, "output", 0, "text"}, "an image"},
		{[]any{"input", 5, "output", 1, "type"}, "input_image"},
		{[]any{"input", 5, "output", 1, "image_url"}, wantDataURL},
		{[]any{"input", 6, "role"}, "user"},
		{[]any{"input", 6, "content", 0, "text"}, "and now?"},
	}
	for _, c := range checks {
		if got := get(t, body, c.path...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v = %v, want %v", c.path, got, c.want)
		}
	}
	if n := len(get(t, body, "input").([]any)); n != 7 {
		t.Errorf("%d input items, want 7", n)
	}
	if strings.Contains(string(r.Body), "hmm") {
		t.Error("thinking was sent back")
	}
}

func TestRequestOptions(t *testing.T) {
	cases := []struct {
		name string
		api  api
		req  func(r *llm.Request)
		path []any
		want any
	}{
		{"chat effort", apis()[0], func(r *llm.Request) { r.ThinkingBudget = 2000 }, []any{"reasoning_effort"}, "low"},
		{"responses effort", apis()[1], func(r *llm.Request) { r.ThinkingBudget = 32000 }, []any{"reasoning", "effort"}, "high"},
		{"responses summary", apis()[1], func(r *llm.Request) { r.ThinkingBudget = 8000 }, []any{"reasoning", "summary"}, "auto"},
		{"error result marked", apis()[0], func(r *llm.Request) {
			r.Messages = append(r.Messages,
				llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c", Name: "X"}}}},
				llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c", IsError: true, Content: []llm.Part{llm.TextPart("denied")}}}}},
			)
		}, []any{"messages", 2, "content"}, "Error: denied"},
		{"empty input sent as object", apis()[1], func(r *llm.Request) {
			r.Messages = append(r.Messages,
				llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c", Name: "X"}}}})
		}, []any{"input", 1, "arguments"}, "{}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := request()
			tc.req(&req)
			body := recorded(t, tc.api, req).JSON()
			if got := get(t, body, tc.path...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%v = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// TestChatCompatibleQuirks feeds the chat client what some compatible
// servers send: "reasoning" instead of reasoning_content, every tool call
// at index 0 with its own id and whole arguments, finish_reason "stop"
// after tool calls, no usage and no [DONE].
func TestChatCompatibleQuirks(t *testing.T) {
	chunks := []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning":"thinking..."}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_x","function":{"name":"Read","arguments":"{\"path\":\"x\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_y","function":{"name":"Ls","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
	}))
	defer srv.Close()
	evs, err := stream(t, NewChat(config(apis()[0], srv.URL)), request())
	if err != nil {
		t.Fatal(err)
	}
	if _, th := collect(evs, llm.EventThinkingDelta); th != "thinking..." {
		t.Errorf("thinking = %q", th)
	}
	calls := toolCalls(evs)
	if len(calls) != 2 || calls[0].ID != "call_x" || calls[1].ID != "call_y" || calls[1].Name != "Ls" {
		t.Fatalf("calls = %+v", calls)
	}
	sameJSON(t, calls[0].Input, `{"path":"x"}`)
	sameJSON(t, calls[1].Input, `{}`)
	if stop := stopOf(t, evs); stop != llm.StopToolUse {
		t.Errorf("stop = %s", stop)
	}
}

// TestChatIncomplete checks that a stream closed cleanly before any
// finish_reason is an error, not a silently short answer.
func TestChatIncomplete(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"half"}}]}`+"\n\n")
	}))
	defer srv.Close()
	_, err := stream(t, NewChat(config(apis()[0], srv.URL)), request())
	wantKind(t, err, llm.ErrStream)
}

func TestValidInput(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `{}`},
		{"  ", `{}`},
		{`{"a":1}`, `{"a":1}`},
		{`{"a":`, `"{\"a\":"`}, // a model slip travels as a JSON string
	}
	for _, tc := range cases {
		if got := string(validInput(tc.in)); got != tc.want {
			t.Errorf("validInput(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
