package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// hookEventTurns: the model runs echo (which the hook lets through), then
// rm (which the hook blocks), then answers.
func hookEventTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_ok", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo hi"})}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_rm", Name: "Bash", Input: jsonInput(map[string]any{"command": "rm -f precious.txt"})}}},
		{Text: "Done."},
	}
}

// streamLines decodes stream-json output.
func streamLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var ms []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		ms = append(ms, m)
	}
	return ms
}

// TestIncludeHookEventsE2E: with --include-hook-events, each run of a
// PreToolUse hook is a hook_started before and a hook_response after it
// (the SDK's SDKHookStartedMessage and SDKHookResponseMessage), both
// before the call's result, with what the hook wrote, its exit code and
// outcome; the result stays the last line. Without the flag nothing
// changes, and without stream-json output the flag is refused.
func TestIncludeHookEventsE2E(t *testing.T) {
	e := newE2E(t, hookEventTurns()...)
	guard := e.script("guard.sh", "#!/bin/sh\nif grep -q 'rm -f'; then echo 'no rm here' >&2; exit 2; fi\necho 'looks fine'\n")
	e.userHooks(commandHook("PreToolUse", "Bash", guard))
	e.write("precious.txt", "keep")
	r := e.run("", "-p", "--output-format", "stream-json", "--verbose", "--include-hook-events", "--allowedTools", "Bash", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	ms := streamLines(t, r.stdout)
	sid := ms[0]["session_id"]
	if ms[0]["subtype"] != "init" || ms[len(ms)-1]["type"] != "result" {
		t.Fatalf("first %v, last %v: want the init message first and the result last", ms[0]["subtype"], ms[len(ms)-1]["type"])
	}
	type run struct{ call, started, response, result int }
	runs := map[string]*run{} // by hook_id
	var order []string
	var calls []int // the lines of the assistant tool_use messages
	for i, m := range ms {
		switch {
		case m["type"] == "assistant":
			msg, _ := m["message"].(map[string]any)
			if blocks, _ := msg["content"].([]any); len(blocks) == 1 && blocks[0].(map[string]any)["type"] == "tool_use" {
				calls = append(calls, i)
			}
		case m["subtype"] == "hook_started":
			id, _ := m["hook_id"].(string)
			if m["hook_event"] != "PreToolUse" || m["hook_name"] != "PreToolUse:Bash" || m["session_id"] != sid || id == "" || m["uuid"] == nil {
				t.Errorf("hook_started %v", m)
			}
			order = append(order, id)
			runs[id] = &run{call: -1, started: i}
			if len(calls) >= len(order) {
				runs[id].call = calls[len(order)-1]
			}
		case m["subtype"] == "hook_response":
			id, _ := m["hook_id"].(string)
			if runs[id] == nil {
				t.Fatalf("hook_response %v before its hook_started", m)
			}
			runs[id].response = i
		case m["type"] == "user":
			for _, id := range order {
				if runs[id].result == 0 {
					runs[id].result = i
					break
				}
			}
		}
	}
	if len(order) != 2 {
		t.Fatalf("%d hook runs told, want 2 (one per Bash call):\n%s", len(order), r.stdout)
	}
	for n, id := range order {
		h := runs[id]
		if !(h.call >= 0 && h.call < h.started && h.started < h.response && h.response < h.result) {
			t.Errorf("run %d: the call at line %d, hook_started at %d, hook_response at %d, the call's result at %d: want them in that order",
				n, h.call, h.started, h.response, h.result)
		}
	}
	ok, blocked := ms[runs[order[0]].response], ms[runs[order[1]].response]
	if ok["outcome"] != "success" || ok["exit_code"] != 0.0 || ok["stdout"] != "looks fine\n" || ok["output"] != "looks fine\n" || ok["stderr"] != "" {
		t.Errorf("the run that let echo through: %v", ok)
	}
	if blocked["outcome"] != "error" || blocked["exit_code"] != 2.0 || blocked["stderr"] != "no rm here\n" || !strings.Contains(blocked["output"].(string), "no rm here") {
		t.Errorf("the run that blocked rm: %v", blocked)
	}
	if e.read("precious.txt") != "keep" {
		t.Error("the blocked rm ran")
	}

	// Without the flag: the same run, no hook messages.
	e.srv.Push(hookEventTurns()...)
	r = e.run("", "-p", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash", "go")
	if r.code != 0 || strings.Contains(r.stdout, `"hook_started"`) || strings.Contains(r.stdout, `"hook_response"`) {
		t.Errorf("without the flag: exit %d, stdout has hook messages: %s", r.code, r.stdout)
	}
	r = e.run("", "-p", "--output-format", "json", "--include-hook-events", "go")
	if r.code != 2 || !strings.Contains(r.stderr, "--include-hook-events needs --output-format stream-json") {
		t.Errorf("with json output: exit %d, stderr %q", r.code, r.stderr)
	}
}
