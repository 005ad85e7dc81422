package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// wideTool is a tool with a long description, as MCP servers' tools often
// have.
type wideTool struct{ name string }

func (w wideTool) Name() string          { return w.name }
func (wideTool) Description() string     { return strings.Repeat("d", 4_000) }
func (wideTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (wideTool) Kind() permission.Kind   { return permission.KindRead }
func (wideTool) Permission(json.RawMessage, *tools.Env) permission.Request {
	return permission.Request{}
}
func (wideTool) Run(context.Context, json.RawMessage, *tools.Env) (tools.Result, error) {
	return tools.Result{Output: "ok"}, nil
}

func specChars(t llm.ToolSpec) int { return len(t.Name) + len(t.Description) + len(t.InputSchema) }

// TestOverheadCountsOnlySentTools: deferred tools (tool search) are not in
// the context until a tool_reference loads them, so the context figure and
// the compaction estimate count the tools a request carries: the loaded
// ones, not 50 deferred definitions of 4,000 characters.
func TestOverheadCountsOnlySentTools(t *testing.T) {
	reg := tools.NewRegistry()
	if err := reg.Register(&fakeTool{name: "Read"}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if err := reg.RegisterDeferred(wideTool{fmt.Sprintf("mcp__s__t%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{Client: &scripted{}, Model: "m", System: "sys", Pipeline: &tools.Pipeline{Registry: reg},
		ContextWindow: 100_000, MaxTokens: 4_000}
	specs := map[string]llm.ToolSpec{}
	for _, s := range reg.Specs() {
		specs[s.Name] = s
	}
	base := len("sys") + specChars(specs["Read"])
	if got := overheadChars(cfg); got != base {
		t.Errorf("overhead with nothing loaded = %d, want %d (the system prompt and Read)", got, base)
	}
	if u := New(cfg).ContextUsage(); u.Used > 1_000 {
		t.Errorf("context used before any request = %d tokens: the deferred tools are counted", u.Used)
	}

	loaded := []llm.Message{
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "ToolSearch", Input: json.RawMessage(`{"query":"t3"}`)}}}},
		{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1",
			Content: []llm.Part{{Type: llm.PartToolReference, ToolName: "mcp__s__t3"}}}}}},
	}
	if got, want := requestOverheadChars(cfg, loaded), base+specChars(specs["mcp__s__t3"]); got != want {
		t.Errorf("overhead with mcp__s__t3 loaded = %d, want %d", got, want)
	}
}
