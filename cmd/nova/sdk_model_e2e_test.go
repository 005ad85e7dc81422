package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestAgentSDKSetModel drives nova with the real Agent SDK's
// query.setModel mid-session: an unknown name is refused with the known
// ones, 'haiku' switches (live.Controller.SetModel), the next request
// the provider gets names the haiku model, the SDK's in-process MCP
// tool and the session rule canUseTool added still hold after the
// runtime was replaced, and the turn's messages and result name the new
// model.
func TestAgentSDKSetModel(t *testing.T) {
	dir := agentSDKDir(t)
	e := newE2E(t)
	add := func(id string, a, b int, file string) llmtest.Turn {
		return llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: id, Name: "mcp__calc__add", Input: jsonInput(map[string]any{"a": a, "b": b})},
			{ID: id + "_bash", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch " + file})},
		}}
	}
	e.srv.Push(add("toolu_1", 2, 40, "one.txt"), llmtest.Turn{Text: "It is 42."}, add("toolu_2", 1, 1, "two.txt"), llmtest.Turn{Text: "It is 2."})
	r := driveSDK(t, e, dir, "setmodel", novaBin, e.env)
	if len(r.errors) > 0 {
		t.Fatalf("the SDK failed: %v\nstderr:\n%s", r.errors, r.stderr)
	}
	checkEveryMessage(t, r.all)
	if msg, _ := r.controls["setModelUnknown"].(string); !strings.Contains(msg, "nonesuch") || !strings.Contains(msg, "known models") || !strings.Contains(msg, "anthropic:claude-haiku") {
		t.Errorf("setModel('nonesuch') = %q, want a refusal naming it and the known models", r.controls["setModelUnknown"])
	}
	if _, ok := r.controls["setModel"]; !ok {
		t.Fatalf("setModel('haiku') did not return; stderr:\n%s", r.stderr)
	}

	models := make([]string, len(r.reqs))
	for i, req := range r.reqs {
		var body struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(req.Body, &body)
		models[i] = body.Model
	}
	if len(models) != 4 {
		t.Fatalf("the provider got %d requests (%v), want 4", len(models), models)
	}
	if models[0] != defaultModel() || models[1] != defaultModel() {
		t.Errorf("the first turn's requests named %v, want the default %s", models[:2], defaultModel())
	}
	if !strings.HasPrefix(models[2], "claude-haiku") || models[3] != models[2] {
		t.Errorf("the requests after setModel('haiku') named %v, want the haiku model", models[2:])
	}
	// The in-process server, reconnected by the new runtime, ran the
	// second call and its result reached the model.
	if len(r.sdkTools) != 2 || fmt.Sprint(r.sdkTools[1]["input"]) != "map[a:1 b:1]" {
		t.Errorf("the SDK's add tool ran %v, want twice, the second with a=1 b=1", r.sdkTools)
	}
	if !strings.Contains(string(r.reqs[2].Body), `"mcp__calc__add"`) {
		t.Errorf("the first request on haiku does not offer mcp__calc__add: %.2000s", r.reqs[2].Body)
	}
	if res := toolResultIn(t, r.reqs[3].Body, "toolu_2"); !strings.Contains(res, "sum=2") {
		t.Errorf("the model got %q for the add call after the switch, want sum=2", res)
	}
	// canUseTool was asked for the first touch only: its session rule,
	// like allowedTools, holds on the new runtime's checker.
	if len(r.canUse) != 1 || r.canUse[0]["tool"] != "Bash" || !strings.Contains(fmt.Sprint(r.canUse[0]["input"]), "touch one.txt") {
		t.Errorf("canUseTool was called %v, want once, for touch one.txt", r.canUse)
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(e.ws, f)); err != nil {
			t.Errorf("Bash touch %s did not run: %v", f, err)
		}
	}
	var results []map[string]any
	var inits []map[string]any
	for _, m := range r.conv[1] {
		switch {
		case m["type"] == "result":
			results = append(results, m)
		case m["type"] == "system":
			inits = append(inits, m)
		}
	}
	if len(results) != 2 {
		t.Fatalf("the SDK yielded %d results, want 2", len(results))
	}
	wantResult(t, results[1], "success", "It is 2.")
	if usage, _ := results[1]["modelUsage"].(map[string]any); len(usage) != 1 || !strings.Contains(fmt.Sprint(usage), "claude-haiku") {
		t.Errorf("the second result's modelUsage %v does not name the haiku model", results[1]["modelUsage"])
	}
	if len(inits) != 2 {
		t.Fatalf("the SDK yielded %d init messages, want one a turn", len(inits))
	}
	if !strings.HasPrefix(fmt.Sprint(inits[1]["model"]), "claude-haiku") {
		t.Errorf("the second turn's init names model %v, want the haiku model", inits[1]["model"])
	}
	if inits[0]["session_id"] != results[1]["session_id"] {
		t.Errorf("the switch changed the session: %v then %v", inits[0]["session_id"], results[1]["session_id"])
	}
}

// TestSDKSetModelDefault: set_model without a model (the SDK's
// setModel() with none) goes back to the default model, as Claude Code's
// does: after a switch to haiku, the next request names the default.
func TestSDKSetModelDefault(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "back on the default"})
	control := func(id, req string) string {
		return `{"type":"control_request","request_id":"` + id + `","request":` + req + `}` + "\n"
	}
	in := control("haiku", `{"subtype":"set_model","model":"haiku"}`) + control("default", `{"subtype":"set_model"}`) +
		`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":"hi"}}` + "\n"
	r := e.run(in, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--no-sandbox")
	ok := map[string]bool{}
	for _, line := range strings.Split(r.stdout, "\n") {
		var m struct {
			Type     string `json:"type"`
			Response struct {
				Subtype   string `json:"subtype"`
				RequestID string `json:"request_id"`
			} `json:"response"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Type == "control_response" {
			ok[m.Response.RequestID] = m.Response.Subtype == "success"
		}
	}
	if !ok["haiku"] || !ok["default"] {
		t.Fatalf("set_model answers %v, want both successes (exit %d)\nstdout:\n%s\nstderr:\n%s", ok, r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the provider got %d requests, want 1", len(reqs))
	}
	var body struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(reqs[0].Body, &body)
	if body.Model != defaultModel() {
		t.Errorf("the request after set_model with no model named %q, want the default %s", body.Model, defaultModel())
	}
}
