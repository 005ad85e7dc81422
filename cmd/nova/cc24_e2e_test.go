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

// TestClaudeCodeMemoryE2E: Claude Code's four memory locations reach the
// model in the first request; a rule with paths: reaches it with the
// result of the Read that touched a match, and not before.
func TestClaudeCodeMemoryE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "src/api/users.go"})}}},
		llmtest.Turn{Text: "read it"},
	)
	e.write(".git/HEAD", "ref: refs/heads/main\n")
	e.writeHome(".claude/CLAUDE.md", "USER-MEMORY: answer in British English.\n")
	e.write(".claude/CLAUDE.md", "PROJECT-DOT-CLAUDE: run make test.\n")
	e.write("CLAUDE.local.md", "LOCAL-MEMORY: my sandbox URL is local.test.\n")
	e.write(".claude/rules/style.md", "RULE-ALWAYS: wrap at 100 columns.\n")
	e.write(".claude/rules/api.md", "---\npaths:\n  - \"src/api/**/*.go\"\n---\nRULE-API: handlers return typed errors.\n")
	e.write("src/api/users.go", "package api\n")
	r := e.run("", "-p", "read the users handler")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := string(reqs[0].Body)
	for _, want := range []string{"USER-MEMORY", "PROJECT-DOT-CLAUDE", "LOCAL-MEMORY", "RULE-ALWAYS"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %s", want)
		}
	}
	if strings.Contains(first, "RULE-API") {
		t.Errorf("the conditional rule went out before a tool touched src/api")
	}
	if strings.Contains(first, "paths:") {
		t.Errorf("a rule's frontmatter reached the model")
	}
	if second := string(reqs[1].Body); strings.Count(second, "RULE-API: handlers return typed errors.") != 1 {
		t.Errorf("the Read's result does not carry the api rule once:\n%s", second)
	}
	d := e.run("", "doctor", "--no-sandbox")
	if !strings.Contains(d.stdout, "api.md (when a tool touches src/api/**/*.go)") || !strings.Contains(d.stdout, ".claude/CLAUDE.md") {
		t.Errorf("doctor does not list the memory files:\n%s", d.stdout)
	}
}
