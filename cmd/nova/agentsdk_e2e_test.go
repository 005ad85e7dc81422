package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// sdkMCPServers is the SDK's mcpServers option naming the test binary as
// stdio MCP server "t" (TestMain serves when asked).
func sdkMCPServers() string {
	var cfg struct {
		MCPServers map[string]any `json:"mcpServers"`
	}
	_ = json.Unmarshal([]byte(mcpJSON()), &cfg)
	t := cfg.MCPServers["t"].(map[string]any)
	t["type"] = "stdio"
	b, _ := json.Marshal(cfg.MCPServers)
	return string(b)
}

// recordClaude runs the scenarios of TestAgentSDK against Claude Code
// instead of nova and writes what the SDK yielded to the fixtures. It
// needs the SDK's optional native binary (npm install, not npm ci
// --omit=optional, in headless/testdata/agentsdk).
var recordClaude = flag.Bool("agentsdk.record", false, "record Claude Code's messages as the Agent SDK conformance fixtures")

// agentSDKDir is the conformance package: drive.mjs and the pinned SDK.
func agentSDKDir(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "headless", "testdata", "agentsdk"))
	_, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.mjs")); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node and @anthropic-ai/claude-agent-sdk are needed in CI (npm ci in %s): %v %v", dir, err, serr)
		}
		t.Skipf("needs node and @anthropic-ai/claude-agent-sdk (npm ci --omit=optional --prefix %s)", dir)
	}
	return dir
}

// sdkRun is what drive.mjs reported of one scenario.
type sdkRun struct {
	// msgs are the messages the SDK yielded, by query (from 1); conv the
	// conversation of them: system/init, assistant, user and result.
	msgs, conv map[int][]map[string]any
	// all is every message, in order.
	all       []map[string]any
	canUse    []map[string]any
	hooks     []map[string]any // the SDK hook callbacks called
	sdkTools  []map[string]any // the in-process MCP server's tool calls
	controls  map[string]any   // control name -> response
	errors    []string
	ended     bool
	stderr    string
	reqs      []llmtest.Request
	ws, state string
	e         *e2e
}

// driveSDK runs drive.mjs's scenario with exe as the SDK's executable.
func driveSDK(t *testing.T, e *e2e, dir, scenario, exe string, env []string) sdkRun {
	t.Helper()
	cmd := exec.Command("node", filepath.Join(dir, "drive.mjs"), scenario)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, env...), "EXECUTABLE="+exe, "WS="+e.ws)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("drive.mjs %s: %v\nstdout:\n%s\nstderr:\n%s", scenario, err, out.String(), errOut.String())
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("drive.mjs %s did not end in 2 minutes\nstdout:\n%s\nstderr:\n%s", scenario, out.String(), errOut.String())
	}
	r := sdkRun{msgs: map[int][]map[string]any{}, conv: map[int][]map[string]any{}, controls: map[string]any{}, stderr: errOut.String(), reqs: e.srv.Requests(), ws: e.ws, e: e}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var line struct {
			Kind     string          `json:"kind"`
			Query    int             `json:"query"`
			Msg      json.RawMessage `json:"msg"`
			Name     string          `json:"name"`
			Response any             `json:"response"`
			Error    string          `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("drive.mjs wrote %q: %v", l, err)
		}
		switch line.Kind {
		case "message":
			var m map[string]any
			_ = json.Unmarshal(line.Msg, &m)
			r.msgs[line.Query] = append(r.msgs[line.Query], m)
			r.all = append(r.all, m)
			if k := m["type"]; (k == "system" && m["subtype"] == "init") || k == "assistant" || k == "user" || k == "result" {
				r.conv[line.Query] = append(r.conv[line.Query], m)
			}
		case "canUseTool":
			var m map[string]any
			_ = json.Unmarshal([]byte(l), &m)
			r.canUse = append(r.canUse, m)
		case "hook":
			var m map[string]any
			_ = json.Unmarshal([]byte(l), &m)
			r.hooks = append(r.hooks, m)
		case "sdkTool":
			var m map[string]any
			_ = json.Unmarshal([]byte(l), &m)
			r.sdkTools = append(r.sdkTools, m)
		case "control":
			r.controls[line.Name] = line.Response
		case "error":
			r.errors = append(r.errors, line.Error)
		case "end":
			r.ended = true
		}
	}
	if !r.ended {
		t.Fatalf("drive.mjs %s did not finish:\n%s\nstderr:\n%s", scenario, out.String(), errOut.String())
	}
	return r
}

// sdkScenario is one conversation of the conformance test: the model's
// turns, and what must hold of what the SDK yielded.
type sdkScenario struct {
	name  string
	turns func(ws string) []llmtest.Turn
	// setup, when set, prepares the home or workspace before the run.
	setup func(e *e2e)
	check func(t *testing.T, r sdkRun)
}

func readTurn(id, ws string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "Read", Input: jsonInput(map[string]any{"file_path": filepath.Join(ws, "greet.txt")})}
}

var sdkScenarios = []sdkScenario{
	{name: "text", turns: func(string) []llmtest.Turn { return []llmtest.Turn{{Text: "Hello from the fake model."}} },
		check: func(t *testing.T, r sdkRun) {
			wantKinds(t, r.conv[1], "system/init assistant result")
			wantText(t, r.conv[1][1], "Hello from the fake model.")
			wantResult(t, r.conv[1][2], "success", "Hello from the fake model.")
		}},
	{name: "tool", turns: func(ws string) []llmtest.Turn {
		return []llmtest.Turn{{Text: "Let me read it.", ToolCalls: []llmtest.ToolCall{readTurn("toolu_1", ws)}}, {Text: "It says hello world."}}
	}, check: func(t *testing.T, r sdkRun) {
		wantKinds(t, r.conv[1], "system/init assistant assistant user assistant result")
		wantText(t, r.conv[1][1], "Let me read it.")
		use := blockOf(r.conv[1][2])
		if use["type"] != "tool_use" || use["id"] != "toolu_1" || use["name"] != "Read" {
			t.Errorf("tool_use block = %v", use)
		}
		res := blockOf(r.conv[1][3])
		if res["type"] != "tool_result" || res["tool_use_id"] != "toolu_1" || !strings.Contains(res["content"].(string), "hello world") || res["is_error"] != false {
			t.Errorf("tool_result block = %v", res)
		}
		wantResult(t, r.conv[1][5], "success", "It says hello world.")
		if r.conv[1][5]["num_turns"] != 2.0 {
			t.Errorf("num_turns = %v, want 2 (model calls)", r.conv[1][5]["num_turns"])
		}
	}},
	{name: "permissions", turns: func(ws string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch one.txt", "description": "make a file"})}}},
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Write", Input: jsonInput(map[string]any{"file_path": filepath.Join(ws, "three.txt"), "content": "three"})}}},
			{Text: "Made two.txt; writing was refused."},
		}
	}, check: func(t *testing.T, r sdkRun) {
		if len(r.canUse) != 2 || r.canUse[0]["tool"] != "Bash" || r.canUse[0]["toolUseID"] != "toolu_1" ||
			r.canUse[1]["tool"] != "Write" || r.canUse[1]["toolUseID"] != "toolu_2" {
			t.Fatalf("canUseTool calls = %v, want Bash then Write", r.canUse)
		}
		if in, _ := r.canUse[0]["input"].(map[string]any); in["command"] != "touch one.txt" {
			t.Errorf("canUseTool got input %v, want the model's", r.canUse[0]["input"])
		}
		for f, want := range map[string]bool{"one.txt": false, "two.txt": true, "three.txt": false} {
			if _, err := os.Stat(filepath.Join(r.ws, f)); (err == nil) != want {
				t.Errorf("%s exists = %v, want %v: updatedInput runs, the model's input and the denied call do not", f, err == nil, want)
			}
		}
		wantKinds(t, r.conv[1], "system/init assistant user assistant user assistant result")
		denied := blockOf(r.conv[1][4])
		if denied["tool_use_id"] != "toolu_2" || denied["is_error"] != true || !strings.Contains(denied["content"].(string), "no writing today") {
			t.Errorf("denied tool_result = %v, want an error with the SDK's message", denied)
		}
		res := r.conv[1][6]
		wantResult(t, res, "success", "Made two.txt; writing was refused.")
		ds, _ := res["permission_denials"].([]any)
		if len(ds) != 1 {
			t.Fatalf("permission_denials = %v, want the Write", res["permission_denials"])
		}
		d := ds[0].(map[string]any)
		if d["tool_name"] != "Write" || d["tool_use_id"] != "toolu_2" || d["tool_input"].(map[string]any)["content"] != "three" {
			t.Errorf("denial = %v", d)
		}
		if !strings.Contains(string(r.reqs[2].Body), "no writing today") {
			t.Error("the model was not told the SDK's message")
		}
	}},
	{name: "streaming", turns: twoAnswers, check: checkTwoTurns},
	{name: "queued", turns: twoAnswers, check: checkTwoTurns},
	{name: "interrupt", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{
			{Text: "Once upon a time there was a very long story that went on and on and on without any end in sight at all.", ChunkDelay: 300 * time.Millisecond},
			{Text: "Still here."},
		}
	}, check: func(t *testing.T, r sdkRun) {
		ack, _ := r.controls["interrupt"].(map[string]any)
		if q, ok := ack["still_queued"].([]any); !ok || len(q) != 0 {
			t.Errorf("interrupt response = %v, want still_queued: []", r.controls["interrupt"])
		}
		var results []map[string]any
		for _, m := range r.conv[1] {
			if m["type"] == "result" {
				results = append(results, m)
			}
		}
		if len(results) != 2 {
			t.Fatalf("%d results, want the interrupted turn's and the next one's", len(results))
		}
		first := results[0]
		errs, _ := first["errors"].([]any)
		if first["subtype"] != "error_during_execution" || first["is_error"] != true || len(errs) == 0 {
			t.Errorf("interrupted result = %v, want error_during_execution with errors", first)
		}
		wantResult(t, results[1], "success", "Still here.")
		if len(r.reqs) != 2 {
			t.Errorf("%d model requests, want 2", len(r.reqs))
		}
	}},
	{name: "resume", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{{Text: "I will remember teapot."}, {Text: "The word was teapot."}}
	}, check: func(t *testing.T, r sdkRun) {
		wantKinds(t, r.conv[1], "system/init assistant result")
		wantKinds(t, r.conv[2], "system/init assistant result")
		if id := r.conv[1][0]["session_id"]; id == "" || r.conv[2][0]["session_id"] != id || r.conv[2][2]["session_id"] != id {
			t.Errorf("session ids %v then %v, want the resumed session's", id, r.conv[2][0]["session_id"])
		}
		if !strings.Contains(string(r.reqs[1].Body), "I will remember teapot.") || !strings.Contains(string(r.reqs[1].Body), "remember the word teapot") {
			t.Error("the resumed request lacks the first query's conversation")
		}
		wantResult(t, r.conv[2][2], "success", "The word was teapot.")
	}},
	{name: "partial", turns: func(ws string) []llmtest.Turn {
		return []llmtest.Turn{
			{Thinking: "The user wants the file.", Text: "Reading.", ToolCalls: []llmtest.ToolCall{readTurn("toolu_1", ws)}},
			{Text: "It says hello world."},
		}
	}, check: checkPartial},
	{name: "mode", turns: func(ws string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Write", Input: jsonInput(map[string]any{"file_path": filepath.Join(ws, "new.txt"), "content": "written"})}}},
			{Text: "Wrote new.txt."},
		}
	}, check: func(t *testing.T, r sdkRun) {
		if ack, _ := r.controls["setPermissionMode"].(map[string]any); ack["mode"] != "acceptEdits" {
			t.Errorf("setPermissionMode response = %v", r.controls["setPermissionMode"])
		}
		if len(r.canUse) != 0 {
			t.Errorf("canUseTool was asked %v: acceptEdits allows the write", r.canUse)
		}
		if b, err := os.ReadFile(filepath.Join(r.ws, "new.txt")); err != nil || string(b) != "written" {
			t.Errorf("new.txt = %q (%v)", b, err)
		}
		wantKinds(t, r.conv[1], "system/init assistant user assistant result")
		if r.conv[1][0]["permissionMode"] != "acceptEdits" {
			t.Errorf("init permissionMode = %v", r.conv[1][0]["permissionMode"])
		}
	}},
	{name: "mcp", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_mcp", Name: "mcp__t__echo", Input: jsonInput(map[string]any{"text": "hello from mcp"})}}},
			{Text: "It echoed."},
		}
	}, check: func(t *testing.T, r sdkRun) {
		wantKinds(t, r.conv[1], "system/init assistant user assistant result")
		init := r.conv[1][0]
		servers, _ := init["mcp_servers"].([]any)
		if len(servers) != 1 || servers[0].(map[string]any)["name"] != "t" || servers[0].(map[string]any)["status"] != "connected" {
			t.Errorf("init mcp_servers = %v, want t connected", init["mcp_servers"])
		}
		if tl, _ := init["tools"].([]any); !slices.Contains(tl, any("mcp__t__echo")) {
			t.Errorf("init tools %v lack mcp__t__echo", tl)
		}
		if res := blockOf(r.conv[1][2]); res["is_error"] != false || !strings.Contains(res["content"].(string), "hello from mcp") {
			t.Errorf("the MCP tool's result = %v", res)
		}
	}},
	{name: "sdkmcp", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_add", Name: "mcp__calc__add", Input: jsonInput(map[string]any{"a": 2, "b": 40})}}},
			{Text: "It is 42."},
		}
	}, check: checkSDKMCP},
	{name: "budget", turns: func(string) []llmtest.Turn {
		// $0.30 a turn at claude-sonnet-4-5's $3 a million input tokens.
		glob := func(id string) llmtest.Turn {
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: id, Name: "Glob", Input: `{"pattern":"*.txt"}`}}, InputTokens: 100_000}
		}
		return []llmtest.Turn{glob("toolu_1"), glob("toolu_2"), {Text: "never asked for", InputTokens: 100_000}}
	}, check: func(t *testing.T, r sdkRun) {
		wantKinds(t, r.conv[1], "system/init assistant user assistant user result")
		res := r.conv[1][5]
		errs, _ := res["errors"].([]any)
		if res["subtype"] != "error_max_budget_usd" || res["is_error"] != true || len(errs) != 1 || res["num_turns"] != 2.0 {
			t.Errorf("result = %v, want error_max_budget_usd after 2 turns", res)
		}
		if len(r.reqs) != 2 {
			t.Errorf("%d model requests, want 2", len(r.reqs))
		}
	}},
	{name: "agents", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_a", Name: "Agent", Input: `{"description":"review","prompt":"Check greet.txt (task-SDK).","subagent_type":"reviewer"}`}}},
			{Match: "task-SDK", ToolCalls: []llmtest.ToolCall{{ID: "toolu_r", Name: "Read", Input: `{"file_path":"greet.txt"}`}}},
			{Match: "task-SDK", Text: "No typos."},
			{Text: "The reviewer found no typos."},
		}
	}, check: func(t *testing.T, r sdkRun) {
		got, _ := json.Marshal(r.controls["supportedAgents"])
		if !strings.Contains(string(got), `{"description":"Reviews files for typos","name":"reviewer"}`) || !strings.Contains(string(got), `"name":"Explore"`) {
			t.Errorf("supportedAgents() = %s", got)
		}
		if len(r.reqs) != 4 {
			t.Fatalf("%d model requests, want 4", len(r.reqs))
		}
		child := string(r.reqs[1].Body)
		if !strings.Contains(child, "SDK-PROMPT") || !strings.Contains(child, `"tools":[{`) || strings.Contains(child, `"name":"Bash"`) {
			t.Errorf("the subagent's request lacks the SDK agent's prompt or tools:\n%s", child)
		}
		nested := 0
		for _, m := range r.conv[1] {
			if m["parent_tool_use_id"] == "toolu_a" {
				nested++
			}
		}
		if nested < 2 {
			t.Errorf("%d SDK messages nested under the Agent call, want the subagent's call, result and answer: %v", nested, r.conv[1])
		}
		last := r.conv[1][len(r.conv[1])-1]
		if last["type"] != "result" || last["result"] != "The reviewer found no typos." {
			t.Errorf("result = %v", last)
		}
	}},
	{name: "commands", turns: func(string) []llmtest.Turn { return []llmtest.Turn{{Text: "Hi."}} },
		setup: func(e *e2e) {
			e.writeHome(".claude/skills/review/SKILL.md", "---\ndescription: Review the change\nargument-hint: \"[file]\"\n---\nReview $ARGUMENTS.\n")
			e.writeHome(".nova/commands/frontend/component.md", "---\ndescription: Make a component\n---\nMake $ARGUMENTS.\n")
		},
		check: func(t *testing.T, r sdkRun) {
			got, _ := json.Marshal(r.controls["supportedCommands"])
			want := `[{"argumentHint":"","description":"Make a component","name":"component","aliases":["frontend:component"]},` +
				`{"argumentHint":"[file]","description":"Review the change","name":"review"}]`
			if !jsonEqual(string(got), want) {
				t.Errorf("supportedCommands() = %s, want %s", got, want)
			}
			wantKinds(t, r.conv[1], "system/init assistant result")
			init := r.conv[1][0]
			if c, _ := json.Marshal(init["slash_commands"]); string(c) != `["component","review"]` {
				t.Errorf("init slash_commands = %s", c)
			}
			if s, _ := json.Marshal(init["skills"]); string(s) != `["review"]` {
				t.Errorf("init skills = %s", s)
			}
		}},
	{name: "updates", turns: func(ws string) []llmtest.Turn {
		bash := func(id, cmd string) llmtest.Turn {
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: id, Name: "Bash", Input: jsonInput(map[string]any{"command": cmd})}}}
		}
		return []llmtest.Turn{
			bash("toolu_1", "touch a.txt"),
			bash("toolu_2", "touch b.txt"),
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_3", Name: "Write", Input: jsonInput(map[string]any{"file_path": filepath.Join(ws, "c.txt"), "content": "c"})}}},
			{Text: "Made them."},
			{Text: "Still here."},
		}
	}, check: func(t *testing.T, r sdkRun) {
		if len(r.canUse) != 2 || r.canUse[0]["toolUseID"] != "toolu_1" || r.canUse[1]["toolUseID"] != "toolu_3" {
			t.Fatalf("canUseTool calls = %v, want toolu_1 and toolu_3: the session rule allows touch b.txt", r.canUse)
		}
		for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
			if _, err := os.Stat(filepath.Join(r.ws, f)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
		b, err := os.ReadFile(filepath.Join(r.ws, ".nova", "settings.local.json"))
		var local struct {
			Permissions struct{ Allow []string } `json:"permissions"`
		}
		if err != nil || json.Unmarshal(b, &local) != nil || !slices.Equal(local.Permissions.Allow, []string{"Write"}) {
			t.Errorf("settings.local.json = %s (%v), want the localSettings rule Write only", b, err)
		}
		var inits []map[string]any
		var notes []string
		for _, m := range r.all {
			if m["type"] == "system" && m["subtype"] == "init" {
				inits = append(inits, m)
			}
			if c, _ := m["content"].(string); m["subtype"] == "informational" {
				notes = append(notes, c)
			}
		}
		if len(inits) != 2 || inits[0]["permissionMode"] != "default" || inits[1]["permissionMode"] != "acceptEdits" {
			t.Errorf("init permission modes %v, want default then acceptEdits (setMode)", inits)
		}
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "addDirectories: nova cannot apply") }) {
			t.Errorf("informational messages %q do not say addDirectories was not applied", notes)
		}
	}},
	{name: "sessionid", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{{Text: "Teapot it is."}, {Text: "It was teapot."}, {Text: "Forgotten."}}
	}, check: func(t *testing.T, r sdkRun) {
		for q := 1; q <= 3; q++ {
			wantKinds(t, r.conv[q], "system/init assistant result")
		}
		for q := 1; q <= 2; q++ {
			if id := r.conv[q][0]["session_id"]; id != testUUID || r.conv[q][2]["session_id"] != testUUID {
				t.Errorf("query %d: session_id %v, want the sessionId %s", q, id, testUUID)
			}
		}
		if !strings.Contains(string(r.reqs[1].Body), "remember teapot") {
			t.Error("the resumed query's request lacks the first one's conversation")
		}
		if dirs := sessionDirs(t, r.e); len(dirs) != 1 {
			t.Errorf("sessions %v, want only the sessionId one: persistSession false keeps none", dirs)
		}
	}},
	{name: "fallback", turns: func(string) []llmtest.Turn {
		overloaded := llmtest.Turn{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "Overloaded", RetryAfterMS: "1"}
		return []llmtest.Turn{overloaded, overloaded, overloaded, overloaded, overloaded, {Text: "The fallback answered."}}
	}, check: func(t *testing.T, r sdkRun) {
		n := len(r.conv[1])
		if n < 3 || r.conv[1][n-1]["type"] != "result" {
			t.Fatalf("conversation %v", r.conv[1])
		}
		wantResult(t, r.conv[1][n-1], "success", "The fallback answered.")
		if m, _ := r.reqs[len(r.reqs)-1].JSON()["model"].(string); len(r.reqs) != 6 || m != "claude-haiku-4-5" {
			t.Errorf("%d requests, the last to %s; want 6, the last to the fallback", len(r.reqs), m)
		}
	}},
	{name: "hooks", turns: func(ws string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch x.txt"})}}},
			{ToolCalls: []llmtest.ToolCall{readTurn("toolu_2", ws)}},
			{Text: "Done."},
		}
	}, check: func(t *testing.T, r sdkRun) {
		var got []string
		for _, h := range r.hooks {
			got = append(got, fmt.Sprintf("%v %v %v", h["event"], h["tool"], h["toolUseID"]))
		}
		if strings.Join(got, "|") != "PreToolUse Bash toolu_1|PostToolUse Read toolu_2" {
			t.Errorf("SDK hooks called: %q", got)
		}
		if _, err := os.Stat(filepath.Join(r.ws, "x.txt")); err == nil {
			t.Error("x.txt exists: the SDK hook's deny did not stop the call")
		}
		wantKinds(t, r.conv[1], "system/init assistant user assistant user assistant result")
		if res := blockOf(r.conv[1][2]); res["is_error"] != true || !strings.Contains(res["content"].(string), "no shell from the SDK hook") {
			t.Errorf("the denied call's result = %v", res)
		}
		if len(r.reqs) != 3 || !strings.Contains(string(r.reqs[2].Body), "SDK HOOK CONTEXT") {
			t.Error("the PostToolUse hook's context did not reach the model")
		}
		wantResult(t, r.conv[1][6], "success", "Done.")
	}},
	{name: "structured", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "so_1", Name: "StructuredOutput", Input: `{"city":"Paris"}`}}},
			{ToolCalls: []llmtest.ToolCall{{ID: "so_2", Name: "StructuredOutput", Input: `{"city":"Paris","population":2100000}`}}},
			{Text: "Done."},
		}
	}, check: func(t *testing.T, r sdkRun) {
		wantKinds(t, r.conv[1], "system/init assistant user assistant user assistant result")
		res := r.conv[1][len(r.conv[1])-1]
		wantResult(t, res, "success", "Done.")
		if got, _ := json.Marshal(res["structured_output"]); string(got) != `{"city":"Paris","population":2100000}` {
			t.Errorf("structured_output = %s, want the valid answer", got)
		}
		if s, _ := json.Marshal(r.reqs[0].JSON()["tools"]); !strings.Contains(string(s), `"StructuredOutput"`) || !strings.Contains(string(s), `"population"`) {
			t.Errorf("tools offered = %s, want StructuredOutput with the schema", s)
		}
		if !strings.Contains(string(r.reqs[1].Body), "does not match the schema") {
			t.Error("the answer without population was not refused to the model")
		}
	}},
	{name: "hookevents", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo hi"})}}},
			{Text: "Done."},
		}
	}, setup: func(e *e2e) {
		e.userHooks(commandHook("PreToolUse", "Bash", e.script("ok.sh", "#!/bin/sh\necho settings hook ran\n")))
	}, check: func(t *testing.T, r sdkRun) {
		// The SDK yields both runs' messages: the settings' command hook
		// and its own callback, each started before it answered.
		started, answered := map[string]bool{}, map[string]map[string]any{}
		for _, m := range r.msgs[1] {
			id, _ := m["hook_id"].(string)
			switch m["subtype"] {
			case "hook_started":
				started[id] = true
			case "hook_response":
				if !started[id] {
					t.Errorf("hook_response before its hook_started: %v", m)
				}
				answered[id] = m
			}
		}
		var outs []string
		for _, m := range answered {
			if m["hook_event"] != "PreToolUse" || m["hook_name"] != "PreToolUse:Bash" || m["outcome"] != "success" {
				t.Errorf("hook_response %v", m)
			}
			outs = append(outs, fmt.Sprint(m["stdout"]))
		}
		sort.Strings(outs)
		if len(started) != 2 || strings.Join(outs, "|") != "settings hook ran\n|{}" {
			t.Errorf("%d hooks started, the answers' stdout %q: want the settings' hook's and the SDK callback's ({})", len(started), outs)
		}
		if len(r.hooks) != 1 {
			t.Errorf("the SDK's callback ran %d times", len(r.hooks))
		}
		wantKinds(t, r.conv[1], "system/init assistant user assistant result")
	}},
	{name: "settings", turns: func(string) []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch pwned.txt"})}}},
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch ok.txt"})}}},
			{Text: "Done."},
		}
	}, setup: func(e *e2e) {
		// Left out by settingSources: its deny would stop the control.
		e.write(".nova/settings.json", `{"permissions": {"deny": ["Bash(touch ok*)"]}}`)
	}, check: func(t *testing.T, r sdkRun) {
		for f, want := range map[string]bool{"pwned.txt": false, "ok.txt": true} {
			if _, err := os.Stat(filepath.Join(r.ws, f)); (err == nil) != want {
				t.Errorf("%s exists = %v, want %v: the settings' deny holds, the project file is not read", f, err == nil, want)
			}
		}
		res := r.conv[1][len(r.conv[1])-1]
		wantResult(t, res, "success", "Done.")
		if ds, _ := res["permission_denials"].([]any); len(ds) != 1 || ds[0].(map[string]any)["tool_use_id"] != "toolu_1" {
			t.Errorf("permission_denials = %v, want the touch pwned.txt", res["permission_denials"])
		}
	}},
	{name: "system", turns: func(string) []llmtest.Turn { return []llmtest.Turn{{Text: "Arr."}} },
		check: func(t *testing.T, r sdkRun) {
			wantKinds(t, r.conv[1], "system/init assistant result")
			sys, _ := json.Marshal(r.reqs[0].JSON()["system"])
			if !strings.Contains(string(sys), "You are a terse pirate.") || strings.Contains(string(sys), "You are nova") {
				t.Errorf("system prompt sent = %s, want the SDK's in place of nova's", sys)
			}
		}},
}

// checkSDKMCP: the SDK's in-process server is one of the session's MCP
// servers, its tool ran in the SDK's process (allowed by allowedTools),
// and its result reached the model.
func checkSDKMCP(t *testing.T, r sdkRun) {
	t.Helper()
	wantKinds(t, r.conv[1], "system/init assistant user assistant result")
	init := r.conv[1][0]
	servers, _ := init["mcp_servers"].([]any)
	var calc map[string]any
	for _, s := range servers {
		if m := s.(map[string]any); m["name"] == "calc" {
			calc = m
		}
	}
	if calc == nil || calc["status"] != "connected" {
		t.Errorf("init mcp_servers = %v, want calc connected", init["mcp_servers"])
	}
	if tl, _ := init["tools"].([]any); !slices.Contains(tl, any("mcp__calc__add")) {
		t.Errorf("init tools %v lack mcp__calc__add", tl)
	}
	if len(r.sdkTools) != 1 || fmt.Sprint(r.sdkTools[0]["input"]) != "map[a:2 b:40]" {
		t.Errorf("the SDK's add tool ran %v, want once with a=2 b=40", r.sdkTools)
	}
	if len(r.canUse) != 0 {
		t.Errorf("allowedTools should let mcp__calc__add run without canUseTool: %v", r.canUse)
	}
	if len(r.reqs) != 2 {
		t.Fatalf("the provider got %d requests, want 2", len(r.reqs))
	}
	if first := string(r.reqs[0].Body); !strings.Contains(first, `"mcp__calc__add"`) {
		t.Errorf("the first request does not offer mcp__calc__add: %.2000s", first)
	}
	res := toolResultIn(t, r.reqs[1].Body, "toolu_add")
	if !strings.Contains(res, "sum=42") {
		t.Errorf("the model got %q for mcp__calc__add, want the SDK tool's sum=42", res)
	}
	wantResult(t, r.conv[1][4], "success", "It is 42.")
}

// toolResultIn is the text of the tool result for id in a provider
// request (Anthropic's Messages body).
func toolResultIn(t *testing.T, body []byte, id string) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("the provider request does not decode: %v", err)
	}
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.ToolUseID == id {
				if b.IsError {
					t.Errorf("the tool result for %s is an error: %s", id, b.Content)
				}
				return string(b.Content)
			}
		}
	}
	t.Fatalf("no tool result for %s in %s", id, body)
	return ""
}

func twoAnswers(string) []llmtest.Turn {
	return []llmtest.Turn{{Text: "First answer."}, {Text: "Second answer."}}
}

func checkTwoTurns(t *testing.T, r sdkRun) {
	t.Helper()
	wantKinds(t, r.conv[1], "system/init assistant result system/init assistant result")
	wantResult(t, r.conv[1][2], "success", "First answer.")
	wantResult(t, r.conv[1][5], "success", "Second answer.")
	if r.conv[1][0]["session_id"] != r.conv[1][3]["session_id"] {
		t.Error("the two turns are in different sessions")
	}
	if len(r.reqs) != 2 || !strings.Contains(string(r.reqs[1].Body), "First answer.") || !strings.Contains(string(r.reqs[1].Body), "second question") {
		t.Error("the second turn's request lacks the first turn")
	}
}

func checkPartial(t *testing.T, r sdkRun) {
	t.Helper()
	var events []string
	var thinking, text, input strings.Builder
	for _, m := range r.msgs[1] {
		if m["type"] != "stream_event" {
			continue
		}
		ev := m["event"].(map[string]any)
		events = append(events, ev["type"].(string))
		if d, ok := ev["delta"].(map[string]any); ok && ev["type"] == "content_block_delta" {
			switch d["type"] {
			case "thinking_delta":
				thinking.WriteString(d["thinking"].(string))
			case "text_delta":
				text.WriteString(d["text"].(string))
			case "input_json_delta":
				input.WriteString(d["partial_json"].(string))
			}
		}
	}
	first := strings.Join(events, " ")
	for _, want := range []string{"message_start content_block_start content_block_delta", "content_block_stop message_delta message_stop message_start"} {
		if !strings.Contains(first, want) {
			t.Errorf("stream events %s lack %q", first, want)
		}
	}
	if thinking.String() != "The user wants the file." || text.String() != "Reading.It says hello world." || !strings.Contains(input.String(), "greet.txt") {
		t.Errorf("deltas: thinking %q text %q input %q", thinking.String(), text.String(), input.String())
	}
	var blocks []string
	for _, m := range r.msgs[1] {
		if m["type"] == "assistant" {
			blocks = append(blocks, blockOf(m)["type"].(string))
		}
	}
	if strings.Join(blocks, " ") != "thinking text tool_use text" {
		t.Errorf("assistant blocks = %v", blocks)
	}
}

// TestAgentSDK drives nova with the real Claude Agent SDK (pinned in
// headless/testdata/agentsdk) against the fake provider: every scenario
// of drive.mjs, every message the SDK yields checked, and its shapes held
// to what Claude Code yields for the same scenario (the fixtures).
func TestAgentSDK(t *testing.T) {
	dir := agentSDKDir(t)
	for _, sc := range sdkScenarios {
		t.Run(sc.name, func(t *testing.T) {
			e := newE2E(t)
			e.srv.Push(sc.turns(e.ws)...)
			e.write("greet.txt", "hello world\n")
			if sc.setup != nil {
				sc.setup(e)
			}
			if *recordClaude {
				recordClaudeFixture(t, e, dir, sc.name)
				return
			}
			r := driveSDK(t, e, dir, sc.name, novaBin, append(e.env, "MCP_SERVERS="+sdkMCPServers()))
			if len(r.errors) > 0 {
				t.Fatalf("the SDK failed: %v\nstderr:\n%s", r.errors, r.stderr)
			}
			checkEveryMessage(t, r.all)
			sc.check(t, r)
			compareWithClaude(t, dir, sc.name, r)
		})
	}
}
