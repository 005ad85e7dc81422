package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/anthropic"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools"
)

// switchable is a Runner whose agent SetModel replaces, as
// live.Controller replaces the runtime.
// Its first turn waits for gate to close, so a test can send while it runs.
type switchable struct {
	mu   sync.Mutex
	cur  *agent.Agent
	gate chan struct{}
}

func (s *switchable) Run(ctx context.Context, in llm.Message) <-chan agent.Event {
	s.mu.Lock()
	a, gate := s.cur, s.gate
	s.gate = nil
	s.mu.Unlock()
	if gate == nil {
		return a.Run(ctx, in)
	}
	out := make(chan agent.Event)
	go func() {
		defer close(out)
		<-gate
		for ev := range a.Run(ctx, in) {
			out <- ev
		}
	}()
	return out
}

// TestSDKSetModel: set_model switches the model between turns (the next
// request the provider gets names the new one, and the result names it
// too), one sent during a turn waits for it to end, an unknown name is an
// error listing the known ones, and the success is Claude Code's empty
// response.
func TestSDKSetModel(t *testing.T) {
	srv := llmtest.New(llmtest.Turn{Text: "on the old model"}, llmtest.Turn{Text: "on the new model"})
	t.Cleanup(srv.Close)
	agentOn := func(model string) *agent.Agent {
		return agent.New(agent.Config{
			Client: anthropic.New(llm.ProviderConfig{Type: llm.ProviderAnthropic, BaseURL: srv.URL, APIKey: "k"}),
			Model:  model, Pipeline: &tools.Pipeline{Registry: tools.NewRegistry()}, Env: tools.NewEnv(t.TempDir()),
			ContextWindow: 100_000, MaxTokens: 4_000,
		})
	}
	gate := make(chan struct{})
	r := &switchable{cur: agentOn("claude-old"), gate: gate}
	var mu sync.Mutex
	model := "anthropic:claude-old"
	known := map[string]string{"haiku": "claude-new", "anthropic:claude-new": "claude-new"}
	set := func(m string) (string, error) {
		id, ok := known[m]
		if !ok {
			return "", errors.New("unknown model " + m + " (known models: anthropic:claude-old, anthropic:claude-new)")
		}
		r.mu.Lock()
		r.cur = agentOn(id)
		r.mu.Unlock()
		mu.Lock()
		model = "anthropic:" + id
		mu.Unlock()
		return model, nil
	}
	current := func() *Session {
		mu.Lock()
		defer mu.Unlock()
		return &Session{SessionID: "S1", Model: model, Version: "test"}
	}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	lines := make(chan map[string]any, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	code := make(chan int, 1)
	go func() {
		code <- Serve(context.Background(), r, NewInput(inR), SDKOptions{Session: current(), SetModel: set, CurrentSession: current,
			Stdout: outW, Stderr: io.Discard})
		outW.Close()
	}()
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func(what string, match func(map[string]any) bool) map[string]any {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("nova's output ended before %s", what)
				}
				if match(m) {
					return m
				}
			case <-deadline:
				t.Fatalf("no %s in 30s", what)
			}
		}
	}
	response := func(id string) map[string]any {
		t.Helper()
		m := next("the response to "+id, func(m map[string]any) bool {
			r, _ := m["response"].(map[string]any)
			return m["type"] == "control_response" && r["request_id"] == id
		})
		return m["response"].(map[string]any)
	}

	send(`{"type":"control_request","request_id":"bad","request":{"subtype":"set_model","model":"claude-nonesuch"}}`)
	if r := response("bad"); r["subtype"] != "error" || !strings.Contains(r["error"].(string), "known models: anthropic:claude-old") {
		t.Errorf("an unknown model: %v, want an error listing the known ones", r)
	}
	send(`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":"first"}}`)
	// The turn has started (its init waits for its first event, which the
	// gate holds back).
	next("the turn's start", func(m map[string]any) bool {
		return m["type"] == "system" && m["subtype"] == "session_state_changed" && m["state"] == "running"
	})
	send(`{"type":"control_request","request_id":"ok","request":{"subtype":"set_model","model":"haiku"}}`)
	send(`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":"hi"}}`)
	// The switch waits for the running turn, whose request is the old model's.
	close(gate)
	if res := next("the first result", func(m map[string]any) bool { return m["type"] == "result" }); res["model"] != "anthropic:claude-old" || res["result"] != "on the old model" {
		t.Errorf("the turn running at the set_model = %v, want it finished on the old model", res)
	}
	if r := response("ok"); r["subtype"] != "success" || r["response"] == nil || len(r["response"].(map[string]any)) != 0 {
		t.Errorf("set_model haiku: %v, want a success with {}", r)
	}
	res := next("the result", func(m map[string]any) bool { return m["type"] == "result" })
	if res["result"] != "on the new model" {
		t.Errorf("result = %v", res)
	}
	if res["model"] != "anthropic:claude-new" {
		t.Errorf("the result names model %v, want the switched-to anthropic:claude-new", res["model"])
	}
	inW.Close()
	if c := <-code; c != ExitOK {
		t.Errorf("exit %d", c)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the provider got %d requests, want 2", len(reqs))
	}
	for i, want := range []string{"claude-old", "claude-new"} {
		var body struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(reqs[i].Body, &body)
		if body.Model != want {
			t.Errorf("request %d named model %q, want %s", i+1, body.Model, want)
		}
	}
}
