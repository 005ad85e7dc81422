package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// TestRetryDiscardsThePartialResponse: when a response breaks off and is
// asked for again, what it streamed is void: the screen keeps the turns
// before it and the notice, not the voided text or its queued calls.
func TestRetryDiscardsThePartialResponse(t *testing.T) {
	tr := newTranscript()
	now := time.Now()
	tr.apply(agent.Event{Type: agent.EventTurnStart, Turn: 1}, now)
	tr.apply(agent.Event{Type: agent.EventTextDelta, Text: "kept answer"}, now)
	tr.apply(agent.Event{Type: agent.EventTurnEnd}, now)
	tr.apply(agent.Event{Type: agent.EventTurnStart, Turn: 2}, now)
	tr.apply(agent.Event{Type: agent.EventThinkingDelta, Text: "void thought"}, now)
	tr.apply(agent.Event{Type: agent.EventTextDelta, Text: "void text"}, now)
	tr.apply(agent.Event{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "Read"}}, now)
	tr.apply(agent.Event{Type: agent.EventRetry, Retry: &llm.RetryInfo{Attempt: 1, DiscardPartial: true}}, now)
	tr.apply(agent.Event{Type: agent.EventTextDelta, Text: "fresh text"}, now)

	var texts []string
	for _, e := range tr.entries {
		texts = append(texts, e.text)
	}
	all := strings.Join(texts, "|")
	for _, void := range []string{"void thought", "void text"} {
		if strings.Contains(all, void) {
			t.Errorf("%q still shown: %q", void, all)
		}
	}
	if _, ok := tr.tools["c1"]; ok {
		t.Error("the voided call is still tracked")
	}
	for _, want := range []string{"kept answer", "fresh text"} {
		if !strings.Contains(all, want) {
			t.Errorf("%q missing: %q", want, all)
		}
	}
}

// TestResumedInterruptionIsANotice: the note kept for the model when a run
// was stopped comes back, after nova -c or /resume, as the notice it was
// live, not as a message the person wrote.
func TestResumedInterruptionIsANotice(t *testing.T) {
	tr := newTranscript()
	tr.loadHistory([]llm.Message{
		llm.UserText("do it"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("Starting")}},
		llm.UserText(agent.InterruptedNote),
		llm.UserText("now this"),
	})
	var kinds []entryKind
	for _, e := range tr.entries {
		kinds = append(kinds, e.kind)
		if e.kind == entryUser && strings.Contains(e.text, "interrupted") {
			t.Errorf("the note is shown as the person's words: %q", e.text)
		}
	}
	if want := []entryKind{entryUser, entryAssistant, entryNotice, entryUser}; !slices.Equal(kinds, want) {
		t.Errorf("entries %v, want %v", kinds, want)
	}
}
