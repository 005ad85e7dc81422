package main

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// Issue 24's smaller items end to end: what a Claude Code user's setup
// gets from a real nova -p against llmtest.

// TestSlashCommandWithPromptHook: with a UserPromptSubmit hook
// configured, "/whisper quiet" is still expanded from
// .claude/commands/whisper.md (it reached the model as literal text),
// and the hook's context still rides beside it.
func TestSlashCommandWithPromptHook(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "shh"})
	e.write(".claude/commands/whisper.md", "---\ndescription: Answer in a whisper\n---\nAnswer everything in a $ARGUMENTS whisper.\n")
	hook := e.script("ctx.sh", "#!/bin/sh\ncat > /dev/null\necho 'the team is in a library'\n")
	e.userHooks(commandHook("UserPromptSubmit", "", hook))
	r := e.run("", "-p", "--trust", "/whisper quiet")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := lastUserText(t, reqs[0])
	for _, want := range []string{"<command-name>/whisper</command-name>", "Answer everything in a quiet whisper.", "the team is in a library"} {
		if !strings.Contains(got, want) {
			t.Errorf("the prompt sent lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/whisper quiet") {
		t.Errorf("the command went to the model as typed:\n%s", got)
	}
}
