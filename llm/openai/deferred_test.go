package openai

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

var objectSchema = json.RawMessage(`{"type":"object"}`)

// searchSession is a request with tool search on, after a ToolSearch call
// loads mcp__t__image, then mcp__t__echo; mcp__t__hang is never loaded.
func searchSession(loads ...string) llm.Request {
	req := llm.Request{
		Model: "gpt-test",
		Tools: []llm.ToolSpec{
			{Name: "Read", Description: "Read a file", InputSchema: objectSchema},
			{Name: "ToolSearch", Description: "Loads deferred tools", InputSchema: objectSchema},
			{Name: "mcp__t__echo", Description: "Echo", InputSchema: objectSchema, Deferred: true},
			{Name: "mcp__t__hang", Description: "Hang", InputSchema: objectSchema, Deferred: true},
			{Name: "mcp__t__image", Description: "An image", InputSchema: objectSchema, Deferred: true},
		},
		Messages: []llm.Message{llm.UserText("go")},
	}
	for i, name := range loads {
		id := "call_" + string(rune('1'+i))
		req.Messages = append(req.Messages,
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "ToolSearch", Input: json.RawMessage(`{"query":"select:` + name + `"}`)}}}},
			llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Name: "ToolSearch", Content: []llm.Part{
				llm.TextPart("Loaded " + name + "."), llm.ToolReference(name),
			}}}}},
		)
	}
	return req
}

// toolNamesOf lists the tools of a recorded body: chat completions nests
// the name in "function", Responses does not.
func toolNamesOf(t *testing.T, body map[string]any) []string {
	t.Helper()
	var names []string
	list, _ := body["tools"].([]any)
	for _, tl := range list {
		m := tl.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok {
			m = fn
		}
		names = append(names, m["name"].(string))
	}
	return names
}

// TestDeferredToolsLoadOnReference: neither OpenAI API defers a tool, so
// a deferred tool is left out of the tools until the history references
// it, then sent at the end of the list, in the order the loads came; the
// references themselves are not text the model reads twice, and no
// defer_loading goes out (the Responses API refuses it without its own
// tool_search tool).
func TestDeferredToolsLoadOnReference(t *testing.T) {
	for _, a := range apis() {
		t.Run(a.name, func(t *testing.T) {
			steps := []struct {
				loads []string
				want  []string
			}{
				{nil, []string{"Read", "ToolSearch"}},
				{[]string{"mcp__t__image"}, []string{"Read", "ToolSearch", "mcp__t__image"}},
				{[]string{"mcp__t__image", "mcp__t__echo"}, []string{"Read", "ToolSearch", "mcp__t__image", "mcp__t__echo"}},
			}
			for _, s := range steps {
				r := recorded(t, a, searchSession(s.loads...))
				if got := toolNamesOf(t, r.JSON()); !reflect.DeepEqual(got, s.want) {
					t.Errorf("after loading %v: tools %v, want %v", s.loads, got, s.want)
				}
				if strings.Contains(string(r.Body), "defer_loading") || strings.Contains(string(r.Body), "tool_reference") {
					t.Errorf("an OpenAI request carries Anthropic's fields: %s", r.Body)
				}
			}
		})
	}
}

func TestResultTextOfReferences(t *testing.T) {
	r := &llm.ToolResult{Content: []llm.Part{llm.TextPart("Loaded a."), llm.ToolReference("a")}}
	if got := resultText(r); got != "Loaded a." {
		t.Errorf("with text: %q", got)
	}
	r = &llm.ToolResult{Content: []llm.Part{llm.ToolReference("a"), llm.ToolReference("b")}}
	if got := resultText(r); got != "Loaded tools: a, b" {
		t.Errorf("references alone: %q", got)
	}
}
