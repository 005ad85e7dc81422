package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
)

// TestForkSession: --fork-session carries on from a session's history in
// a new session, which resumes on its own, and leaves the first as it was.
func TestForkSession(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "I will remember teapot."}, llmtest.Turn{Text: "The word was teapot."}, llmtest.Turn{Text: "Still teapot."})
	first := resultSessionID(t, e.run("", "-p", "--output-format", "json", "remember the word teapot"))
	r := e.run("", "-p", "--output-format", "json", "--resume", first, "--fork-session", "what was the word?")
	fork := resultSessionID(t, r)
	if fork == first {
		t.Fatalf("the fork has the session id %s of the session it forked", fork)
	}
	reqs := e.srv.Requests()
	if body := string(reqs[1].Body); !strings.Contains(body, "remember the word teapot") || !strings.Contains(body, "I will remember teapot.") {
		t.Error("the fork's request lacks the forked session's history")
	}
	store := session.NewStore(filepath.Join(e.home, ".nova"))
	tr, _, err := store.Load(first)
	if err != nil || tr.Meta.MessageCount != 2 {
		t.Fatalf("the forked session has %v messages (%v), want its own 2 untouched", tr.Meta.MessageCount, err)
	}
	if id := resultSessionID(t, e.run("", "-p", "--output-format", "json", "--resume", fork, "and now?")); id != fork {
		t.Errorf("resuming the fork gave session %s, want %s", id, fork)
	}
	if body := string(e.srv.Requests()[2].Body); !strings.Contains(body, "what was the word?") || !strings.Contains(body, "remember the word teapot") {
		t.Error("the resumed fork lacks its history")
	}
	if r := e.run("", "-p", "--fork-session", "hi"); r.code != 2 || !strings.Contains(r.stderr, "--fork-session needs the session to fork") {
		t.Errorf("--fork-session alone: exit %d stderr %q", r.code, r.stderr)
	}
}

// TestClaudeFlagsE2E: --system-prompt, --tools, -n and --debug-file do
// what they say, seen at the provider and on disk.
func TestClaudeFlagsE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Arr."})
	r := e.run("", "-p", "--output-format", "json", "--system-prompt", "You are a terse pirate.", "--tools", "Read,Grep", "-n", "pirate talk",
		"--debug-file", "debug.jsonl", "who are you?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := resultSessionID(t, r)
	var body struct {
		System []struct{ Text string } `json:"system"`
		Tools  []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(e.srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.System) != 1 || body.System[0].Text != "You are a terse pirate." {
		t.Errorf("system = %+v, want the --system-prompt in place of nova's", body.System)
	}
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"Read", "Grep"}) {
		t.Errorf("tools offered = %v, want Read and Grep only", names)
	}
	tr, _, err := session.NewStore(filepath.Join(e.home, ".nova")).Load(id)
	if err != nil || tr.Meta.Title != "pirate talk" {
		t.Errorf("title = %q (%v), want -n's", tr.Meta.Title, err)
	}
	debug, err := os.ReadFile(filepath.Join(e.ws, "debug.jsonl"))
	if err != nil || !strings.Contains(string(debug), `"type":"text_delta"`) || !strings.Contains(string(debug), `"type":"done"`) {
		t.Errorf("debug file = %q (%v), want nova's own events", debug, err)
	}
	if r := e.run("", "-p", "--tools", "Read,Teleport", "hi"); r.code != 2 || !strings.Contains(r.stderr, `nova has no tool "Teleport"`) {
		t.Errorf("an unknown tool: exit %d stderr %q", r.code, r.stderr)
	}
}
