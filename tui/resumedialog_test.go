package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/session"
)

// previewBackend is the fake backend with session previews.
type previewBackend struct {
	*fakeBackend
	asked []string
}

func (p *previewBackend) SessionPreview(id string) (string, string, error) {
	p.asked = append(p.asked, id)
	return "the prompt of " + id, "the answer of " + id, nil
}

// /resume filters the sessions as the person types (every word must
// match), shows the last exchange of the highlighted one, and resumes the
// one chosen from the filtered list; esc clears the search first.
func TestTUIResumeSearchAndPreview(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 3, 4, 5, 0, time.UTC)
	b := &previewBackend{fakeBackend: newFake()}
	b.sessions = []session.Meta{
		{ID: "01JTEST", Title: "current", UpdatedAt: t0, MessageCount: 2},
		{ID: "01PARSE", Title: "fix the parser", UpdatedAt: t0, MessageCount: 12},
		{ID: "01LEXER", Title: "speed up the lexer", UpdatedAt: t0, MessageCount: 4},
		{ID: "01DOCS", Title: "parser docs", UpdatedAt: t0, MessageCount: 3},
	}
	h := newHarness(t, b.fakeBackend)
	h.m.b = b
	h.typeText("/resume")
	h.press("enter")
	h.contains("Resume a session")
	h.contains("the answer of 01PARSE") // the first one's preview
	h.typeText("lexer")
	if s := h.screen(); strings.Contains(s, "fix the parser") || !strings.Contains(s, "speed up the lexer") {
		t.Fatalf("filtered by \"lexer\":\n%s", s)
	}
	h.contains("the prompt of 01LEXER")
	h.press("esc") // clears the search, the dialog stays
	h.contains("fix the parser")
	h.typeText("parser docs")
	if s := h.screen(); strings.Contains(s, "fix the parser") || !strings.Contains(s, "parser docs") {
		t.Fatalf("filtered by two words:\n%s", s)
	}
	h.typeText("zzz")
	h.contains("no session matches")
	for range 3 {
		h.press("backspace")
	}
	h.press("enter")
	if b.resumed != "01DOCS" {
		t.Fatalf("resumed %q, want 01DOCS", b.resumed)
	}
	for _, id := range b.asked {
		if id == "01JTEST" {
			t.Error("the current session was previewed")
		}
	}
}
