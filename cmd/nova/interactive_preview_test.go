package main

import (
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// /resume's preview of an earlier session is its last prompt and answer,
// read from its transcript on disk.
func TestInteractiveSessionPreview(t *testing.T) {
	w := newInteractiveWorld(t, llmtest.Turn{Text: "The parser is fixed."}, llmtest.Turn{Text: "Parser title"})
	w.start(t, buildOptions{})
	w.run(t, "fix the parser")
	old := w.b.runtime().Session.ID()
	w.b.waitTitle()
	if err := w.b.NewSession(); err != nil {
		t.Fatal(err)
	}
	prompt, answer, err := w.b.SessionPreview(old)
	if err != nil || prompt != "fix the parser" || answer != "The parser is fixed." {
		t.Errorf("preview = %q, %q, %v", prompt, answer, err)
	}
	if _, _, err := w.b.SessionPreview("01NOSUCHSESSION"); err == nil {
		t.Error("no error for a session that does not exist")
	}
}
