package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// searchBody is a Messages request with the tools given and, when refs is
// not nil, a ToolSearch call answered by a result holding tool_reference
// blocks naming refs.
func searchBody(tools []map[string]any, refs ...string) string {
	msgs := []any{map[string]any{"role": "user", "content": "find the tool"}}
	if refs != nil {
		content := []any{map[string]any{"type": "text", "text": "Loaded."}}
		for _, r := range refs {
			content = append(content, map[string]any{"type": "tool_reference", "tool_name": r})
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "ToolSearch", "input": map[string]any{}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": content}}},
		)
	}
	b, _ := json.Marshal(map[string]any{"model": "claude-test", "max_tokens": 10, "tools": tools, "messages": msgs})
	return string(b)
}

func tool(name string, deferred bool, extra ...map[string]any) map[string]any {
	t := map[string]any{"name": name, "description": "the " + name + " tool", "input_schema": map[string]any{"type": "object"}}
	if deferred {
		t["defer_loading"] = true
	}
	for _, e := range extra {
		for k, v := range e {
			t[k] = v
		}
	}
	return t
}

var breakpoint = map[string]any{"cache_control": map[string]any{"type": "ephemeral"}}

// TestAnthropicToolSearchRefusals: the fake refuses, with the API's 400,
// what the API refuses of tool search, cache or no cache, and serves the
// request that keeps the rules.
func TestAnthropicToolSearchRefusals(t *testing.T) {
	search := tool("ToolSearch", false, breakpoint)
	tests := []struct {
		name, body, want string
	}{
		{"every tool deferred", searchBody([]map[string]any{tool("ToolSearch", true), tool("mcp__a", true)}),
			"All tools have defer_loading set. At least one tool must be non-deferred."},
		{"a deferred tool with a breakpoint", searchBody([]map[string]any{tool("ToolSearch", false), tool("mcp__a", true, breakpoint)}),
			"Tool 'mcp__a' cannot have both defer_loading=true and cache_control set. Tools with defer_loading cannot use prompt caching."},
		{"a reference to a tool not in the array", searchBody([]map[string]any{search, tool("mcp__a", true)}, "mcp__a", "mcp__gone"),
			"Tool reference 'mcp__gone' has no corresponding tool definition"},
		{"a reference to a tool not deferred", searchBody([]map[string]any{search, tool("mcp__a", false)}, "mcp__a"),
			"Tool reference 'mcp__a' names a tool without defer_loading: true"},
		{"all well", searchBody([]map[string]any{search, tool("mcp__a", true), tool("mcp__b", true)}, "mcp__b"), ""},
		{"no tools at all", searchBody(nil), ""},
	}
	for _, cached := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name
			if cached {
				name += ", with the cache"
			}
			t.Run(name, func(t *testing.T) {
				srv := New(Turn{Text: "ok"})
				defer srv.Close()
				if cached {
					srv.UseCache(NewCache())
				}
				resp := postMessages(t, srv, tt.body)
				b, _ := io.ReadAll(resp.Body)
				if tt.want == "" {
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("status %d: %s", resp.StatusCode, b)
					}
					return
				}
				if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tt.want) || !strings.Contains(string(b), "invalid_request_error") {
					t.Errorf("status %d, body %s; want 400 saying %q", resp.StatusCode, b, tt.want)
				}
			})
		}
	}
}

// TestCacheCountsDeferredTools: a deferred tool is part of the prefix, its
// flag included, so a session whose tools array stays the same keeps its
// cache while tools load, and one that changes a deferred tool does not.
func TestCacheCountsDeferredTools(t *testing.T) {
	srv, _, _ := newCacheServer(t, 4)
	big := map[string]any{"description": strings.Repeat("a long description ", 300)}
	tools := func(deferB bool) []map[string]any {
		return []map[string]any{tool("ToolSearch", false, big, breakpoint), tool("mcp__a", true, big), tool("mcp__b", deferB, big)}
	}
	withSystem := func(body string) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(body), &m)
		m["system"] = []any{map[string]any{"type": "text", "text": strings.Repeat("s", 4000), "cache_control": map[string]any{"type": "ephemeral"}}}
		b, _ := json.Marshal(m)
		return string(b)
	}
	_, r1, w1 := cacheUsage(t, srv, withSystem(searchBody(tools(true))))
	if r1 != 0 || w1 == 0 {
		t.Fatalf("first request: read %v, write %v", r1, w1)
	}
	// A tool loads: same tools array, the reference in the messages.
	_, r2, _ := cacheUsage(t, srv, withSystem(searchBody(tools(true), "mcp__a")))
	if r2 != w1 {
		t.Errorf("after a load: read %v, want the first request's %v", r2, w1)
	}
	// mcp__b stops being deferred: the prefix from it on is new; only the
	// breakpoint before it (ToolSearch's) is read.
	_, r3, _ := cacheUsage(t, srv, withSystem(searchBody(tools(false), "mcp__a")))
	if r3 == 0 || r3 >= r2 {
		t.Errorf("after a deferred tool changed: read %v, want only the tools before it (less than %v)", r3, r2)
	}
}
