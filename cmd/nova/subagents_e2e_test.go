package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// agentCall is a scripted Agent tool call.
func agentCall(id string, in map[string]any) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "Agent", Input: jsonInput(in)}
}

// requestBody is the parts of an Anthropic request the subagent tests
// read.
type requestBody struct {
	System any `json:"system"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func bodyOf(t *testing.T, r llmtest.Request) requestBody {
	t.Helper()
	var b requestBody
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return b
}

// firstText is the text of the request's first message.
func firstText(t *testing.T, b requestBody) string {
	t.Helper()
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b.Messages[0].Content, &parts); err != nil {
		var s string
		if json.Unmarshal(b.Messages[0].Content, &s) != nil {
			t.Fatalf("first message: %v", err)
		}
		return s
	}
	var out strings.Builder
	for _, p := range parts {
		out.WriteString(p.Text)
	}
	return out.String()
}

func (b requestBody) toolNames() []string {
	var out []string
	for _, t := range b.Tools {
		out = append(out, t.Name)
	}
	return out
}

func (b requestBody) system() string {
	raw, _ := json.Marshal(b.System)
	return string(raw)
}

// requestsWith are the recorded requests whose body contains s.
func requestsWith(srv *llmtest.Server, s string) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if bytes.Contains(r.Body, []byte(s)) {
			out = append(out, r)
		}
	}
	return out
}

// A custom agent file (~/.claude/agents/reviewer.md, Claude Code's
// format) is offered in the messages, not the tool list; a call to it
// runs a fresh agent with the file's tools and prompt and none of the
// parent's history, whose final text comes back as the result with its
// id, tool uses and tokens, and whose transcript is kept beside the
// session's.
func TestAgentToolCustomTypeE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{agentCall("toolu_a", map[string]any{
			"description": "review greet", "prompt": "Review greet.txt for typos (task-R).", "subagent_type": "reviewer"})}},
		llmtest.Turn{Match: "task-R", ToolCalls: []llmtest.ToolCall{{ID: "toolu_r1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "greet.txt"})}}},
		llmtest.Turn{Match: "task-R", Text: "Reviewed: greet.txt says hello world, no typos."},
		llmtest.Turn{Text: "The reviewer found no typos."},
	)
	e.write("greet.txt", "hello world\n")
	e.writeHome(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews files for typos. Use after edits.\ntools: Read, Grep\nmodel: inherit\n---\nYou are the typo reviewer. PROMPT-SENTINEL-7.\n")
	r := e.run("", "-p", "--output-format", "json", "Have the reviewer look at greet.txt (parent-prompt-P).")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	parent := bodyOf(t, reqs[0])
	if !slices.Contains(parent.toolNames(), "Agent") {
		t.Errorf("parent tools %v lack Agent", parent.toolNames())
	}
	if first := firstText(t, parent); !strings.Contains(first, "<agents>") || !strings.Contains(first, "- reviewer: Reviews files for typos. Use after edits. (Tools: Read, Grep)") || !strings.Contains(first, "- Explore:") {
		t.Errorf("the parent's first message does not list the agent types:\n%s", first)
	}
	if strings.Contains(parent.system(), "reviewer") {
		t.Errorf("the agent types are in the system prompt (the cached prefix): %s", parent.system())
	}
	child := bodyOf(t, reqs[1])
	if got := child.toolNames(); !slices.Equal(got, []string{"Read", "Grep"}) {
		t.Errorf("subagent tools = %v, want exactly the file's [Read Grep]", got)
	}
	if !strings.Contains(child.system(), "PROMPT-SENTINEL-7") {
		t.Errorf("subagent system prompt lacks the file's body: %s", child.system())
	}
	if strings.Contains(string(reqs[1].Body), "parent-prompt-P") {
		t.Error("the subagent was sent the parent's conversation")
	}
	res := toolResultsOf(t, reqs[3])["toolu_a"]
	for _, want := range []string{"Reviewed: greet.txt says hello world, no typos.", "agentId: ", "(reviewer)", "tool_uses: 1", "total_tokens: "} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("Agent result lacks %q:\n%s", want, res.Text)
		}
	}
	if res.IsError {
		t.Error("the Agent result is an error")
	}
	if got := toolResultsOf(t, reqs[2])["toolu_r1"]; !strings.Contains(got.Text, "hello world") {
		t.Errorf("the subagent's Read result = %q", got.Text)
	}
	side, _ := filepath.Glob(filepath.Join(e.home, ".nova", "sessions", "*", "subagents", "agent-*.jsonl"))
	if len(side) != 1 {
		t.Fatalf("subagent transcripts = %v, want one", side)
	}
	if b, _ := os.ReadFile(side[0]); !bytes.Contains(b, []byte("Review greet.txt for typos")) || !bytes.Contains(b, []byte("no typos")) {
		t.Errorf("subagent transcript lacks its conversation:\n%s", b)
	}
}

// An unknown type is an error result naming the known ones.
func TestAgentToolUnknownTypeE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{agentCall("toolu_a", map[string]any{"description": "x", "prompt": "y", "subagent_type": "nonesuch"})}},
		llmtest.Turn{Text: "ok"},
	)
	if r := e.run("", "-p", "go"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResultsOf(t, e.srv.Requests()[1])["toolu_a"]
	if !res.IsError || !strings.Contains(res.Text, `unknown agent type "nonesuch"`) || !strings.Contains(res.Text, "general-purpose, Explore, Plan") {
		t.Errorf("result = %+v", res)
	}
}

// A subagent runs under its parent's checker: what the parent may not do
// (a deny rule; an ask, in print mode) the subagent may not either — the
// file is not written — while what the parent may do (an allow rule) the
// subagent does: the positive control.
func TestSubagentInheritsDenialsE2E(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string
		made    bool
		outcome string
	}{
		{"deny rule", []string{"--disallowedTools", "Bash(touch:*)"}, false, "denied"},
		{"ask in print mode", nil, false, "denied"},
		{"allow rule", []string{"--allowedTools", "Bash(touch:*)"}, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t,
				llmtest.Turn{ToolCalls: []llmtest.ToolCall{agentCall("toolu_a", map[string]any{"description": "make a file", "prompt": "Create sentinel (task-D)."})}},
				llmtest.Turn{Match: "task-D", ToolCalls: []llmtest.ToolCall{{ID: "toolu_b", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch sentinel.txt"})}}},
				llmtest.Turn{Match: "task-D", Text: "tried"},
				llmtest.Turn{Text: "done"},
			)
			r := e.run("", append([]string{"-p", "--output-format", "json", "go"}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			_, err := os.Stat(filepath.Join(e.ws, "sentinel.txt"))
			if made := err == nil; made != tt.made {
				t.Fatalf("sentinel.txt made = %v, want %v", made, tt.made)
			}
			got := toolResultsOf(t, e.srv.Requests()[2])["toolu_b"]
			if tt.outcome != "" && (!got.IsError || !strings.Contains(strings.ToLower(got.Text), tt.outcome)) {
				t.Errorf("the subagent's Bash result = %+v, want %q", got, tt.outcome)
			}
		})
	}
}

// Explore is read-only whatever the parent's mode: its writes are
// refused even under acceptEdits, and Write is not among its tools.
func TestExploreIsReadOnlyE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{agentCall("toolu_a", map[string]any{"description": "look", "prompt": "Look around (task-E).", "subagent_type": "Explore"})}},
		llmtest.Turn{Match: "task-E", ToolCalls: []llmtest.ToolCall{{ID: "toolu_b", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo x > written.txt"})}}},
		llmtest.Turn{Match: "task-E", Text: "looked"},
		llmtest.Turn{Text: "done"},
	)
	r := e.run("", "-p", "--permission-mode", "bypassPermissions", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "written.txt")); err == nil {
		t.Fatal("Explore wrote a file")
	}
	if names := bodyOf(t, e.srv.Requests()[1]).toolNames(); slices.Contains(names, "Write") || slices.Contains(names, "Agent") || !slices.Contains(names, "Read") {
		t.Errorf("Explore's tools = %v", names)
	}
}

// Two Agent calls of one turn run side by side: each subagent's first
// request is held until the other's has arrived, which a nova running
// them one after the other would never send.
func TestParallelSubagentsE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			agentCall("toolu_1", map[string]any{"description": "one", "prompt": "First task (task-ONE)."}),
			agentCall("toolu_2", map[string]any{"description": "two", "prompt": "Second task (task-TWO)."}),
		}},
		llmtest.Turn{Match: "task-ONE", Await: "task-TWO", Text: "one done"},
		llmtest.Turn{Match: "task-TWO", Await: "task-ONE", Text: "two done"},
		llmtest.Turn{Text: "both done"},
	)
	r := e.run("", "-p", "--output-format", "stream-json", "--verbose", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	results := toolResultsOf(t, e.srv.Requests()[3])
	if !strings.Contains(results["toolu_1"].Text, "one done") || !strings.Contains(results["toolu_2"].Text, "two done") {
		t.Errorf("results = %+v", results)
	}
	// The subagents' messages are nested under their calls in stream-json.
	nested := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Type   string  `json:"type"`
			Parent *string `json:"parent_tool_use_id"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Parent != nil && *ev.Parent != "" {
			nested[*ev.Parent] = true
		}
	}
	if !nested["toolu_1"] || !nested["toolu_2"] {
		t.Errorf("stream-json nests events under %v, want both calls:\n%s", nested, r.stdout)
	}
}

// Interrupting the parent interrupts its subagent: the subagent's request
// is cancelled and nova ends at once with the interrupted exit code.
func TestSubagentInterruptE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{agentCall("toolu_a", map[string]any{"description": "slow", "prompt": "Think forever (task-H)."})}},
		llmtest.Turn{Match: "task-H", Hang: true},
	)
	cmd := exec.Command(novaBin, "-p", "--output-format", "json", "go")
	cmd.Dir, cmd.Env = e.ws, e.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(requestsWith(e.srv, "task-H")) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("exit = %v, want 130; stderr %s", err, errOut.String())
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("nova did not end after the interrupt: its subagent kept it running")
	}
}

// isolation "worktree": the subagent works in a fresh git worktree; the
// files it writes are there, not in the workspace, and the worktree and
// its branch are kept and named in the result; a subagent that changed
// nothing leaves no worktree or branch behind.
func TestSubagentWorktreeE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			agentCall("toolu_w", map[string]any{"description": "write", "prompt": "Write new.txt (task-W).", "isolation": "worktree"}),
			agentCall("toolu_n", map[string]any{"description": "nothing", "prompt": "Change nothing (task-N).", "isolation": "worktree"}),
		}},
		llmtest.Turn{Match: "task-W", ToolCalls: []llmtest.ToolCall{{ID: "toolu_x", Name: "Write", Input: jsonInput(map[string]any{"file_path": "new.txt", "content": "from the subagent\n"})}}},
		llmtest.Turn{Match: "task-W", Text: "wrote it"},
		llmtest.Turn{Match: "task-N", Text: "nothing to do"},
		llmtest.Turn{Text: "done"},
	)
	e.commitReadme()
	r := e.run("", "-p", "--permission-mode", "acceptEdits", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); err == nil {
		t.Error("the isolated subagent wrote into the workspace")
	}
	results := toolResultsOf(t, e.srv.Requests()[len(e.srv.Requests())-1])
	m := regexp.MustCompile(`git worktree (\S+), on branch (nova/agent-\w+)`).FindStringSubmatch(results["toolu_w"].Text)
	if m == nil {
		t.Fatalf("the result does not name the worktree:\n%s", results["toolu_w"].Text)
	}
	if b, err := os.ReadFile(filepath.Join(m[1], "new.txt")); err != nil || string(b) != "from the subagent\n" {
		t.Errorf("new.txt in the worktree: %q, %v", b, err)
	}
	if strings.Contains(results["toolu_n"].Text, "git worktree") {
		t.Errorf("the unchanged worktree was kept:\n%s", results["toolu_n"].Text)
	}
	out, _ := exec.Command("git", "-C", e.ws, "for-each-ref", "--format=%(refname:short)", "refs/heads/nova/").Output()
	if branches := strings.Fields(string(out)); len(branches) != 1 || branches[0] != m[2] {
		t.Errorf("branches = %q, want only %s", branches, m[2])
	}
	if st, _ := exec.Command("git", "-C", e.ws, "status", "--porcelain").Output(); len(st) != 0 {
		t.Errorf("the workspace's git status shows nova's worktrees:\n%s", st)
	}
}

// run_in_background returns at once; in print mode the run waits for the
// agent and the model reads its report before the run ends.
func TestBackgroundSubagentE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{agentCall("toolu_bg", map[string]any{"description": "bg", "prompt": "Count files (task-BG).", "run_in_background": true})}},
		// The parent's next request holds the "started" result; it
		// answers at once while the subagent is still at work.
		llmtest.Turn{Match: "started in the background", Text: "Waiting for the count."},
		llmtest.Turn{Match: "task-BG", Text: "There are 3 files."},
		llmtest.Turn{Match: "task-notification", Text: "The agent counted 3 files."},
	)
	r := e.run("", "-p", "--output-format", "json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "The agent counted 3 files.") {
		t.Errorf("the run ended before reading the background agent's report:\n%s", r.stdout)
	}
	note := requestsWith(e.srv, "task-notification")
	if len(note) == 0 || !bytes.Contains(note[len(note)-1].Body, []byte("There are 3 files.")) {
		t.Error("the parent was not told the background agent's result")
	}
}

// SubagentStart's context reaches the subagent; a SubagentStop hook that
// blocks sends the subagent back to work, with stop_hook_active true the
// second time; both are told the agent's id and type, and Stop is told
// the subagent's transcript. UserPromptSubmit does not fire for the
// subagent's prompt.
func TestSubagentHooksE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{agentCall("toolu_a", map[string]any{"description": "d", "prompt": "Do it (task-K).", "subagent_type": "Explore"})}},
		llmtest.Turn{Match: "task-K", Text: "first try"},
		llmtest.Turn{Match: "task-K", Text: "second try"},
		llmtest.Turn{Text: "done"},
	)
	log := filepath.Join(e.ws, "hooks.log")
	stop := e.script("stop.py", `#!/usr/bin/env python3
import json, sys
d = json.load(sys.stdin)
open("`+log+`", "a").write(json.dumps(d) + "\n")
if not d["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "Check the tests too (STOP-FEEDBACK)."}))
`)
	start := e.script("start.py", `#!/usr/bin/env python3
import json, sys
d = json.load(sys.stdin)
open("`+log+`", "a").write(json.dumps(d) + "\n")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "START-CONTEXT for " + d["agent_type"]}}))
`)
	prompts := filepath.Join(e.ws, "prompts.log")
	e.userHooks(`{
		"SubagentStart": [{"matcher": "Explore", "hooks": [{"type": "command", "command": "python3 ` + start + `"}]}],
		"SubagentStop": [{"matcher": "Explore", "hooks": [{"type": "command", "command": "python3 ` + stop + `"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >> ` + prompts + `"}]}]}`)
	r := e.run("", "-p", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if !bytes.Contains(reqs[1].Body, []byte("START-CONTEXT for Explore")) {
		t.Error("the subagent's first request lacks SubagentStart's context")
	}
	if !bytes.Contains(reqs[2].Body, []byte("STOP-FEEDBACK")) {
		t.Error("the subagent was not sent back with SubagentStop's reason")
	}
	if res := toolResultsOf(t, reqs[3])["toolu_a"]; !strings.Contains(res.Text, "second try") {
		t.Errorf("result = %q", res.Text)
	}
	var events []map[string]any
	b, _ := os.ReadFile(log)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("hook log: %v: %q", err, line)
		}
		events = append(events, m)
	}
	if len(events) != 3 || events[0]["hook_event_name"] != "SubagentStart" || events[1]["hook_event_name"] != "SubagentStop" || events[2]["stop_hook_active"] != true {
		t.Fatalf("hooks ran %v", events)
	}
	id, _ := events[0]["agent_id"].(string)
	if id == "" || events[1]["agent_id"] != id || events[1]["agent_type"] != "Explore" || events[1]["last_assistant_message"] != "first try" {
		t.Errorf("SubagentStop input = %v", events[1])
	}
	if p, _ := events[1]["agent_transcript_path"].(string); !strings.Contains(p, "agent-"+id+".jsonl") {
		t.Errorf("agent_transcript_path = %q", p)
	}
	if b, _ := os.ReadFile(prompts); bytes.Contains(b, []byte("task-K")) {
		t.Error("UserPromptSubmit fired for the subagent's prompt")
	}
}

// Agent(type) rules: a deny of Task(Explore) (Claude Code's older name)
// refuses that type; another type runs (the control).
func TestAgentRulesE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			agentCall("toolu_x", map[string]any{"description": "x", "prompt": "Explore it (task-X).", "subagent_type": "Explore"}),
			agentCall("toolu_g", map[string]any{"description": "g", "prompt": "General (task-G)."}),
		}},
		llmtest.Turn{Match: "task-G", Text: "general ran"},
		llmtest.Turn{Text: "done"},
	)
	r := e.run("", "-p", "--disallowedTools", "Task(Explore)", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(requestsWith(e.srv, "Explore it (task-X).")) != 1 {
		t.Error("the denied Explore agent ran")
	}
	res := toolResultsOf(t, e.srv.Requests()[2])
	if !res["toolu_x"].IsError || !strings.Contains(res["toolu_g"].Text, "general ran") {
		t.Errorf("results = %+v", res)
	}
}

// A skill with context: fork runs in a subagent of its agent type, by a
// person's /name and by the model's Skill call alike: the subagent is
// given the rendered body as its prompt and its type's tools, and the
// conversation gets the subagent's result, not the body.
func TestForkedSkillE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{Match: "FORK-BODY", Text: "forked answer one"},
		llmtest.Turn{Match: "forked answer one", ToolCalls: []llmtest.ToolCall{{ID: "toolu_s", Name: "Skill", Input: jsonInput(map[string]any{"skill": "survey", "args": "again"})}}},
		llmtest.Turn{Match: "FORK-BODY for again", Text: "forked answer two"},
		llmtest.Turn{Text: "done"},
	)
	e.writeHome(".nova/skills/survey/SKILL.md", "---\nname: survey\ndescription: Survey the code\ncontext: fork\nagent: Explore\n---\nFORK-BODY for $ARGUMENTS.\n")
	r := e.run("", "-p", "/survey everything")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	child := bodyOf(t, reqs[0])
	if !strings.Contains(firstText(t, child), "FORK-BODY for everything.") || slices.Contains(child.toolNames(), "Write") {
		t.Errorf("the forked subagent's first request: tools %v, text %q", child.toolNames(), firstText(t, child))
	}
	parent := string(reqs[1].Body)
	if !strings.Contains(parent, "/survey ran in a subagent (Explore). Its result:") || !strings.Contains(parent, "forked answer one") || strings.Contains(parent, "FORK-BODY") {
		t.Errorf("the parent's request does not carry the subagent's result only:\n%s", parent)
	}
	if res := toolResultsOf(t, reqs[3])["toolu_s"]; !strings.Contains(res.Text, "forked answer two") || strings.Contains(res.Text, "FORK-BODY") {
		t.Errorf("the Skill call's result = %q", res.Text)
	}
}

// An agent hook has a subagent judge the call: it may read the files
// first, runs under the session's checker with read-only tools and no
// hooks of its own, and its verdict blocks (the file is not made) or lets
// the call go on to the checker (the allow rule runs it: the control).
func TestAgentHookE2E(t *testing.T) {
	for _, tt := range []struct {
		verdict string
		made    bool
	}{
		{`{"ok": false, "reason": "notes.txt says DENY"}`, false},
		{`{"ok": true}`, true},
	} {
		t.Run(tt.verdict, func(t *testing.T) {
			e := newE2E(t,
				llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_b", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch made.txt"})}}},
				llmtest.Turn{Match: "You verify one event", ToolCalls: []llmtest.ToolCall{{ID: "toolu_r", Name: "Read", Input: jsonInput(map[string]any{"file_path": "notes.txt"})}}},
				llmtest.Turn{Match: "You verify one event", Text: "Checked. " + tt.verdict},
				llmtest.Turn{Text: "done"},
			)
			e.write("notes.txt", "DENY\n")
			e.userHooks(`{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "agent", "prompt": "Allow the command only if notes.txt says ALLOW: $ARGUMENTS"}]}]}`)
			r := e.run("", "-p", "--allowedTools", "Bash(touch:*)", "go")
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(e.ws, "made.txt")); (err == nil) != tt.made {
				t.Fatalf("made.txt made = %v, want %v", err == nil, tt.made)
			}
			reqs := e.srv.Requests()
			want := 4
			if !tt.made {
				// A judge's "no" on PreToolUse ends the run, as a prompt
				// hook's does (Claude Code's rule), unless the hook sets
				// continueOnBlock.
				want = 3
				if !strings.Contains(r.stderr, "agent hook denied this call: notes.txt says DENY") {
					t.Errorf("stderr does not say the judge's reason:\n%s", r.stderr)
				}
			}
			if len(reqs) != want {
				t.Fatalf("%d requests, want %d\nstderr %s", len(reqs), want, r.stderr)
			}
			judge := bodyOf(t, reqs[1])
			if got := judge.toolNames(); !slices.Equal(got, []string{"Read", "Glob", "Grep", "LS"}) {
				t.Errorf("the judge's tools = %v", got)
			}
			if !strings.Contains(firstText(t, judge), `"tool_name":"Bash"`) || !strings.Contains(firstText(t, judge), "touch made.txt") {
				t.Errorf("the judge was not given the event: %s", firstText(t, judge))
			}
			if res := toolResultsOf(t, reqs[2])["toolu_r"]; !strings.Contains(res.Text, "DENY") {
				t.Errorf("the judge's Read = %+v", res)
			}
			if tt.made {
				if res := toolResultsOf(t, reqs[3])["toolu_b"]; res.IsError {
					t.Errorf("the Bash result = %+v", res)
				}
			}
		})
	}
}

// A worktree subagent under the sandbox: its Bash writes its worktree
// (the positive control: the worktree is its commands' workspace, not a
// read-only corner of the parent's), and cannot write the worktree's
// .claude/settings.json or the main repository's .git/hooks. The attacks
// hide their paths from the checker (bypassPermissions lets an opaque
// command run inside the sandbox), so the sandbox is what stops them.
func TestSubagentWorktreeSandboxE2E(t *testing.T) {
	for _, prog := range []string{"bwrap", "python3", "git"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skip(prog + " not installed")
		}
	}
	settings := `python3 -c "import os; d='.cl'+'aude'; os.makedirs(d, exist_ok=True); open(d+'/settings.json','w').write('{}')"`
	hook := `python3 -c "import subprocess,os; c=subprocess.check_output(['git','rev-parse','--git-common-dir']).decode().strip(); ` +
		`p=os.path.join(c,'ho'+'oks'); os.makedirs(p, exist_ok=True); open(os.path.join(p,'pre-commit'),'w').write('x')"`
	bash := func(id, cmd string) llmtest.ToolCall {
		return llmtest.ToolCall{ID: id, Name: "Bash", Input: jsonInput(map[string]any{"command": cmd})}
	}
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			agentCall("toolu_w", map[string]any{"description": "sandboxed", "prompt": "Work (task-S).", "isolation": "worktree"}),
		}},
		llmtest.Turn{Match: "task-S", ToolCalls: []llmtest.ToolCall{
			bash("b_in", "echo from-the-sandbox > inside.txt && cat inside.txt"), bash("b_settings", settings), bash("b_hook", hook),
		}},
		llmtest.Turn{Match: "task-S", Text: "worked"},
		llmtest.Turn{Text: "done"},
	)
	e.commitReadme()
	r := e.run("", "-p", "--sandbox", "--permission-mode", "bypassPermissions", "go")
	if strings.Contains(r.stderr, "cannot run") {
		t.Skipf("sandbox unavailable here: %s", r.stderr)
	}
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	results := map[string]sentResult{}
	for _, req := range e.srv.Requests() {
		maps.Copy(results, toolResultsOf(t, req))
	}
	m := regexp.MustCompile(`git worktree (\S+), on branch`).FindStringSubmatch(results["toolu_w"].Text)
	if m == nil {
		t.Fatalf("the result does not name a kept worktree:\n%s", results["toolu_w"].Text)
	}
	wt := m[1]
	if strings.HasPrefix(wt, e.ws) {
		t.Errorf("the worktree %s is inside the workspace", wt)
	}
	if b, err := os.ReadFile(filepath.Join(wt, "inside.txt")); err != nil || string(b) != "from-the-sandbox\n" {
		t.Errorf("the subagent's sandboxed Bash did not write its worktree: %q, %v; it said %s", b, err, results["b_in"].Text)
	}
	for id, p := range map[string]string{"b_settings": filepath.Join(wt, ".claude", "settings.json"), "b_hook": filepath.Join(e.ws, ".git", "hooks", "pre-commit")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s wrote %s", id, p)
		}
		if !strings.Contains(results[id].Text, "Read-only file system") {
			t.Errorf("%s did not meet the sandbox: %s", id, results[id].Text)
		}
	}
	for _, dir := range []string{wt, e.ws} {
		if _, err := os.Lstat(filepath.Join(dir, ".claude")); err == nil {
			t.Errorf("a placeholder is left in %s", dir)
		}
	}
}

// commitReadme makes the workspace a git repository with one commit, for
// the worktree tests.
func (e *e2e) commitReadme() {
	e.t.Helper()
	e.write("README", "repo\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "README"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = e.ws, e.env
		if out, err := cmd.CombinedOutput(); err != nil {
			e.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
