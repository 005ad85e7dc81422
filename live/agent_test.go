package live

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// scriptClient answers each request with the next scripted response.
type scriptClient struct {
	mu    sync.Mutex
	resps [][]llm.StreamEvent
}

func (c *scriptClient) Stream(ctx context.Context, _ llm.Request, emit func(llm.StreamEvent)) error {
	c.mu.Lock()
	var r []llm.StreamEvent
	if len(c.resps) > 0 {
		r, c.resps = c.resps[0], c.resps[1:]
	}
	c.mu.Unlock()
	if r == nil {
		r = []llm.StreamEvent{{Type: llm.EventTextDelta, Text: "done"}, {Type: llm.EventStop, StopReason: llm.StopEndTurn}}
	}
	for _, ev := range r {
		emit(ev)
	}
	return nil
}

// execTool is a tool the checker asks about (an unknown executable kind),
// which says when it ran.
type execTool struct{ ran chan struct{} }

func (execTool) Name() string            { return "Exec" }
func (execTool) Description() string     { return "runs" }
func (execTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (execTool) Kind() permission.Kind   { return permission.KindExec }
func (execTool) Permission(json.RawMessage, *tools.Env) permission.Request {
	return permission.Request{}
}
func (e execTool) Run(context.Context, json.RawMessage, *tools.Env) (tools.Result, error) {
	if e.ran != nil {
		e.ran <- struct{}{}
	}
	return tools.Result{Output: "ran"}, nil
}

// askingAgent is a real agent whose first turn calls Exec, which asks.
func askingAgent(t *testing.T, ran chan struct{}) *agent.Agent {
	t.Helper()
	reg := tools.NewRegistry()
	if err := reg.Register(execTool{ran: ran}); err != nil {
		t.Fatal(err)
	}
	checker, err := permission.NewChecker(permission.Config{Mode: permission.ModeDefault, Workspace: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env := tools.NewEnv(t.TempDir())
	env.SpillDir = t.TempDir()
	env.Ask, env.Notify = agent.Person{}, agent.Notify
	client := &scriptClient{resps: [][]llm.StreamEvent{{
		{Type: llm.EventToolCall, ToolCall: &llm.ToolCall{ID: "call_1", Name: "Exec", Input: json.RawMessage(`{}`)}},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}}}
	return agent.New(agent.Config{Client: client, Model: "m", Pipeline: &tools.Pipeline{Registry: reg, Checker: checker},
		Env: env, ContextWindow: 100_000, MaxTokens: 4_000})
}
