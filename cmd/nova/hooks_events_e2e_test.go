package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestHooksSessionAndPrompt: SessionStart's and UserPromptSubmit's
// context reach the model with the prompt; SessionEnd runs as nova exits.
func TestHooksSessionAndPrompt(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Hello."})
	ctx := e.script("context.py", `#!/usr/bin/env python3
import json, sys
prompt = json.load(sys.stdin)["prompt"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
    "additionalContext": "The prompt has %d words; the sprint ends Friday." % len(prompt.split())}}))
`)
	end := filepath.Join(e.ws, "ended.txt")
	e.userHooks(`{
		"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo 'Current branch: feature/hooks'"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 ` + ctx + `"}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": "python3 -c 'import json,sys; open(\"` + end + `\",\"w\").write(json.load(sys.stdin)[\"reason\"])'"}]}]}`)
	r := e.run("", "-p", "say hello to me")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Hello." {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	body := string(e.srv.Requests()[0].Body)
	for _, w := range []string{"SessionStart:startup hook additional context: Current branch: feature/hooks", "say hello to me",
		"UserPromptSubmit hook additional context: The prompt has 4 words; the sprint ends Friday."} {
		if !strings.Contains(body, w) {
			t.Errorf("the first request lacks %q", w)
		}
	}
	if got := e.read("ended.txt"); got != "other" {
		t.Errorf("SessionEnd was told %q", got)
	}
}

// TestHooksPromptBlocked: a UserPromptSubmit hook that exits 2 keeps the
// prompt from the model; nova -p says why and exits 1.
func TestHooksPromptBlocked(t *testing.T) {
	e := newE2E(t)
	e.userHooks(commandHook("UserPromptSubmit", "", "grep -q 'TICKET-' || { echo 'Name a ticket (TICKET-123) in the prompt.' >&2; exit 2; }"))
	r := e.run("", "-p", "--output-format", "json", "refactor everything")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("the provider got %d requests", n)
	}
	if !strings.Contains(r.stderr, "Name a ticket (TICKET-123) in the prompt.") || !strings.Contains(r.stdout, `"is_error":true`) {
		t.Errorf("stdout %s\nstderr %s", r.stdout, r.stderr)
	}
	// The control: a prompt the hook accepts goes through.
	e.srv.Push(llmtest.Turn{Text: "on it"})
	if r := e.run("", "-p", "TICKET-7: refactor the parser"); r.code != 0 || strings.TrimSpace(r.stdout) != "on it" {
		t.Errorf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
}

// TestHooksStopGoesOn: a Stop hook that blocks makes the agent go on with
// its reason, and is told stop_hook_active the second time.
func TestHooksStopGoesOn(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "All done."}, llmtest.Turn{Text: "Tests pass now."})
	stop := e.script("stop.sh", `#!/bin/sh
input=$(cat)
echo "$input" >> "$NOVA_PROJECT_DIR/stops.jsonl"
case "$input" in
*'"stop_hook_active":true'*) exit 0 ;;
esac
echo '{"decision": "block", "reason": "Run the test suite before you stop."}'
`)
	e.userHooks(commandHook("Stop", "", stop))
	r := e.run("", "-p", "--output-format", "json", "fix it")
	if r.code != 0 || !strings.Contains(r.stdout, `"result":"Tests pass now."`) || !strings.Contains(r.stdout, `"num_turns":2`) {
		t.Fatalf("exit %d stdout %s stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "Stop hook feedback:\\nRun the test suite before you stop.") {
		t.Fatalf("%d requests; second %s", len(reqs), reqs[len(reqs)-1].Body)
	}
	var active []bool
	for _, l := range strings.Split(strings.TrimSpace(e.read("stops.jsonl")), "\n") {
		var in struct {
			Active bool   `json:"stop_hook_active"`
			Last   string `json:"last_assistant_message"`
		}
		if err := json.Unmarshal([]byte(l), &in); err != nil {
			t.Fatal(err)
		}
		active = append(active, in.Active)
	}
	if len(active) != 2 || active[0] || !active[1] {
		t.Errorf("stop_hook_active = %v, want false then true", active)
	}
}

// TestHooksToolFailure: a Bash command that exits non-zero fires
// PostToolUseFailure (not PostToolUse) with Claude Code's error text, and
// the hook's context reaches the model beside the result.
func TestHooksToolFailure(t *testing.T) {
	e := newE2E(t, bashTurns("toolu_b", "echo 'missing module express'; exit 3")...)
	e.userHooks(`{
		"PostToolUse": [{"hooks": [{"type": "command", "command": "touch \"$NOVA_PROJECT_DIR/post-ran\""}]}],
		"PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 -c 'import json,sys; d=json.load(sys.stdin); open(\"failure.json\",\"w\").write(json.dumps(d)); print(json.dumps({\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUseFailure\", \"additionalContext\": \"Run npm install first.\"}}))'"}]}]}`)
	if r := e.run("", "-p", "--allowedTools", "Bash", "test it"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if e.exists("post-ran") {
		t.Error("PostToolUse ran for a failed command")
	}
	var in struct {
		Error       string `json:"error"`
		IsInterrupt bool   `json:"is_interrupt"`
	}
	if err := json.Unmarshal([]byte(e.read("failure.json")), &in); err != nil {
		t.Fatal(err)
	}
	if in.Error != "Exit code 3\nmissing module express" || in.IsInterrupt {
		t.Errorf("PostToolUseFailure got %+v", in)
	}
	if res := toolResultsOf(t, e.srv.Requests()[1])["toolu_b"]; !strings.Contains(res.Text, "PostToolUseFailure:Bash hook additional context: Run npm install first.") {
		t.Errorf("the model got %+v", res)
	}
}

// claudeProject writes a sample project set up for Claude Code: a
// formatter after Edit and Write in .claude/settings.json, a context adder
// in .claude/settings.local.json.
func claudeProject(e *e2e) {
	e.write(".claude/settings.json", `{
  "permissions": {"allow": ["Write"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/format.sh", "timeout": 30}]}
    ]
  }
}`)
	e.write(".claude/settings.local.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'This repository formats with trailing spaces stripped.'"}]}]}}`)
	e.write(".claude/hooks/format.sh", `#!/bin/sh
file=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"]["file_path"])')
sed -i 's/[[:space:]]*$//' "$file"
`)
	if err := os.Chmod(filepath.Join(e.ws, ".claude/hooks/format.sh"), 0o755); err != nil {
		e.t.Fatal(err)
	}
}

// TestHooksClaudeProject: a project's .claude hooks work unchanged in a
// trusted folder, and are ignored (and reported) in an untrusted one.
func TestHooksClaudeProject(t *testing.T) {
	write := llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_w", Name: "Write", Input: jsonInput(map[string]any{"file_path": "notes.txt", "content": "one   \ntwo\t\n"})}}}
	for _, trusted := range []bool{true, false} {
		t.Run(map[bool]string{true: "trusted", false: "untrusted"}[trusted], func(t *testing.T) {
			e := newE2E(t, write, llmtest.Turn{Text: "Wrote it."})
			claudeProject(e)
			args := []string{"-p", "--output-format", "json", "--allowedTools", "Write"}
			if trusted {
				args = append(args, "--trust")
			}
			r := e.run("", append(args, "write notes")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			got := e.read("notes.txt")
			context := strings.Contains(string(e.srv.Requests()[0].Body), "This repository formats with trailing spaces stripped.")
			if trusted {
				if got != "one\ntwo\n" || !context {
					t.Errorf("notes.txt = %q, context sent = %v: the project's hooks did not run", got, context)
				}
				return
			}
			if got != "one   \ntwo\t\n" || context {
				t.Errorf("notes.txt = %q, context sent = %v: an untrusted project's hooks ran", got, context)
			}
			for _, f := range []string{".claude/settings.json", ".claude/settings.local.json"} {
				if !strings.Contains(r.stderr, "ignoring hooks in "+f) || !strings.Contains(r.stdout, `{"file":"`+f+`","setting":"hooks"}`) {
					t.Errorf("the ignored hooks of %s are not reported: stdout %s stderr %s", f, r.stdout, r.stderr)
				}
			}
		})
	}
}

// TestHooksDoctor: nova doctor lists the hooks and where they come from,
// and the project's that an untrusted folder leaves out.
func TestHooksDoctor(t *testing.T) {
	e := newE2E(t)
	claudeProject(e)
	e.userHooks(`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 guard.py"}, {"type": "agent", "prompt": "is it safe?"}]}]}`)
	r := e.run("", "doctor", "--no-sandbox")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, w := range []string{"Hooks (2):", "    Bash  command [python3 guard.py]  timeout 60s  (~/.nova/settings.json)",
		"not run: agent hooks (a subagent judges) are not available yet",
		"ignored, this folder is not trusted (run nova trust to apply them): PostToolUse in .claude/settings.json",
		"UserPromptSubmit in .claude/settings.local.json", "outside the sandbox"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("doctor lacks %q:\n%s", w, r.stdout)
		}
	}
	r = e.run("", "doctor", "--no-sandbox", "--trust")
	if !strings.Contains(r.stdout, "Hooks (4):") || !strings.Contains(r.stdout, `Edit|Write  command ["$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh]  timeout 30s  (.claude/settings.json)`) {
		t.Errorf("trusted doctor:\n%s", r.stdout)
	}
}
