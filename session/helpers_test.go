package session

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// clock is a fake time source that moves one second per reading, so the
// order of updates is known without sleeping.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// newStore returns a store in a fresh NOVA_HOME with a fake clock.
func newStore(t testing.TB) *Store {
	t.Helper()
	home := t.TempDir()
	st := NewStore(home)
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	st.now = c.now
	return st
}

func create(t testing.TB, st *Store, ws string) *Session {
	t.Helper()
	s, err := st.Create(Meta{WorkspaceDir: ws, AgentKey: "build", Model: "claude-test"})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustAppend(t testing.TB, s *Session, msgs ...llm.Message) {
	t.Helper()
	for _, m := range msgs {
		if err := s.AppendMessage(m); err != nil {
			t.Fatalf("AppendMessage: %v", err)
		}
	}
}

func assistantCall(id, name, input string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
		llm.TextPart("Let me look."),
		{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}},
	}}
}

func toolResult(id, name, out string, isErr bool) llm.Message {
	return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{
		{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Name: name, IsError: isErr, Content: []llm.Part{llm.TextPart(out)}}},
	}}
}

func allow() permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Layer: permission.LayerRule, Reason: "matches an allow rule", Rule: "Bash(ls:*)"}
}

// texts renders messages as "role:text" plus their tool call or result
// ids, for comparing histories at a glance.
func texts(msgs []llm.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Role) + ":" + m.Text()
		if calls := m.ToolCalls(); len(calls) > 0 {
			out[i] += "+call:" + calls[0].ID
		}
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				out[i] += "result:" + p.ToolResult.CallID
			}
		}
	}
	return out
}
