package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/anthropic"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// toolAgent is a real agent on srv with the built-in tools, in a fresh
// workspace; with ask, its asks become events (a person can answer).
func toolAgent(t *testing.T, srv *llmtest.Server, ask bool) (*agent.Agent, *tools.Registry, *permission.Checker, string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checker, err := permission.NewChecker(permission.Config{Workspace: ws, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	for _, tl := range tools.Builtin() {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	env := tools.NewEnv(ws)
	if ask {
		env.Ask = agent.Person{}
	}
	env.Notify = agent.Notify
	env.SpillDir = t.TempDir()
	ag := agent.New(agent.Config{
		Client: anthropic.New(llm.ProviderConfig{Type: llm.ProviderAnthropic, BaseURL: srv.URL, APIKey: "k"}),
		Model:  "claude-test", Pipeline: &tools.Pipeline{Registry: reg, Checker: checker}, Env: env,
		ContextWindow: 100_000, MaxTokens: 4_000,
	})
	return ag, reg, checker, ws
}

// sdkHarness runs Serve on pipes: the test writes the SDK's side of the
// protocol and reads nova's, line by line.
type sdkHarness struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	code  chan int
	ws    string
	mode  *permission.Checker
}

// newSDKHarness serves a real agent on srv, with the built-in tools in a
// fresh workspace, whose asks go to the SDK.
func newSDKHarness(t *testing.T, srv *llmtest.Server, partial bool) *sdkHarness {
	t.Helper()
	return newSDKHarnessWith(t, srv, partial, func(a *agent.Agent) Runner { return a })
}

// newSDKHarnessWith is newSDKHarness serving wrap's Runner of the agent.
func newSDKHarnessWith(t *testing.T, srv *llmtest.Server, partial bool, wrap func(*agent.Agent) Runner) *sdkHarness {
	t.Helper()
	ag, reg, checker, ws := toolAgent(t, srv, true)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &sdkHarness{t: t, in: inW, lines: make(chan map[string]any, 256), code: make(chan int, 1), ws: ws, mode: checker}
	go func() {
		defer close(h.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("nova wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			h.lines <- m
		}
	}()
	go func() {
		in := NewInput(inR)
		if _, err := in.Initialize(); err != nil {
			t.Errorf("initialize: %v", err)
		}
		s := &Session{SessionID: "S1", Model: "anthropic:claude-test", Cwd: ws, Version: "test",
			Tools: reg.Names, PermissionMode: func() string { return string(checker.Mode()) }}
		code := Serve(context.Background(), wrap(ag), in, SDKOptions{Session: s, Partial: partial, PermissionPrompt: true,
			SetPermissionMode: func(mode string) (string, error) {
				m, ok := permission.ParseMode(mode)
				if !ok {
					return "", &json.UnsupportedValueError{Str: mode}
				}
				checker.SetMode(m)
				return mode, nil
			},
			Init:     InitReply{Models: []Model{{Value: "anthropic:claude-test", DisplayName: "claude-test"}}},
			Warnings: []string{"the sandbox cannot run here"},
			Stdout:   outW, Stderr: io.Discard})
		outW.Close()
		h.code <- code
	}()
	t.Cleanup(func() { inW.Close() })
	return h
}

func (h *sdkHarness) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("write %s: %v", line, err)
	}
}

func (h *sdkHarness) user(text string) {
	h.send(`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":` + quote(text) + `}}`)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// until reads nova's lines up to the first that match holds for, and
// returns them all, that one last.
func (h *sdkHarness) until(what string, match func(map[string]any) bool) []map[string]any {
	h.t.Helper()
	var seen []map[string]any
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-h.lines:
			if !ok {
				h.t.Fatalf("nova's output ended before %s; it wrote:\n%s", what, dump(seen))
			}
			seen = append(seen, m)
			if match(m) {
				return seen
			}
		case <-deadline:
			h.t.Fatalf("no %s in 30s; nova wrote:\n%s", what, dump(seen))
		}
	}
}

// exit closes nova's input and returns its exit code and its last lines.
func (h *sdkHarness) exit() (int, []map[string]any) {
	h.t.Helper()
	h.in.Close()
	var rest []map[string]any
	for m := range h.lines {
		rest = append(rest, m)
	}
	select {
	case code := <-h.code:
		return code, rest
	case <-time.After(30 * time.Second):
		h.t.Fatal("nova did not end after its input closed")
	}
	return 0, nil
}

func dump(ms []map[string]any) string {
	var b strings.Builder
	for _, m := range ms {
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func is(typ, subtype string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == typ && (subtype == "" || m["subtype"] == subtype) }
}

func response(id string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		r, _ := m["response"].(map[string]any)
		return m["type"] == "control_response" && r["request_id"] == id
	}
}

func body(m map[string]any) map[string]any {
	r, _ := m["response"].(map[string]any)
	return r
}

func TestServeControlRequests(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	h := newSDKHarness(t, srv, false)
	h.send(`{"type":"control_request","request_id":"i1","request":{"subtype":"initialize","systemPrompt":[""]}}`)
	r := body(h.until("the initialize response", response("i1"))[0])
	init, _ := r["response"].(map[string]any)
	if r["subtype"] != "success" || init == nil {
		t.Fatalf("initialize response = %v", r)
	}
	for _, k := range []string{"commands", "agents", "output_style", "available_output_styles", "models", "account"} {
		if _, ok := init[k]; !ok {
			t.Errorf("the initialize response lacks %s: %v", k, init)
		}
	}
	for _, tc := range []struct {
		name, req, subtype, has string
	}{
		{"interrupt while idle", `{"subtype":"interrupt"}`, "success", "still_queued"},
		{"set_permission_mode", `{"subtype":"set_permission_mode","mode":"acceptEdits"}`, "success", "acceptEdits"},
		{"an unknown mode", `{"subtype":"set_permission_mode","mode":"auto"}`, "error", "auto"},
		{"a second initialize", `{"subtype":"initialize"}`, "error", "already initialized"},
		{"hook_callback", `{"subtype":"hook_callback","callback_id":"h1","input":{}}`, "error", "does not support the control request"},
		{"mcp_message for no server of the session", `{"subtype":"mcp_message","server_name":"s","message":{}}`, "error", `no in-process MCP server \"s\"`},
		{"mcp_status", `{"subtype":"mcp_status"}`, "success", "mcpServers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := strings.ReplaceAll(tc.name, " ", "_")
			h.send(`{"type":"control_request","request_id":"` + id + `","request":` + tc.req + `}`)
			r := body(h.until("the response to "+tc.name, response(id))[0])
			line, _ := json.Marshal(r)
			if r["subtype"] != tc.subtype || !strings.Contains(string(line), tc.has) {
				t.Errorf("response = %s, want %s with %q", line, tc.subtype, tc.has)
			}
		})
	}
	if h.mode.Mode() != permission.ModeAcceptEdits {
		t.Errorf("mode = %s after set_permission_mode acceptEdits", h.mode.Mode())
	}
	if code, rest := h.exit(); code != ExitOK || len(rest) != 0 {
		t.Errorf("exit %d, then %s; want 0 and nothing", code, dump(rest))
	}
}

// TestServeQueuesTurns: user messages sent at once run one turn each, in
// order, each opened by system/init and closed by its result; when the
// input ends, the queued turns still run and nova exits 0.
func TestServeQueuesTurns(t *testing.T) {
	srv := llmtest.New(llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"}, llmtest.Turn{Text: "three"})
	defer srv.Close()
	h := newSDKHarness(t, srv, false)
	h.send(`{"type":"control_request","request_id":"i1","request":{"subtype":"initialize"}}`)
	h.user("first")
	h.user("second")
	h.send(`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"text","text":"third"}]}}`)
	code, lines := h.exit()
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var kinds, results, warnings []string
	for _, m := range lines {
		if m["type"] == "system" && m["subtype"] == "informational" {
			warnings = append(warnings, fmt.Sprintf("%d:%v", len(kinds), m["content"]))
		}
		k, _ := m["type"].(string)
		if st, ok := m["subtype"].(string); ok && k == "system" {
			k += "/" + st
		}
		switch k {
		case "system/init", "assistant", "result":
			kinds = append(kinds, k)
		}
		if k == "result" {
			results = append(results, m["result"].(string))
		}
	}
	if len(warnings) != 1 || warnings[0] != "1:the sandbox cannot run here" {
		t.Errorf("warnings %v, want the one warning once, after the first init", warnings)
	}
	want := "system/init assistant result system/init assistant result system/init assistant result"
	if strings.Join(kinds, " ") != want || strings.Join(results, ",") != "one,two,three" {
		t.Errorf("messages %v, results %v; want %s and one,two,three", kinds, results, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Body), "second") || !strings.Contains(string(reqs[2].Body), "third") {
		t.Errorf("%d requests; the third must carry the whole conversation", len(reqs))
	}
}

// TestServeCanUseTool: an ask becomes a can_use_tool request; allow with
// updatedInput runs the new input, deny sends the model the message and
// lists the denial.
func TestServeCanUseTool(t *testing.T) {
	srv := llmtest.New(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Write", Input: `{"file_path":"one.txt","content":"one"}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Write", Input: `{"file_path":"three.txt","content":"three"}`}}},
		llmtest.Turn{Text: "done"},
	)
	defer srv.Close()
	h := newSDKHarness(t, srv, false)
	h.user("write them")
	req := h.until("the first can_use_tool", is("control_request", ""))
	ask := req[len(req)-1]
	r, _ := ask["request"].(map[string]any)
	if r["subtype"] != "can_use_tool" || r["tool_name"] != "Write" || r["tool_use_id"] != "toolu_1" {
		t.Fatalf("request = %v", ask)
	}
	if in, _ := r["input"].(map[string]any); in["file_path"] != "one.txt" {
		t.Errorf("can_use_tool input = %v", r["input"])
	}
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + ask["request_id"].(string) +
		`","response":{"behavior":"allow","updatedInput":{"file_path":"two.txt","content":"two"},"toolUseID":"toolu_1"}}}`)
	req = h.until("the second can_use_tool", is("control_request", ""))
	ask = req[len(req)-1]
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + ask["request_id"].(string) +
		`","response":{"behavior":"deny","message":"no writing today","toolUseID":"toolu_2"}}}`)
	res := h.until("the result", is("result", ""))
	last := res[len(res)-1]
	denials, _ := last["permission_denials"].([]any)
	if len(denials) != 1 || denials[0].(map[string]any)["tool_use_id"] != "toolu_2" {
		t.Errorf("permission_denials = %v, want the denied Write", last["permission_denials"])
	}
	if _, err := os.Stat(filepath.Join(h.ws, "one.txt")); err == nil {
		t.Error("one.txt was written: the model's input ran, not the SDK's")
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "two.txt")); err != nil || string(b) != "two" {
		t.Errorf("two.txt = %q (%v), want the updatedInput run", b, err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "three.txt")); err == nil {
		t.Error("three.txt was written though the SDK denied it")
	}
	if reqs := srv.Requests(); !strings.Contains(string(reqs[2].Body), "no writing today") {
		t.Error("the model was not told the SDK's message")
	}
	h.exit()
}

// TestServeInterrupt: interrupt ends the running turn (an error result
// with errors) and the session takes the next message.
func TestServeInterrupt(t *testing.T) {
	srv := llmtest.New(llmtest.Turn{Text: strings.Repeat("and then, ", 50), ChunkDelay: 100 * time.Millisecond}, llmtest.Turn{Text: "still here"})
	defer srv.Close()
	h := newSDKHarness(t, srv, true)
	h.user("a long story")
	// The first delta: the model is answering (the request was taken).
	h.until("the first delta", func(m map[string]any) bool {
		ev, _ := m["event"].(map[string]any)
		return m["type"] == "stream_event" && ev["type"] == "content_block_delta"
	})
	h.send(`{"type":"control_request","request_id":"int1","request":{"subtype":"interrupt"}}`)
	lines := h.until("the interrupted result", is("result", ""))
	res := lines[len(lines)-1]
	errs, _ := res["errors"].([]any)
	if res["subtype"] != "error_during_execution" || res["is_error"] != true || len(errs) == 0 {
		t.Errorf("result = %v, want error_during_execution with errors", res)
	}
	h.user("are you there?")
	lines = h.until("the next result", is("result", ""))
	if res := lines[len(lines)-1]; res["result"] != "still here" || res["is_error"] != false {
		t.Errorf("result after the interrupt = %v", res)
	}
	if code, _ := h.exit(); code != ExitOK {
		t.Errorf("exit %d", code)
	}
}

// TestServeInputEndsWhileAsking: input that ends while a can_use_tool is
// unanswered denies the call (nobody is left to answer) and nova exits 0.
func TestServeInputEndsWhileAsking(t *testing.T) {
	srv := llmtest.New(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Write", Input: `{"file_path":"one.txt","content":"one"}`}}},
		llmtest.Turn{Text: "I could not write it."},
	)
	defer srv.Close()
	h := newSDKHarness(t, srv, false)
	h.user("write it")
	h.until("the can_use_tool", is("control_request", ""))
	code, lines := h.exit()
	if code != ExitOK {
		t.Errorf("exit %d", code)
	}
	var res map[string]any
	for _, m := range lines {
		if m["type"] == "result" {
			res = m
		}
	}
	if d, _ := res["permission_denials"].([]any); len(d) != 1 {
		t.Errorf("result = %v, want the unanswered call denied", res)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "one.txt")); err == nil {
		t.Error("one.txt was written with nobody to approve it")
	}
}
