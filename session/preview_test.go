package session

import (
	"testing"

	"github.com/nova-dev/nova/llm"
)

func TestLastExchange(t *testing.T) {
	t.Parallel()
	tr := &Transcript{boundary: -1}
	for _, m := range []llm.Message{
		llm.UserText("first question"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("first answer")}},
		llm.UserText("second question"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("let me look")}},
		{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1", Content: []llm.Part{llm.TextPart("file text")}}}}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("the file says hello")}},
	} {
		tr.add(Record{Type: RecordMessage, Message: &m})
	}
	p, a := tr.LastExchange()
	if p != "second question" || a != "the file says hello" {
		t.Errorf("LastExchange = %q, %q", p, a)
	}
	if p, a := (&Transcript{boundary: -1}).LastExchange(); p != "" || a != "" {
		t.Errorf("empty: %q %q", p, a)
	}
}
