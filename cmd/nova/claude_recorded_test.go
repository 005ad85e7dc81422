package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// hookEventOutline is a stream-json session as the order of its messages:
// init, assistant, user and result by type, a hook message by its
// subtype, hook_name, outcome, exit code and output; nothing else.
func hookEventOutline(t *testing.T, lines []map[string]any) []string {
	t.Helper()
	var out []string
	for _, m := range lines {
		switch typ, sub := m["type"], m["subtype"]; {
		case typ == "system" && sub == "init":
			out = append(out, "init")
		case typ == "system" && (sub == "hook_started" || sub == "hook_response"):
			s := fmt.Sprintf("%s %s", sub, m["hook_name"])
			if sub == "hook_response" {
				s += fmt.Sprintf(" %v exit=%v stdout=%q stderr=%q output=%q", m["outcome"], m["exit_code"], m["stdout"], m["stderr"], m["output"])
			}
			out = append(out, s)
		case typ == "assistant" || typ == "user" || typ == "result":
			out = append(out, typ.(string))
		}
	}
	return out
}

// TestHookEventsAsClaudeCode holds nova's --include-hook-events to what
// Claude Code 2.1.333 wrote for the same hooks and the same model turns
// (headless/testdata/agentsdk/claude/hook-events*.jsonl, recorded against
// the fake provider): the same hook messages, in the same places among
// init, the assistant and user messages and the result, with the same
// outcome, exit code and output.
func TestHookEventsAsClaudeCode(t *testing.T) {
	toolTurns := []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: `{"command":"echo hi","description":"say hi"}`}}},
		{Text: "done"},
	}
	toolHooks := func(pre string) string {
		return `{
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + pre + `"}]}],
  "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo post-out"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ups-out"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}]
}`
	}
	for _, c := range []struct {
		name, hooks string
		turns       []llmtest.Turn
	}{
		{"hook-events", toolHooks("echo pre-out; echo pre-err >&2"), toolTurns},
		{"hook-events-block", toolHooks("echo pre-out; echo blocked-by-hook >&2; exit 2"), toolTurns},
		// SessionEnd runs after the result: neither writes it.
		{"hook-events-session", `{
  "SessionStart": [{"hooks": [{"type": "command", "command": "echo ss-out"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ups-out"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo stop-out"}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "echo se-out"}]}]
}`, []llmtest.Turn{{Text: "done"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newE2E(t, c.turns...)
			e.userHooks(c.hooks)
			r := e.run("", "-p", "--output-format", "stream-json", "--verbose", "--include-hook-events", "--allowedTools", "Bash", "say hi")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			got := hookEventOutline(t, streamLines(t, r.stdout))
			rec, err := os.ReadFile(filepath.Join("..", "..", "headless", "testdata", "agentsdk", "claude", c.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			want := hookEventOutline(t, streamLines(t, string(rec)))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("nova:\n  %s\nClaude Code:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// TestReplayUserMessagesAsClaudeCode holds --replay-user-messages to
// Claude Code 2.1.333's output for one stream-json prompt
// (headless/testdata/agentsdk/claude/replay-user.jsonl): the init
// message, then the prompt written back with Claude Code's fields, then
// the answer and the result.
func TestReplayUserMessagesAsClaudeCode(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "hello back"})
	in := `{"type":"user","message":{"role":"user","content":"hello"},"parent_tool_use_id":null,"session_id":""}` + "\n"
	r := e.run(in, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--replay-user-messages")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rec, err := os.ReadFile(filepath.Join("..", "..", "headless", "testdata", "agentsdk", "claude", "replay-user.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	outline := func(lines []map[string]any) (kinds []string, replay []string) {
		for _, m := range lines {
			switch typ := m["type"]; {
			case typ == "system" && m["subtype"] == "init":
				kinds = append(kinds, "init")
			case typ == "user" && m["isReplay"] == true:
				kinds = append(kinds, "replay")
				for k := range m {
					replay = append(replay, k)
				}
				sort.Strings(replay)
			case typ == "assistant" || typ == "result" || typ == "user":
				kinds = append(kinds, typ.(string))
			}
		}
		return kinds, replay
	}
	gotKinds, gotFields := outline(streamLines(t, r.stdout))
	wantKinds, wantFields := outline(streamLines(t, string(rec)))
	if !reflect.DeepEqual(gotKinds, wantKinds) {
		t.Errorf("order: nova %v, Claude Code %v", gotKinds, wantKinds)
	}
	if !reflect.DeepEqual(gotFields, wantFields) {
		t.Errorf("the replayed message's fields: nova %v, Claude Code %v", gotFields, wantFields)
	}
}
