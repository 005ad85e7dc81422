package headless

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// fixtureDir holds what the Claude Agent SDK yielded from Claude Code
// 2.1.333 in the scenarios of drive.mjs (cmd/nova's TestAgentSDK records
// it with -agentsdk.record), and the fields only Claude Code writes.
var fixtureDir = filepath.Join("testdata", "agentsdk", "claude")

// TestStreamJSONMatchesClaudeCode runs print mode's stream-json, a real
// agent on the fake provider, through the one-prompt scenarios Claude
// Code was recorded in, and holds nova's messages to Claude Code's: the
// same messages in the same order (a run of deltas counting as one), and
// every field Claude Code's carry, except those only.json lists. It needs
// no node: cmd/nova's TestAgentSDK does the same through the SDK itself.
func TestStreamJSONMatchesClaudeCode(t *testing.T) {
	read := func(ws string) llmtest.ToolCall {
		b, _ := json.Marshal(map[string]string{"file_path": filepath.Join(ws, "greet.txt")})
		return llmtest.ToolCall{ID: "toolu_1", Name: "Read", Input: string(b)}
	}
	for _, sc := range []struct {
		name    string
		partial bool
		turns   func(ws string) []llmtest.Turn
	}{
		{"text", false, func(string) []llmtest.Turn { return []llmtest.Turn{{Text: "Hello from the fake model."}} }},
		{"tool", false, func(ws string) []llmtest.Turn {
			return []llmtest.Turn{{Text: "Let me read it.", ToolCalls: []llmtest.ToolCall{read(ws)}}, {Text: "It says hello world."}}
		}},
		{"partial", true, func(ws string) []llmtest.Turn {
			return []llmtest.Turn{{Thinking: "The user wants the file.", Text: "Reading.", ToolCalls: []llmtest.ToolCall{read(ws)}}, {Text: "It says hello world."}}
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			srv := llmtest.New()
			defer srv.Close()
			ag, reg, _, ws := toolAgent(t, srv, false)
			srv.Push(sc.turns(ws)...)
			if err := os.WriteFile(filepath.Join(ws, "greet.txt"), []byte("hello world\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			code := Run(context.Background(), ag, Options{Prompt: "p", Format: FormatStreamJSON, SessionID: "S", Model: "anthropic:claude-test",
				Cwd: ws, Tools: reg.Names(), PermissionMode: "default", Partial: sc.partial, Stdout: &out, Stderr: &errOut})
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			nova, _ := messages(t, out.String())
			holdToClaude(t, sc.name, nova)
		})
	}
}

func holdToClaude(t *testing.T, name string, nova []map[string]any) {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
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
			t.Fatal(err)
		}
		cc = append(cc, line.Msg)
	}
	b, err := os.ReadFile(filepath.Join(fixtureDir, "only.json"))
	if err != nil {
		t.Fatal(err)
	}
	var only map[string]any
	_ = json.Unmarshal(b, &only)
	ccMsgs, ccKinds := sharedMessages(cc)
	novaMsgs, novaKinds := sharedMessages(nova)
	if !slices.Equal(ccKinds, novaKinds) {
		t.Fatalf("nova's messages differ from Claude Code's:\nnova:   %s\nclaude: %s", strings.Join(novaKinds, " "), strings.Join(ccKinds, " "))
	}
	for i, c := range ccMsgs {
		kind := strings.SplitN(strings.SplitN(ccKinds[i], ":", 2)[0], "/", 2)[0]
		if kind == "system" {
			kind = "system/init"
		}
		lacking(t, ccKinds[i], c, novaMsgs[i], asList(only[kind]))
	}
}

func asList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, s := range l {
		out = append(out, s.(string))
	}
	return out
}

// sharedMessages are the messages of kinds both write (system/init,
// assistant, tool results, stream events, the result), a run of deltas
// as one, with their kinds.
func sharedMessages(ms []map[string]any) (out []map[string]any, kinds []string) {
	for _, m := range ms {
		k := m["type"].(string)
		switch k {
		case "system":
			if m["subtype"] != "init" {
				continue
			}
			k = "system/init"
		case "result":
			k += "/" + m["subtype"].(string)
		case "assistant", "user":
			msg, _ := m["message"].(map[string]any)
			blocks, _ := msg["content"].([]any)
			var bs []string
			for _, b := range blocks {
				bs = append(bs, b.(map[string]any)["type"].(string))
			}
			k += ":" + strings.Join(bs, ",")
			if k != "user:tool_result" && m["type"] == "user" {
				continue
			}
		case "stream_event":
			k += "/" + m["event"].(map[string]any)["type"].(string)
			if k == "stream_event/content_block_delta" && len(kinds) > 0 && kinds[len(kinds)-1] == k {
				continue
			}
		default:
			continue
		}
		out, kinds = append(out, m), append(kinds, k)
	}
	return out, kinds
}

// lacking fails for each key of claude (and its nested objects) nova's
// message lacks, unless allowed names it.
func lacking(t *testing.T, kind string, claude, nova map[string]any, allowed []string) {
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
		cm, cok := claude[k].(map[string]any)
		nm, nok := nv.(map[string]any)
		if cok && nok && k != "modelUsage" {
			lacking(t, kind+"."+k, cm, nm, allowed)
		}
	}
}
