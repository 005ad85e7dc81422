package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestClaudeConfigDirE2E: with CLAUDE_CONFIG_DIR set, Claude Code's files
// of the user are read from it, not from ~/.claude: its command, agent
// and CLAUDE.md reach the model and its settings.json's allow applies,
// while those of ~/.claude do not (Claude Code moves them all).
func TestClaudeConfigDirE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Done."})
	cc := filepath.Join(e.home, "elsewhere", "claude")
	e.env = append(e.env, "CLAUDE_CONFIG_DIR="+cc)
	for dir, mark := range map[string]string{"elsewhere/claude": "CCDIR", ".claude": "DOTCLAUDE"} {
		e.writeHome(dir+"/commands/where.md", "Command from "+mark+"-COMMAND.\n")
		e.writeHome(dir+"/CLAUDE.md", "Remember "+mark+"-MEMORY.\n")
		e.writeHome(dir+"/agents/"+strings.ToLower(mark)+"-agent.md", "---\nname: "+strings.ToLower(mark)+"-agent\ndescription: An agent of "+mark+"\n---\nPrompt.\n")
		e.writeHome(dir+"/settings.json", `{"permissions": {"allow": ["Bash(touch `+strings.ToLower(mark)+`*)"]}}`)
	}
	r := e.run("", "-p", "--output-format", "json", "/where")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	body := string(e.srv.Requests()[0].Body)
	for _, want := range []string{"CCDIR-COMMAND", "CCDIR-MEMORY", "ccdir-agent"} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %s from CLAUDE_CONFIG_DIR:\n%s", want, body)
		}
	}
	for _, not := range []string{"DOTCLAUDE-COMMAND", "DOTCLAUDE-MEMORY", "dotclaude-agent"} {
		if strings.Contains(body, not) {
			t.Errorf("the request has %s from ~/.claude, which CLAUDE_CONFIG_DIR replaces", not)
		}
	}

	touch := func(name string) {
		t.Helper()
		e.srv.Push(touchTurns(name)...)
		e.run("", "-p", "--output-format", "json", "--no-sandbox", "make the file")
	}
	touch("ccdir-made")
	touch("dotclaude-made")
	if !e.exists("ccdir-made") {
		t.Errorf("the allow of CLAUDE_CONFIG_DIR/settings.json did not apply")
	}
	if e.exists("dotclaude-made") {
		t.Errorf("the allow of ~/.claude/settings.json applied though CLAUDE_CONFIG_DIR replaces it")
	}
}
