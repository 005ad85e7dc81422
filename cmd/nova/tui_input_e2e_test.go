package main

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// The real binary in a terminal: / completion shows each command's
// description, a command file written while nova runs is offered the
// next time completion opens, and a backslash before Enter starts a new
// line of the prompt (❯ on the first line only).
func TestTUIInputAndCompletionE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Got both lines."}, llmtest.Turn{Text: "Two lines"})
	tm := e.startTUI()
	tm.waitFor("Ask nova anything")

	tm.typeText("/")
	tm.waitForText("/compact [instructions] summarise the conversation to free context")
	tm.keys("C-c")
	tm.typeText("/rel")
	if s := tm.waitFor("❯ /rel"); strings.Contains(s, "/release") {
		t.Fatalf("/release offered before its file exists:\n%s", s)
	}
	tm.keys("C-c")
	e.write(".claude/commands/release.md", "---\ndescription: Cut a release\n---\nCut a release.\n")
	tm.typeText("/rel")
	tm.waitFor("/release  Cut a release (project)")
	tm.keys("C-c")

	tm.typeText(`line one\`)
	tm.keys("Enter")
	tm.typeText("line two")
	s := tm.waitFor("  line two")
	if !strings.Contains(s, "❯ line one") || strings.Count(s, "❯") != 1 {
		t.Errorf("the input is not one ❯ line and a continuation:\n%s", s)
	}
	tm.keys("Enter")
	tm.waitFor("Got both lines.")
	if got := lastUserText(t, e.srv.Requests()[0]); !strings.HasSuffix(got, "line one\nline two") {
		t.Errorf("the prompt sent ends %q, want the two lines", got)
	}
	e.waitRequests(2)
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
}
