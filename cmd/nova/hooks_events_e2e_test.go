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
func claudeHooksProject(e *e2e) {
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
			claudeHooksProject(e)
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
	claudeHooksProject(e)
	e.userHooks(`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 guard.py"}, {"type": "mcp_tool", "server": "s", "tool": "t"}]}]}`)
	r := e.run("", "doctor", "--no-sandbox")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, w := range []string{"Hooks (2):", "    Bash  command [python3 guard.py]  timeout 60s  (~/.nova/settings.json)",
		`not run: nova has no "mcp_tool" hooks`,
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

// TestHooksPermissionRequest: print mode has nobody to ask, so a call the
// check asks about is answered by PermissionRequest hooks: their allow runs
// it, their deny tells the model why, and their allow does not settle an
// ask rule. A PreToolUse ask is a denial the model reads with its reason.
func TestHooksPermissionRequest(t *testing.T) {
	answer := func(decision string) string {
		return `echo '{"systemMessage": "permission hook consulted", "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": ` + decision + `}}'`
	}
	tests := []struct {
		name, hooks, settings, want string
		ran                         bool
	}{
		{name: "allow", hooks: commandHook("PermissionRequest", "Bash", answer(`{"behavior": "allow"}`)), ran: true},
		{name: "allow with updatedInput", hooks: commandHook("PermissionRequest", "Bash", answer(`{"behavior": "allow", "updatedInput": {"command": "touch rewritten.txt"}}`))},
		{name: "deny", hooks: commandHook("PermissionRequest", "Bash", answer(`{"behavior": "deny", "message": "no new files on a release branch"}`)),
			want: "no new files on a release branch"},
		{name: "an ask rule still asks", hooks: commandHook("PermissionRequest", "Bash", answer(`{"behavior": "allow"}`)),
			settings: `{"permissions": {"ask": ["Bash(touch:*)"]}}`, want: "nobody to approve it"},
		{name: "a PreToolUse ask", hooks: commandHook("PreToolUse", "Bash",
			`echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "touching files needs a person"}}'`),
			want: "touching files needs a person"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t, bashTurns("toolu_b", "touch made.txt")...)
			e.userHooks(tt.hooks)
			if tt.settings != "" {
				e.write(".nova/settings.json", tt.settings)
			}
			args := []string{"-p", "make a file"}
			if tt.name == "a PreToolUse ask" {
				args = []string{"-p", "--allowedTools", "Bash", "make a file"}
			}
			r := e.run("", args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if e.exists("made.txt") != tt.ran {
				t.Errorf("made.txt exists = %v, want %v", !tt.ran, tt.ran)
			}
			if tt.name == "allow with updatedInput" && (!e.exists("rewritten.txt") || e.exists("made.txt")) {
				t.Errorf("the rewritten command did not run instead")
			}
			res := toolResultsOf(t, e.srv.Requests()[1])["toolu_b"]
			if tt.want != "" && (!res.IsError || !strings.Contains(res.Text, tt.want)) {
				t.Errorf("the model got %+v, want %q", res, tt.want)
			}
			if strings.Contains(tt.hooks, "PermissionRequest") && tt.name != "an ask rule still asks" && !strings.Contains(r.stderr, "permission hook consulted") {
				t.Errorf("the hook's systemMessage is not shown: %s", r.stderr)
			}
		})
	}
}

// TestHooksTurns: TurnStart and TurnEnd (nova's own) fire around each
// turn with its number.
func TestHooksTurns(t *testing.T) {
	e := newE2E(t, bashTurns("toolu_b", "echo hi")...)
	log := `python3 -c 'import json,sys; d=json.load(sys.stdin); open("turns.log","a").write("%s %s %s\n" % (d["hook_event_name"], d["turn"], d.get("stop_reason","")))'`
	e.userHooks(`{"TurnStart": [{"hooks": [{"type": "command", "command": ` + jsonInput(log) + `}]}], "TurnEnd": [{"hooks": [{"type": "command", "command": ` + jsonInput(log) + `}]}]}`)
	if r := e.run("", "-p", "--allowedTools", "Bash", "say hi"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got, want := e.read("turns.log"), "TurnStart 1 \nTurnEnd 1 tool_use\nTurnStart 2 \nTurnEnd 2 end_turn\n"; got != want {
		t.Errorf("turns.log = %q, want %q", got, want)
	}
}

// TestHooksCompaction: PreCompact and PostCompact frame the automatic
// compaction, and SessionStart(compact)'s context joins the summary; a
// PreCompact hook that exits 2 keeps the conversation uncompacted.
func TestHooksCompaction(t *testing.T) {
	for _, blocked := range []bool{false, true} {
		t.Run(map[bool]string{false: "allowed", true: "blocked"}[blocked], func(t *testing.T) {
			long := strings.Repeat("Reading the files one by one. ", 30)
			turns := []llmtest.Turn{
				{Text: long, ToolCalls: readCall("toolu_1", "big1.txt"), InputTokens: 9000, OutputTokens: 300},
				{Text: long, ToolCalls: readCall("toolu_2", "big2.txt"), InputTokens: 20000, OutputTokens: 300},
			}
			if !blocked {
				turns = append(turns, llmtest.Turn{Text: summaryText(1), InputTokens: 3000, OutputTokens: 100})
			}
			e := newE2E(t, append(turns, llmtest.Turn{Text: "Both read.", InputTokens: 9000, OutputTokens: 50})...)
			e.env = e.baseEnv()
			cfg := map[string]any{"providers": []any{map[string]any{"key": "anthropic", "type": "anthropic", "base_url": e.srv.URL, "api_key": "k",
				"models": []any{map[string]any{"model": "small", "context_window": 30000, "max_output": 1000}}}}}
			if err := os.MkdirAll(filepath.Join(e.home, ".nova"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(e.home, ".nova", "config.json"), []byte(jsonInput(cfg)), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"big1.txt", "big2.txt"} {
				e.write(f, bigFile(f))
			}
			pre := `python3 -c 'import json,sys; open("pre.log","a").write(json.load(sys.stdin)["trigger"])'`
			if blocked {
				pre += `; echo 'a release is being cut' >&2; exit 2`
			}
			post := `python3 -c 'import json,sys; open("summary.txt","w").write(json.load(sys.stdin)["compact_summary"])'`
			e.userHooks(`{"PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": ` + jsonInput(pre) + `}]}],
				"PostCompact": [{"hooks": [{"type": "command", "command": ` + jsonInput(post) + `}]}],
				"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "echo 'Compacted: re-read NOTES.md'"}]}]}`)
			r := e.run("", "-p", "read both files")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := e.read("pre.log"); got != "auto" {
				t.Errorf("PreCompact was told %q", got)
			}
			reqs := e.srv.Requests()
			if blocked {
				if len(reqs) != 3 || e.exists("summary.txt") || !strings.Contains(r.stderr, "a PreCompact hook blocked the compaction: a release is being cut") {
					t.Errorf("%d requests, summary written %v, stderr %s", len(reqs), e.exists("summary.txt"), r.stderr)
				}
				return
			}
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 4", len(reqs))
			}
			if got := e.read("summary.txt"); got != summaryText(1) {
				t.Errorf("PostCompact got %q", got)
			}
			if body := string(reqs[3].Body); !strings.Contains(body, "SessionStart:compact hook additional context: Compacted: re-read NOTES.md") {
				t.Errorf("the request after the compaction lacks SessionStart's context")
			}
		})
	}
}
