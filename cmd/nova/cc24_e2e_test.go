package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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

// layClaudeMemory lays out Claude Code's memory locations, each file
// with its own marker: the user's ~/.claude/CLAUDE.md, the project's
// CLAUDE.md and .claude/CLAUDE.md, CLAUDE.local.md, a rule for every file
// and a rule with paths: for src/api, which holds users.go.
func layClaudeMemory(e *e2e) {
	e.t.Helper()
	e.write(".git/HEAD", "ref: refs/heads/main\n")
	e.writeHome(".claude/CLAUDE.md", "USER-MEMORY: answer in British English.\n")
	e.write("CLAUDE.md", "PROJECT-MEMORY: the project's own notes.\n")
	e.write(".claude/CLAUDE.md", "PROJECT-DOT-CLAUDE: run make test.\n")
	e.write("CLAUDE.local.md", "LOCAL-MEMORY: my sandbox URL is local.test.\n")
	e.write(".claude/rules/style.md", "RULE-ALWAYS: wrap at 100 columns.\n")
	e.write(".claude/rules/api.md", "---\npaths:\n  - \"src/api/**/*.go\"\n---\nRULE-API: handlers return typed errors.\n")
	e.write("src/api/users.go", "package api\n")
}

// TestClaudeCodeMemoryE2E: Claude Code's four memory locations reach the
// model in the first request; a rule with paths: reaches it with the
// result of the Read that touched a match, and not before.
func TestClaudeCodeMemoryE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "src/api/users.go"})}}},
		llmtest.Turn{Text: "read it"},
	)
	layClaudeMemory(e)
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

// TestStopHookReadsClaudeTranscript: a Stop hook that parses
// transcript_path with jq, as the ralph-wiggum plugin's does, finds the
// last assistant message's text each time it runs (the transcript is in
// step with the session), and its loop ends when that text says so.
func TestStopHookReadsClaudeTranscript(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed")
	}
	e := newE2E(t,
		llmtest.Turn{Text: "Let me check.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo checking"})}}},
		llmtest.Turn{Text: "First try: tests still fail."},
		llmtest.Turn{Text: "Fixed it.\n<promise>DONE</promise>"},
	)
	hook, err := filepath.Abs("testdata/claudecode/stop-loop.sh")
	if err != nil {
		t.Fatal(err)
	}
	e.userHooks(commandHook("Stop", "", hook))
	r := e.run("", "-p", "--allowedTools", "Bash(echo:*)", "fix the tests")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got, want := e.read("seen.txt"), "First try: tests still fail.\nFixed it.\n<promise>DONE</promise>\n"; got != want {
		t.Errorf("the hook read %q, want %q", got, want)
	}
	if n := len(e.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (the hook sent the model back once)", n)
	}
	files, _ := filepath.Glob(filepath.Join(e.home, ".nova", "sessions", "*", "transcript.claude.jsonl"))
	if len(files) != 1 {
		t.Fatalf("Claude Code transcripts: %v", files)
	}
	b, _ := os.ReadFile(files[0])
	var types []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct{ Type string }
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		types = append(types, m.Type)
	}
	// prompt, tool call, tool result, text, the hook's feedback, text.
	if want := "user assistant user assistant user assistant"; strings.Join(types, " ") != want {
		t.Errorf("line types %v, want %s", types, want)
	}
}
