package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// scriptedClient is a model that answers from a script, one response per
// request.
type scriptedClient struct {
	mu    sync.Mutex
	resps [][]llm.StreamEvent
}

func (c *scriptedClient) Stream(ctx context.Context, _ llm.Request, emit func(llm.StreamEvent)) error {
	c.mu.Lock()
	if len(c.resps) == 0 {
		c.mu.Unlock()
		emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: "(no more script)"})
		emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopEndTurn})
		return nil
	}
	r := c.resps[0]
	c.resps = c.resps[1:]
	c.mu.Unlock()
	for _, ev := range r {
		emit(ev)
	}
	return nil
}

func toolTurn(id, name string, input any) []llm.StreamEvent {
	return []llm.StreamEvent{
		{Type: llm.EventToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Input: js(input)}},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}
}

func textTurn(s string) []llm.StreamEvent {
	return []llm.StreamEvent{{Type: llm.EventTextDelta, Text: s}, {Type: llm.EventStop, StopReason: llm.StopEndTurn}}
}

// agentBackend is the fake backend with a real agent behind Run, so asks
// and questions are the agent's own and answering them is tested for real.
type agentBackend struct {
	*fakeBackend
	a   *agent.Agent
	ws  string
	env *tools.Env
}

func (b *agentBackend) Run(ctx context.Context, in llm.Message) <-chan agent.Event {
	return b.a.Run(ctx, in)
}

func newAgentBackend(t *testing.T, resps ...[]llm.StreamEvent) *agentBackend {
	t.Helper()
	return newAgentBackendWith(t, nil, resps...)
}

// newAgentBackendWith is newAgentBackend with extra tools beside the
// built-in ones.
func newAgentBackendWith(t *testing.T, extra []tools.Tool, resps ...[]llm.StreamEvent) *agentBackend {
	t.Helper()
	ws := t.TempDir()
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	reg := tools.NewRegistry()
	for _, tl := range append(tools.Builtin(), extra...) {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	checker, err := permission.NewChecker(permission.Config{Mode: permission.ModeDefault, Workspace: ws, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env := tools.NewEnv(ws)
	env.SpillDir = t.TempDir()
	env.Ask, env.Notify = agent.Person{}, agent.Notify
	t.Cleanup(func() { _ = env.Close() })
	a := agent.New(agent.Config{Client: &scriptedClient{resps: resps}, Model: "m", Pipeline: &tools.Pipeline{Registry: reg, Checker: checker},
		Env: env, ContextWindow: 100_000, MaxTokens: 4_000})
	return &agentBackend{fakeBackend: newFake(), a: a, ws: ws, env: env}
}

// waitFor delivers the agent's events as it sends them until cond holds.
func (h *harness) waitFor(cond func() bool) {
	h.t.Helper()
	for i := 0; i < 200 && !cond(); i++ {
		if !h.next() {
			h.t.Fatalf("no run is waiting for events and the condition is not met:\n%s", h.screen())
		}
	}
	if !cond() {
		h.t.Fatalf("condition not met:\n%s", h.screen())
	}
}

func newAgentHarness(t *testing.T, b *agentBackend) *harness {
	h := newHarness(t, b.fakeBackend)
	h.m.b = b
	return h
}

func TestTUIPermissionAskAllowOnce(t *testing.T) {
	b := newAgentBackend(t,
		toolTurn("call_1", "Bash", map[string]any{"command": "echo hi > made.txt"}),
		textTurn("Made the file."))
	h := newAgentHarness(t, b)
	h.typeText("make a file")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.contains("Allow Bash?")
	h.press("y")
	h.waitFor(func() bool { return h.m.run == nil })
	if _, err := os.Stat(filepath.Join(b.ws, "made.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	h.contains("Made the file.")
	h.contains("Bash(echo hi > made.txt)")
}

func TestTUIPermissionAskGolden(t *testing.T) {
	b := newAgentBackend(t,
		toolTurn("call_1", "Bash", map[string]any{"command": "npm install left-pad"}),
		textTurn("Not installed."))
	h := newAgentHarness(t, b)
	h.typeText("add left-pad")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.golden("permission_ask")
	// "No, deny" stops the turn, as Claude Code's "No" does: the model
	// is not asked again, and nova waits for the person.
	h.press("n")
	h.waitFor(func() bool { return h.m.run == nil })
	h.contains("⊘ Bash(npm install left-pad)")
	h.contains("Interrupted · tell the model what to do instead")
	if strings.Contains(h.screen(), "Not installed.") {
		t.Errorf("the model was asked again after the denial:\n%s", h.screen())
	}
	for _, m := range b.a.History() {
		if m.Role == llm.RoleAssistant && strings.Contains(m.Text(), "Not installed.") {
			t.Error("the model answered again after the denial")
		}
	}
}

func TestTUIPermissionAskEscDenies(t *testing.T) {
	b := newAgentBackend(t,
		toolTurn("call_1", "Bash", map[string]any{"command": "echo hi > made.txt"}),
		textTurn("I was not allowed."))
	h := newAgentHarness(t, b)
	h.typeText("make a file")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.press("esc")
	h.waitFor(func() bool { return h.m.run == nil })
	if _, err := os.Stat(filepath.Join(b.ws, "made.txt")); err == nil {
		t.Error("the denied command ran")
	}
	h.contains("⊘ Bash")
	h.contains("denied")
}

func TestTUIPermissionAskDenyWithMessage(t *testing.T) {
	b := newAgentBackend(t,
		toolTurn("call_1", "Bash", map[string]any{"command": "rm -r build"}),
		textTurn("OK."))
	h := newAgentHarness(t, b)
	h.typeText("clean")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.press(string(rune('0' + len(h.m.dialogs[0].(*permissionDialog).list.choices))))
	h.contains("What should nova do instead?")
	h.typeText("use make clean")
	h.press("enter")
	h.waitFor(func() bool { return h.m.run == nil })
	hist := b.a.History()
	var found bool
	for _, m := range hist {
		for _, p := range m.Parts {
			if p.ToolResult != nil && len(p.ToolResult.Content) > 0 && strings.Contains(p.ToolResult.Content[0].Text, "use make clean") {
				found = true
			}
		}
	}
	if !found {
		t.Error("the denial message did not reach the model")
	}
	// The words stay in the transcript, after the denied call, and the
	// model goes on with them.
	h.contains("❯ use make clean")
	h.contains("OK.")
}

func TestTUIQuestion(t *testing.T) {
	b := newAgentBackend(t,
		toolTurn("call_1", "AskUserQuestion", map[string]any{"questions": []map[string]any{{
			"question": "Which database should the service use?", "header": "Database",
			"options": []map[string]any{{"label": "Postgres", "description": "relational"}, {"label": "SQLite", "description": "embedded"}},
		}}}),
		textTurn("SQLite it is."))
	h := newAgentHarness(t, b)
	h.typeText("set up storage")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.golden("question")
	h.press("down")
	h.press("enter")
	h.waitFor(func() bool { return h.m.run == nil })
	h.contains("SQLite it is.")
	found := false
	for _, m := range b.a.History() {
		for _, p := range m.Parts {
			if p.ToolResult != nil && strings.Contains(p.ToolResult.Content[0].Text, "SQLite") {
				found = true
			}
		}
	}
	if !found {
		t.Error("the answer did not reach the model")
	}
}
