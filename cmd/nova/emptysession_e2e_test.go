package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
)

// TestNoEmptySessionKept: nova -r opens the session picker on a session
// created for the run; Esc, then quitting, leaves only the sessions that
// were there, as does opening nova and quitting, so neither a list nor
// --continue ever finds an empty one. A session something was said in is
// kept.
func TestNoEmptySessionKept(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Hello."}, llmtest.Turn{Text: "Hi again."})
	if r := e.run("", "-p", "hi"); r.code != 0 {
		t.Fatalf("print run: exit %d: %s", r.code, r.stderr)
	}
	sessions := func() []session.Meta {
		t.Helper()
		r := e.run("", "sessions", "ls", "--all", "--json")
		var metas []session.Meta
		if err := json.Unmarshal([]byte(r.stdout), &metas); err != nil {
			t.Fatalf("sessions ls: %v: %s %s", err, r.stdout, r.stderr)
		}
		return metas
	}
	dirs := func() int {
		t.Helper()
		entries, err := os.ReadDir(filepath.Join(e.home, ".nova", "sessions"))
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	before := sessions()
	if len(before) != 1 || dirs() != 1 {
		t.Fatalf("after the print run: %d sessions, %d directories", len(before), dirs())
	}

	tm := e.startTUI("-r")
	tm.waitFor("Resume a session")
	tm.keys("Escape")
	tm.waitFor("Ask nova anything")
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
	if got := sessions(); len(got) != 1 || got[0].ID != before[0].ID || dirs() != 1 {
		t.Errorf("after nova -r, Esc, quit: %d sessions (%+v), %d directories; want only %s", len(got), got, dirs(), before[0].ID)
	}

	tm = e.startTUI()
	tm.waitFor("Ask nova anything")
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
	if got := sessions(); len(got) != 1 || dirs() != 1 {
		t.Errorf("after nova, quit: %d sessions, %d directories", len(got), dirs())
	}

	tm = e.startTUI()
	tm.waitFor("Ask nova anything")
	tm.typeText("hello")
	tm.keys("Enter")
	tm.waitFor("Hi again.")
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
	if got := sessions(); len(got) != 2 {
		t.Errorf("a session with a conversation was not kept: %d sessions", len(got))
	}
}
