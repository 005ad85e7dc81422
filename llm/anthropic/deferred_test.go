package anthropic

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

var objectSchema = json.RawMessage(`{"type":"object"}`)

// searchRequest is a session with tool search on: Read and ToolSearch
// loaded, two MCP tools deferred, and a ToolSearch answer that loads one
// of them, names a tool that is gone and one that is not deferred.
func searchRequest() llm.Request {
	return llm.Request{
		Model: "claude-test-1",
		Tools: []llm.ToolSpec{
			{Name: "Read", Description: "Read a file", InputSchema: objectSchema},
			{Name: "ToolSearch", Description: "Loads deferred tools", InputSchema: objectSchema},
			{Name: "mcp__t__echo", Description: "Echo", InputSchema: objectSchema, Deferred: true},
			{Name: "mcp__t__image", Description: "An image", InputSchema: objectSchema, Deferred: true},
		},
		Messages: []llm.Message{
			llm.UserText("echo hi"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_1", Name: "ToolSearch", Input: json.RawMessage(`{"query":"select:mcp__t__echo"}`)}}}},
			{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "toolu_1", Name: "ToolSearch", Content: []llm.Part{
				llm.TextPart("Loaded mcp__t__echo: it can be called now."),
				llm.ToolReference("mcp__t__echo"),
				llm.ToolReference("mcp__gone__x"),
				llm.ToolReference("Read"),
			}}}}},
		},
	}
}

// rawWire is the request body buildParams would send, as generic JSON.
func rawWire(t *testing.T, req llm.Request) map[string]any {
	t.Helper()
	p, err := buildParams(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDeferredToolsWire holds the Messages request to the tool search
// contract: deferred tools go out with defer_loading: true and no
// cache_control, the tools' breakpoint moves to the last loaded tool, and
// a result's references come first as tool_reference blocks naming only
// deferred tools of the request.
func TestDeferredToolsWire(t *testing.T) {
	w := rawWire(t, searchRequest())
	tools, _ := w["tools"].([]any)
	if len(tools) != 4 {
		t.Fatalf("tools = %v", w["tools"])
	}
	for i, want := range []struct {
		deferred, breakpoint bool
	}{{false, false}, {false, true}, {true, false}, {true, false}} {
		tl := tools[i].(map[string]any)
		if d, ok := tl["defer_loading"]; ok != want.deferred || (ok && d != true) {
			t.Errorf("tool %v: defer_loading = %v, want it %v", tl["name"], d, want.deferred)
		}
		if _, ok := tl["cache_control"]; ok != want.breakpoint {
			t.Errorf("tool %v: cache_control present = %v, want %v", tl["name"], ok, want.breakpoint)
		}
	}
	msgs := w["messages"].([]any)
	result := msgs[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	content := result["content"].([]any)
	want := []map[string]any{
		{"type": "tool_reference", "tool_name": "mcp__t__echo"},
		{"type": "text", "text": "Loaded mcp__t__echo: it can be called now."},
	}
	if len(content) != len(want) {
		t.Fatalf("tool_result content = %v, want %v", content, want)
	}
	for i := range want {
		if !reflect.DeepEqual(content[i], any(map[string]any(want[i]))) {
			t.Errorf("content %d = %v, want %v", i, content[i], want[i])
		}
	}
}

// TestDeferredToolsAllDeferred: with every tool deferred nothing could
// load them, and the API refuses the request; they go out loaded, and
// references to them are left out.
func TestDeferredToolsAllDeferred(t *testing.T) {
	req := searchRequest()
	for i := range req.Tools {
		req.Tools[i].Deferred = true
	}
	w := rawWire(t, req)
	tools := w["tools"].([]any)
	for _, tl := range tools {
		if _, ok := tl.(map[string]any)["defer_loading"]; ok {
			t.Errorf("tool %v deferred", tl)
		}
	}
	if _, ok := tools[3].(map[string]any)["cache_control"]; !ok {
		t.Error("the breakpoint is not on the last tool")
	}
	content := w["messages"].([]any)[2].(map[string]any)["content"].([]any)[0].(map[string]any)["content"].([]any)
	if len(content) != 1 || content[0].(map[string]any)["type"] != "text" {
		t.Errorf("content = %v, want the text alone", content)
	}
}

// TestDeferredToolsAccepted sends the request through the SDK to the fake
// provider, which refuses what the API refuses (llmtest's
// TestAnthropicToolSearchRefusals).
func TestDeferredToolsAccepted(t *testing.T) {
	srv := llmtest.New(llmtest.Turn{Text: "ok"})
	defer srv.Close()
	if _, err := run(t.Context(), newTestClient(srv), searchRequest()); err != nil {
		t.Fatalf("the fake API refused the request: %v", err)
	}
	body := srv.Requests()[0].JSON()
	if tl := body["tools"].([]any)[2].(map[string]any); tl["defer_loading"] != true {
		t.Errorf("the SDK did not send defer_loading: %v", tl)
	}
}
