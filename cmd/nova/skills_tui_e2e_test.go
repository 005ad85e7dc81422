package main

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// The real binary in a terminal: the trust dialog names the project's
// commands among its grants; once trusted, /name runs the command, whose
// shell line asks in the usual dialog before it runs.
func TestTUISkillCommandE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Done with mk."}, llmtest.Turn{Text: "Make it"})
	e.write(".claude/commands/mk.md", "---\ndescription: Make the marker file\n---\nMake it: !`touch from-cmd.txt && echo made-it`\nThen say done.\n")
	tm := startTmux(t, e.ws, e.env)
	screen := tm.waitFor("Do you trust the files in this folder?")
	for _, want := range []string{".claude/commands", "commands: mk"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the trust dialog lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("1")
	tm.waitFor("Ask nova anything")
	tm.typeText("/mk")
	tm.keys("Enter")
	tm.waitFor("Allow Bash?")
	tm.waitFor("touch from-cmd.txt && echo made-it")
	tm.keys("y")
	tm.waitFor("Done with mk.")
	e.waitRequests(2)
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
	if !e.exists("from-cmd.txt") {
		t.Error("the approved shell line did not run")
	}
	if got := lastUserText(t, e.srv.Requests()[0]); !strings.Contains(got, "Make it: made-it\nThen say done.") {
		t.Errorf("the prompt sent:\n%s", got)
	}
}
