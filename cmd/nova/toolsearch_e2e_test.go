package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// Tool search end to end: nova -p with ENABLE_TOOL_SEARCH=true and the
// test binary as an MCP server; the model loads mcp__t__echo with
// ToolSearch, then calls it. What the provider receives is checked on
// the wire, Anthropic's and OpenAI's.

// searchTurns load the echo tool by name, call it, and answer.
func searchTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_search", Name: "ToolSearch", Input: jsonInput(map[string]any{"query": "select:mcp__t__echo"})}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_echo", Name: "mcp__t__echo", Input: jsonInput(map[string]any{"text": "hello from mcp"})}}},
		{Text: "Done."},
	}
}

// wireTool is a tool as a request carries it, in either API's shape.
type wireTool struct {
	Name         string          `json:"name"`
	DeferLoading *bool           `json:"defer_loading"`
	CacheControl json.RawMessage `json:"cache_control"`
	Function     struct {
		Name string `json:"name"`
	} `json:"function"`
}

func (w wireTool) name() string {
	if w.Function.Name != "" {
		return w.Function.Name
	}
	return w.Name
}

// requestTools decodes the tools of a request, and returns them raw too.
func requestTools(t *testing.T, req llmtest.Request) ([]wireTool, json.RawMessage) {
	t.Helper()
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	var tools []wireTool
	if err := json.Unmarshal(body.Tools, &tools); err != nil {
		t.Fatal(err)
	}
	return tools, body.Tools
}

// toolReferences returns the tool_reference blocks of the tool_result
// answering id, in an Anthropic request.
func toolReferences(t *testing.T, req llmtest.Request, id string) []string {
	t.Helper()
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range body.Messages {
		var blocks []struct {
			Type      string `json:"type"`
			ToolUseID string `json:"tool_use_id"`
			Content   []struct {
				Type     string `json:"type"`
				ToolName string `json:"tool_name"`
			} `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" || b.ToolUseID != id {
				continue
			}
			for _, c := range b.Content {
				if c.Type == "tool_reference" {
					names = append(names, c.ToolName)
				}
			}
		}
	}
	return names
}

// TestToolSearchE2E, on Anthropic: the first request carries every MCP
// tool deferred and ToolSearch loaded; ToolSearch's answer reaches the
// API as a tool_reference to the echo tool; the echo then runs; and the
// tools array is the same, byte for byte, in every request, so the
// prompt cache is read from the second request on.
func TestToolSearchE2E(t *testing.T) {
	e := newE2E(t, searchTurns()...)
	cache := llmtest.NewCache()
	e.srv.UseCache(cache)
	e.env = append(e.env, "ENABLE_TOOL_SEARCH=true")
	r := e.run("", "-p", "--output-format", "json", "--mcp-config", mcpJSON(), "--allowedTools", "mcp__t__echo", "echo something")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider got %d requests, want 3; stderr %s", len(reqs), r.stderr)
	}

	tools, raw0 := requestTools(t, reqs[0])
	search, mcpTools := -1, 0
	for i, tl := range tools {
		deferred := tl.DeferLoading != nil && *tl.DeferLoading
		switch {
		case tl.Name == "ToolSearch":
			search = i
			if deferred {
				t.Error("ToolSearch is deferred")
			}
		case strings.HasPrefix(tl.Name, "mcp__t__"):
			mcpTools++
			if !deferred {
				t.Errorf("%s is not deferred", tl.Name)
			}
			if len(tl.CacheControl) > 0 {
				t.Errorf("%s is deferred and carries cache_control", tl.Name)
			}
		case deferred:
			t.Errorf("nova's own %s is deferred", tl.Name)
		}
	}
	if search < 0 || mcpTools == 0 || !slices.ContainsFunc(tools, func(w wireTool) bool { return w.Name == "mcp__t__echo" }) {
		t.Fatalf("first request: ToolSearch at %d, %d MCP tools; want ToolSearch and the server's tools, mcp__t__echo among them", search, mcpTools)
	}

	if got := toolReferences(t, reqs[1], "toolu_search"); !slices.Equal(got, []string{"mcp__t__echo"}) {
		t.Errorf("ToolSearch's answer carried references %v, want [mcp__t__echo]", got)
	}
	if res := toolResultsOf(t, reqs[1])["toolu_search"]; res.IsError || !strings.Contains(res.Text, "mcp__t__echo") {
		t.Errorf("ToolSearch's text: %+v", res)
	}
	if res := toolResultsOf(t, reqs[2])["toolu_echo"]; res.IsError || res.Text != "hello from mcp" {
		t.Errorf("the echo: %+v", res)
	}

	for i, req := range reqs[1:] {
		if _, raw := requestTools(t, req); !bytes.Equal(raw, raw0) {
			t.Errorf("request %d's tools differ from the first request's:\n%s\n%s", i+2, raw, raw0)
		}
	}
	for i, u := range cache.Usage()[1:] {
		if u.CacheReadTokens == 0 {
			t.Errorf("request %d read nothing from the cache: %+v", i+2, u)
		}
	}
}

// TestToolSearchE2EOpenAI: an OpenAI-compatible server cannot defer, so
// the MCP tools stay out of the tools array until ToolSearch loads one,
// which then joins it at the end; nothing of Anthropic's goes out.
func TestToolSearchE2EOpenAI(t *testing.T) {
	e := newE2E(t, searchTurns()...)
	// nova checks a model the config does not list against the server's list.
	e.srv.SetModels("coder")
	e.env = append(e.baseEnv(), "OPENAI_BASE_URL="+e.srv.URL+"/v1", "ENABLE_TOOL_SEARCH=true")
	r := e.run("", "-p", "--output-format", "json", "--model", "openai:coder", "--mcp-config", mcpJSON(), "--allowedTools", "mcp__t__echo", "echo something")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider got %d requests, want 3; stderr %s", len(reqs), r.stderr)
	}
	names := func(req llmtest.Request) []string {
		tools, _ := requestTools(t, req)
		var out []string
		for _, tl := range tools {
			out = append(out, tl.name())
		}
		return out
	}
	first, second, third := names(reqs[0]), names(reqs[1]), names(reqs[2])
	if !slices.Contains(first, "ToolSearch") || slices.ContainsFunc(first, func(n string) bool { return strings.HasPrefix(n, "mcp__t__") }) {
		t.Fatalf("first request's tools %v: want ToolSearch and no MCP tool", first)
	}
	if want := append(slices.Clone(first), "mcp__t__echo"); !slices.Equal(second, want) {
		t.Errorf("after the load: %v, want %v (the echo appended)", second, want)
	}
	if !slices.Equal(third, second) {
		t.Errorf("the tools changed again: %v, then %v", second, third)
	}
	for _, req := range reqs {
		if bytes.Contains(req.Body, []byte("defer_loading")) || bytes.Contains(req.Body, []byte("tool_reference")) {
			t.Errorf("an OpenAI request carries Anthropic's fields: %s", req.Body)
		}
	}
	if !bytes.Contains(reqs[2].Body, []byte("hello from mcp")) {
		t.Errorf("the echo did not reach the model: %s", reqs[2].Body)
	}
}
