package live

import (
	"encoding/json"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/session"
)

// TestOpenAnswersDanglingCalls: a session whose nova was killed mid-tool
// (its transcript ends with a call and no result) is repaired when any
// frontend opens it (the terminal's --resume as much as nova serve's),
// before a run: the file then holds the call's answer, once, so the
// history every reader takes from it is one a provider accepts.
func TestOpenAnswersDanglingCalls(t *testing.T) {
	w := newHookWorld(t, `{}`)
	store := session.NewStore(w.novaHome)
	s, err := store.Create(session.Meta{WorkspaceDir: w.ws, AgentKey: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("count the files")}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_killed", Name: "Bash", Input: json.RawMessage(`{"command":"ls | wc -l"}`)}}}},
	} {
		if err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	answered := func() int {
		tr, _, err := store.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range tr.Messages() {
			for _, p := range m.Parts {
				if p.ToolResult != nil && p.ToolResult.CallID == "toolu_killed" {
					n++
				}
			}
		}
		return n
	}
	for i := range 2 { // a second open finds nothing left to answer
		rt, err := w.build(Options{Resume: id})
		if err != nil {
			t.Fatal(err)
		}
		if err := rt.Close(); err != nil {
			t.Fatal(err)
		}
		if n := answered(); n != 1 {
			t.Fatalf("after open %d the transcript answers toolu_killed %d times, want once", i+1, n)
		}
	}
}
