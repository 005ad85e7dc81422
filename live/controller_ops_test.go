package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
)

// Claude Code's rules are listed with their layer and marked as Claude
// Code's, and RemoveRule leaves Claude Code's file as it was.
func TestControllerRulesClaudeCode(t *testing.T) {
	e := newTestController(t, `{"permissions": {"deny": ["Bash(rm:*)"]}}`, Options{})
	claudeFile := filepath.Join(filepath.Dir(e.novaHome), ".claude", "settings.json")
	writeTestFile(t, claudeFile, `{"permissions": {"deny": ["Bash(curl:*)"]}}`)
	if err := e.c.Clear(); err != nil { // a runtime that has read it
		t.Fatal(err)
	}
	var claude, nova *Rule
	rules := e.c.Rules()
	for i := range rules {
		switch rules[i].Rule {
		case "Bash(curl:*)":
			claude = &rules[i]
		case "Bash(rm:*)":
			nova = &rules[i]
		}
	}
	if claude == nil || !claude.ClaudeCode || claude.Layer != "user" || claude.Removable || claude.Source != claudeFile {
		t.Fatalf("Claude Code's rule: %+v in %+v", claude, rules)
	}
	if nova == nil || nova.ClaudeCode || !nova.Removable {
		t.Fatalf("nova's rule: %+v", nova)
	}
	before, _ := os.ReadFile(claudeFile)
	if err := e.c.RemoveRule(*claude); err == nil || !strings.Contains(err.Error(), "Claude Code") {
		t.Errorf("removing Claude Code's rule: %v", err)
	}
	if after, _ := os.ReadFile(claudeFile); string(after) != string(before) {
		t.Errorf("Claude Code's file was edited: %s", after)
	}
	// Forged as removable, it is still refused: only nova's files are.
	forged := *claude
	forged.ClaudeCode, forged.Removable = false, true
	if err := e.c.RemoveRule(forged); err == nil {
		t.Error("a forged removable rule of Claude Code's file was removed")
	}
	if got := e.c.Runtime().Checker.Check(context.Background(), permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: "curl x", Workdir: e.ws}).Behavior; got != permission.Deny {
		t.Errorf("Claude Code's deny rule after the refusals: %s", got)
	}
}

// The terminal's own !cmd and /compact are Local runs (a shared terminal
// does not show them again as a browser's); a server's are not.
func TestControllerTerminalRunsAreLocal(t *testing.T) {
	e := newTestController(t, "", Options{})
	if _, err := e.c.TerminalShell(context.Background(), "echo here"); err != nil {
		t.Fatal(err)
	}
	if r := e.c.Runtime().Live.LastRun(); !r.Local() || r.ID() == "" {
		t.Errorf("the terminal's !cmd: run %q local %v", r.ID(), r.Local())
	}
	if _, err := e.c.Shell(context.Background(), "echo there"); err != nil {
		t.Fatal(err)
	}
	if r := e.c.Runtime().Live.LastRun(); r.Local() {
		t.Error("a server's !cmd is a local run")
	}
}

// /memory says when a conditional rule file is read.
func TestControllerMemoryConditional(t *testing.T) {
	e := newTestController(t, "", Options{})
	writeTestFile(t, filepath.Join(e.ws, ".claude", "rules", "go.md"), "---\npaths: [\"**/*.go\"]\n---\nuse gofmt\n")
	writeTestFile(t, filepath.Join(e.ws, "AGENTS.md"), "be brief\n")
	text, err := e.c.Memory()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "go.md (") || !strings.Contains(text, "(when a tool touches **/*.go)") {
		t.Errorf("the conditional rule is not said to be conditional:\n%s", text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "AGENTS.md") && strings.Contains(line, "when") {
			t.Errorf("AGENTS.md is said to be conditional: %s", line)
		}
	}
}

// !cmd's output is one of the session's messages as Shell returns, in
// the transcript before any prompt, with the session's context ahead of
// it (the first user message carries it); the next request has it once.
func TestControllerShellRecordedAtOnce(t *testing.T) {
	e := newTestController(t, "", Options{}, llmtest.Turn{Text: "seen"})
	// The output (SENTINEL-42) is not the command's own text.
	if _, err := e.c.Shell(context.Background(), "echo SENTINEL-$((40+2))"); err != nil {
		t.Fatal(err)
	}
	tr, _, err := session.NewStore(e.novaHome).Load(e.c.Runtime().Session.ID())
	if err != nil {
		t.Fatal(err)
	}
	msgs := tr.Messages()
	if raw, _ := json.Marshal(msgs); len(msgs) != 1 || !strings.Contains(string(raw), "SENTINEL-42") {
		t.Fatalf("the transcript right after !cmd: %s", raw)
	}
	if first := msgs[0]; len(first.Parts) != 2 || !session.IsContext(first.Parts[0]) {
		t.Errorf("the first message does not carry the session's context: %+v", first.Parts)
	}
	e.run(t, "what did it say")
	raw, _ := json.Marshal(e.last(t)["messages"])
	if n := strings.Count(string(raw), "SENTINEL-42"); n != 1 {
		t.Errorf("the next request has the output %d times: %s", n, raw)
	}
	if n := strings.Count(string(raw), "Working directory:"); n != 1 {
		t.Errorf("the next request has the context %d times", n)
	}
}
