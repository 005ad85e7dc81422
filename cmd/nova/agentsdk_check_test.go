package main

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// kindOfMsg is a message's kind: its type, with the subtype of system
// messages and results, the block types of assistant and user messages,
// and the event type of stream events.
func kindOfMsg(m map[string]any) string {
	t, _ := m["type"].(string)
	switch t {
	case "system", "result":
		st, _ := m["subtype"].(string)
		return t + "/" + st
	case "assistant", "user":
		msg, _ := m["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		var kinds []string
		for _, b := range blocks {
			if b, ok := b.(map[string]any); ok {
				kinds = append(kinds, b["type"].(string))
			}
		}
		if len(kinds) == 0 {
			if _, ok := msg["content"].(string); ok {
				kinds = append(kinds, "text")
			}
		}
		return t + ":" + strings.Join(kinds, ",")
	case "stream_event":
		ev, _ := m["event"].(map[string]any)
		return t + "/" + ev["type"].(string)
	}
	return t
}

// wantKinds holds the conversation's messages (system/init, assistant,
// user, result; nova's own system messages and stream events left out)
// to want.
func wantKinds(t *testing.T, msgs []map[string]any, want string) {
	t.Helper()
	var got []string
	for _, m := range msgs {
		switch k, _ := m["type"].(string); {
		case k == "system" && m["subtype"] == "init":
			got = append(got, "system/init")
		case k == "assistant", k == "user", k == "result":
			got = append(got, k)
		}
	}
	if strings.Join(got, " ") != want {
		t.Fatalf("messages %s, want %s:\n%s", strings.Join(got, " "), want, dumpMsgs(msgs))
	}
}

// blockOf is the first content block of an assistant or user message.
func blockOf(m map[string]any) map[string]any {
	msg, _ := m["message"].(map[string]any)
	blocks, _ := msg["content"].([]any)
	if len(blocks) == 0 {
		return map[string]any{}
	}
	b, _ := blocks[0].(map[string]any)
	return b
}

func wantText(t *testing.T, m map[string]any, text string) {
	t.Helper()
	if b := blockOf(m); b["type"] != "text" || b["text"] != text {
		t.Errorf("assistant message %v, want the text %q", m["message"], text)
	}
}

func wantResult(t *testing.T, m map[string]any, subtype, result string) {
	t.Helper()
	if m["type"] != "result" || m["subtype"] != subtype || m["result"] != result || m["is_error"] != (subtype != "success") {
		t.Errorf("result = %v, want %s %q", m, subtype, result)
	}
}

func dumpMsgs(ms []map[string]any) string {
	var b strings.Builder
	for _, m := range ms {
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// checkEveryMessage holds every message the SDK yielded to the shape of
// its kind, as the SDK's types (sdk.d.ts) describe it.
func checkEveryMessage(t *testing.T, msgs []map[string]any) {
	t.Helper()
	has := func(m map[string]any, keys ...string) {
		t.Helper()
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				line, _ := json.Marshal(m)
				t.Errorf("a %s message lacks %s: %s", kindOfMsg(m), k, line)
			}
		}
	}
	// A subagent's messages name the Agent call they work for, which an
	// assistant message before them made.
	agentCalls := map[string]bool{}
	for _, m := range msgs {
		if msg, _ := m["message"].(map[string]any); m["type"] == "assistant" {
			blocks, _ := msg["content"].([]any)
			for _, b := range blocks {
				if b, _ := b.(map[string]any); b["type"] == "tool_use" && b["name"] == "Agent" {
					agentCalls[b["id"].(string)] = true
				}
			}
		}
		if s, _ := m["session_id"].(string); s == "" {
			t.Errorf("a %s message has no session_id", kindOfMsg(m))
		}
		if u, _ := m["uuid"].(string); len(u) != 36 {
			t.Errorf("a %s message's uuid is %v", kindOfMsg(m), m["uuid"])
		}
		switch m["type"] {
		case "system":
			switch m["subtype"] {
			case "init":
				has(m, "cwd", "tools", "mcp_servers", "model", "permissionMode", "apiKeySource", "claude_code_version", "slash_commands", "output_style", "skills", "plugins")
			case "nova_tool_result":
				has(m, "tool_use_id", "tool_name", "is_error", "denied", "decision", "duration_ms")
			case "permission_denied":
				has(m, "tool_name", "tool_use_id", "message")
			case "hook_started":
				has(m, "hook_id", "hook_name", "hook_event")
			case "hook_response":
				has(m, "hook_id", "hook_name", "hook_event", "output", "stdout", "stderr", "outcome")
			case "nova_context", "nova_todos", "api_retry", "compact_boundary", "informational":
			default:
				t.Errorf("a system message of unknown subtype %v", m["subtype"])
			}
		case "assistant", "user":
			has(m, "message", "parent_tool_use_id")
			if p := m["parent_tool_use_id"]; p != nil {
				if id, _ := p.(string); !agentCalls[id] {
					t.Errorf("parent_tool_use_id = %v, want null or an earlier Agent call's id", p)
				}
			}
			msg, _ := m["message"].(map[string]any)
			if m["type"] == "assistant" {
				has(msg, "id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage")
				has(msg["usage"].(map[string]any), "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
			}
			blocks, _ := msg["content"].([]any)
			if len(blocks) != 1 {
				t.Errorf("a %s message has %d blocks, want 1", m["type"], len(blocks))
			}
			for _, b := range blocks {
				b := b.(map[string]any)
				switch b["type"] {
				case "text":
					has(b, "text")
				case "thinking":
					has(b, "thinking", "signature")
				case "tool_use":
					has(b, "id", "name", "input")
				case "tool_result":
					has(b, "tool_use_id", "content", "is_error")
				default:
					t.Errorf("a content block of unknown type %v", b["type"])
				}
			}
		case "stream_event":
			has(m, "event", "parent_tool_use_id")
			ev, _ := m["event"].(map[string]any)
			switch ev["type"] {
			case "message_start":
				has(ev, "message")
			case "content_block_start":
				has(ev, "index", "content_block")
			case "content_block_delta":
				has(ev, "index", "delta")
			case "content_block_stop":
				has(ev, "index")
			case "message_delta":
				has(ev, "delta", "usage")
			case "message_stop":
			default:
				t.Errorf("a stream event of unknown type %v", ev["type"])
			}
		case "result":
			has(m, "subtype", "is_error", "duration_ms", "duration_api_ms", "num_turns", "result", "stop_reason", "total_cost_usd", "usage", "modelUsage", "permission_denials")
			has(m["usage"].(map[string]any), "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
			if m["is_error"] == true {
				has(m, "errors")
			}
		case "tool_progress":
			has(m, "tool_use_id", "tool_name", "elapsed_time_seconds", "parent_tool_use_id")
		default:
			t.Errorf("a message of unknown type %v", m["type"])
		}
	}
}

// claudeOnly are the fields Claude Code's messages carry that nova's do
// not, by message kind (claude/only.json, shared with headless's test).
func claudeOnly(t *testing.T, dir string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "claude", "only.json"))
	if err != nil {
		t.Fatal(err)
	}
	var only map[string]any
	if err := json.Unmarshal(b, &only); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for k, v := range only {
		if l, ok := v.([]any); ok {
			for _, f := range l {
				out[k] = append(out[k], f.(string))
			}
		}
	}
	return out
}

// shared says whether both Claude Code and nova write a message of this
// kind; the others are each one's own (Claude Code's status and
// thinking_tokens, nova's nova_* messages).
func shared(kind string) bool {
	switch {
	case kind == "system/init", strings.HasPrefix(kind, "assistant:"), kind == "user:tool_result",
		strings.HasPrefix(kind, "result/"), strings.HasPrefix(kind, "stream_event/"):
		return true
	}
	return false
}

// compareWithClaude holds what the SDK yielded from nova to what it
// yielded from Claude Code in the same scenario (testdata's claude/*.jsonl,
// recorded with -agentsdk.record): the same messages in the same order,
// and every field Claude Code's carry that nova's should.
func compareWithClaude(t *testing.T, dir, name string, r sdkRun) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "claude", name+".jsonl"))
	if err != nil {
		t.Logf("no Claude Code fixture for %s: %v", name, err)
		return
	}
	defer f.Close()
	var cc []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Msg map[string]any `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("fixture %s: %v", name, err)
		}
		cc = append(cc, line.Msg)
	}
	// How a provider splits its stream into deltas is its own: a run of
	// deltas counts as one (Claude Code passes on the provider's; nova
	// makes its own from the complete call, and has no signature_delta).
	pick := func(ms []map[string]any) (out []map[string]any, kinds []string) {
		for _, m := range ms {
			k := kindOfMsg(m)
			if !shared(k) || (k == "stream_event/content_block_delta" && len(kinds) > 0 && kinds[len(kinds)-1] == k) {
				continue
			}
			out, kinds = append(out, m), append(kinds, k)
		}
		return out, kinds
	}
	ccMsgs, ccKinds := pick(cc)
	novaMsgs, novaKinds := pick(r.all)
	if !slices.Equal(ccKinds, novaKinds) {
		t.Errorf("nova's messages differ from Claude Code's:\nnova:   %s\nclaude: %s", strings.Join(novaKinds, " "), strings.Join(ccKinds, " "))
		return
	}
	only := claudeOnly(t, dir)
	for i, c := range ccMsgs {
		kind := strings.SplitN(strings.SplitN(ccKinds[i], ":", 2)[0], "/", 2)[0]
		if kind == "system" {
			kind = "system/init"
		}
		missingKeys(t, ccKinds[i], c, novaMsgs[i], only[kind])
	}
}

// missingKeys fails for each key of claude's message (and its nested
// objects) that nova's lacks, unless allowed says Claude Code alone has it.
func missingKeys(t *testing.T, kind string, claude, nova map[string]any, allowed []string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(claude)) {
		if slices.Contains(allowed, k) {
			continue
		}
		nv, ok := nova[k]
		if !ok {
			t.Errorf("%s: nova's message lacks %q, which Claude Code's has", kind, k)
			continue
		}
		if cm, ok := claude[k].(map[string]any); ok {
			if nm, ok := nv.(map[string]any); ok && k != "modelUsage" {
				missingKeys(t, kind+"."+k, cm, nm, allowed)
			}
		}
	}
}

// recordClaudeFixture drives Claude Code through the scenario and writes
// what the SDK yielded, with the test's paths made placeholders.
func recordClaudeFixture(t *testing.T, e *e2e, dir, name string) {
	t.Helper()
	bins, _ := filepath.Glob(filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-agent-sdk-*", "claude"))
	if len(bins) == 0 {
		t.Fatalf("no Claude Code binary in %s: npm install there (with the SDK's optional dependencies)", dir)
	}
	env := append(append([]string{}, e.env...), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"MCP_SERVERS="+sdkMCPServers())
	r := driveSDK(t, e, dir, name, bins[0], env)
	if len(r.errors) > 0 {
		t.Fatalf("Claude Code failed: %v\n%s", r.errors, r.stderr)
	}
	var b strings.Builder
	for q := 1; q <= len(r.msgs); q++ {
		for _, m := range r.msgs[q] {
			line, _ := json.Marshal(map[string]any{"query": q, "msg": m})
			s := strings.ReplaceAll(string(line), e.ws, "$WS")
			b.WriteString(strings.ReplaceAll(s, e.home, "$HOME") + "\n")
		}
	}
	out := filepath.Join(dir, "claude", name+".jsonl")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s", out)
}
