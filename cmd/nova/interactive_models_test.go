package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm/llmtest"
)

// lastModel is the model the newest request asked the provider for.
func lastModel(t *testing.T, srv *llmtest.Server) any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	return reqs[len(reqs)-1].JSON()["model"]
}

// TestInteractiveModelKeptPerSession: the model /model switched to is the
// session's: `nova -c` (and --resume) goes on with it, not with the
// default, while --model on the resume wins and is kept in turn. A new
// session takes the default, which /model's "d" writes to config.json.
func TestInteractiveModelKeptPerSession(t *testing.T) {
	turn := llmtest.Turn{Text: "Hello.", InputTokens: 10, OutputTokens: 2}
	w := newInteractiveWorld(t, turn, llmtest.Turn{Text: "Title"}, turn, turn, turn, turn, llmtest.Turn{Text: "Title"})
	w.start(t, buildOptions{})
	w.run(t, "hi")
	w.b.waitTitle()
	id := w.b.Status().SessionID
	if err := w.b.SetModel("opus"); err != nil {
		t.Fatal(err)
	}
	w.run(t, "again")
	if m := lastModel(t, w.srv); m != "claude-opus-5-5" {
		t.Fatalf("after /model opus the request went to %v", m)
	}
	w.b.Close()

	w.start(t, buildOptions{cont: true})
	if st := w.b.Status(); st.SessionID != id || st.Model != "anthropic:claude-opus-5-5" {
		t.Fatalf("nova -c: session %s model %s, want %s on opus", st.SessionID, st.Model, id)
	}
	w.run(t, "on opus still")
	if m := lastModel(t, w.srv); m != "claude-opus-5-5" {
		t.Errorf("the resumed session's request went to %v", m)
	}
	w.b.Close()

	w.start(t, buildOptions{resume: id[:8], model: "haiku"})
	if st := w.b.Status(); st.Model != "anthropic:claude-haiku-5-5" {
		t.Errorf("--resume --model haiku: %s", st.Model)
	}
	w.b.Close()
	w.start(t, buildOptions{resume: id})
	if st := w.b.Status(); st.Model != "anthropic:claude-haiku-5-5" {
		t.Errorf("--resume after --model haiku: %s, want the model --model gave the session", st.Model)
	}

	entries := w.b.ModelEntries()
	var sonnet, haiku bool
	for _, e := range entries {
		switch e.ID {
		case "anthropic:claude-sonnet-5-5":
			sonnet = e.Name == "Claude Sonnet 5.5" && e.Alias == "sonnet" && e.ContextWindow == 200_000 && e.Price == "$2 in, $10 out /Mtok"
		case "anthropic:claude-haiku-5-5":
			haiku = e.Name == "Claude Haiku 5.5"
		}
	}
	if !sonnet || !haiku {
		t.Errorf("/model's entries lack a named, priced sonnet or haiku: %+v", entries)
	}
	where, err := w.b.SetDefaultModel("anthropic:claude-opus-5-5")
	if err != nil || !strings.Contains(where, "config.json") {
		t.Fatalf("SetDefaultModel: %q, %v", where, err)
	}
	if f, err := config.LoadFile(w.novaHome); err != nil || f.DefaultModel != "anthropic:claude-opus-5-5" {
		t.Errorf("config.json default_model: %+v, %v", f, err)
	}
	for _, e := range w.b.ModelEntries() {
		if e.Default != (e.ID == "anthropic:claude-opus-5-5") {
			t.Errorf("entry %s: default %v", e.ID, e.Default)
		}
	}
	w.b.Close()

	w.start(t, buildOptions{})
	if st := w.b.Status(); st.Model != "anthropic:claude-opus-5-5" || st.SessionID == id {
		t.Errorf("a new session after d: %s on %s", st.SessionID, st.Model)
	}
}

// TestInteractiveResumedModelGone: a session whose model is no longer
// configured resumes on the default, and says so.
func TestInteractiveResumedModelGone(t *testing.T) {
	turn := llmtest.Turn{Text: "Hello."}
	w := newInteractiveWorld(t, turn, llmtest.Turn{Text: "Title"}, turn)
	writeJSON(t, filepath.Join(w.novaHome, "config.json"), map[string]any{"providers": []map[string]any{
		{"key": "extra", "type": "anthropic", "api_key": "k", "base_url": w.srv.URL, "models": []map[string]any{{"model": "claude-sonnet-5-5"}}}}})
	w.start(t, buildOptions{model: "extra:claude-sonnet-5-5"})
	w.run(t, "hi")
	w.b.waitTitle()
	w.b.Close()
	if err := os.Remove(filepath.Join(w.novaHome, "config.json")); err != nil {
		t.Fatal(err)
	}
	w.start(t, buildOptions{cont: true})
	if st := w.b.Status(); st.Model != "anthropic:"+defaultModel() {
		t.Errorf("resumed on %s", st.Model)
	}
	warned := false
	for _, n := range w.b.runtime().Warnings {
		warned = warned || strings.Contains(n, "the session used extra:claude-sonnet-5-5, which is not available now")
	}
	if !warned {
		t.Errorf("no warning about the model gone: %q", w.b.runtime().Warnings)
	}
}
