package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

const testUUID = "0b8e7f52-6c1d-4a3e-9f0a-2d4c6e8f1a3b"

// sessionDirs are the sessions under the test's NOVA_HOME.
func sessionDirs(t *testing.T, e *e2e) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(e.home, ".nova", "sessions"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, en := range entries {
		if en.IsDir() && !strings.HasPrefix(en.Name(), ".") {
			out = append(out, en.Name())
		}
	}
	return out
}

// shownSessionID reads the session id, in any spelling, from a json
// result object.
func shownSessionID(t *testing.T, r runResult) string {
	t.Helper()
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: stdout %q stderr %s", err, r.stdout, r.stderr)
	}
	return res.SessionID
}

// TestSessionID: --session-id UUID starts the session under that id (the
// result names it so), --resume UUID carries it on, and the same id again
// for a new session is refused, as are ids that are none.
func TestSessionID(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "First."}, llmtest.Turn{Text: "Second."})
	r := e.run("", "-p", "--output-format", "json", "--session-id", testUUID, "remember teapot")
	if r.code != 0 || shownSessionID(t, r) != testUUID {
		t.Fatalf("exit %d, session_id %q, want %s: %s", r.code, r.stdout, testUUID, r.stderr)
	}
	if dirs := sessionDirs(t, e); len(dirs) != 1 {
		t.Fatalf("sessions %v, want one", dirs)
	}
	r = e.run("", "-p", "--output-format", "json", "--resume", strings.ToUpper(testUUID), "what was it?")
	if r.code != 0 || shownSessionID(t, r) != testUUID {
		t.Fatalf("resume: exit %d, %s: %s", r.code, r.stdout, r.stderr)
	}
	if reqs := e.srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "remember teapot") {
		t.Error("the resumed request lacks the first run's conversation")
	}
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--session-id", testUUID}, "exists already"},
		{[]string{"--session-id", "not-a-uuid"}, "want a UUID"},
		{[]string{"--session-id", "1b8e7f52-6c1d-4a3e-9f0a-2d4c6e8f1a3b", "--resume", testUUID}, "needs --fork-session"},
	} {
		r := e.run("", append(append([]string{"-p"}, c.args...), "hi")...)
		if r.code != 2 || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.stderr)
		}
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2: the refusals send none", n)
	}
	if dirs := sessionDirs(t, e); len(dirs) != 1 {
		t.Errorf("sessions %v, want still one", dirs)
	}
}

// TestNoSessionPersistence: with --no-session-persistence the run leaves
// no session behind (it cannot be resumed); without it, it does.
func TestNoSessionPersistence(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Gone."}, llmtest.Turn{Text: "Kept."})
	r := e.run("", "-p", "--output-format", "json", "--no-session-persistence", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := resultSessionID(t, r)
	if dirs := sessionDirs(t, e); len(dirs) != 0 {
		t.Errorf("sessions %v after --no-session-persistence, want none", dirs)
	}
	if r := e.run("", "-p", "--resume", id, "again"); r.code != 2 {
		t.Errorf("resuming the unkept session: exit %d, want 2", r.code)
	}
	if r := e.run("", "-p", "hi"); r.code != 0 || len(sessionDirs(t, e)) != 1 {
		t.Errorf("a kept run: exit %d, sessions %v, want one", r.code, sessionDirs(t, e))
	}
	kept := sessionDirs(t, e)[0]
	if r := e.run("", "-p", "--no-session-persistence", "--resume", kept, "more"); r.code != 2 || !strings.Contains(r.stderr, "--fork-session") {
		t.Errorf("--no-session-persistence --resume: exit %d, stderr %q; want 2, naming --fork-session", r.code, r.stderr)
	}
	if dirs := sessionDirs(t, e); len(dirs) != 1 {
		t.Errorf("sessions %v, want the kept one", dirs)
	}
}
