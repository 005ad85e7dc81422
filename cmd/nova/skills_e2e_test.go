package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// writeHome writes a file under the test's home directory.
func (e *e2e) writeHome(name, content string) {
	e.t.Helper()
	p := filepath.Join(e.home, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// nova -p "/name a b": the provider is sent the expanded command, its
// shell lines run through the checker (an allowed one's output in, a
// refused one said, and listed among the denials), its @file read; its
// allowed-tools hold for the run, and its model serves it.
func TestPrintModeCommandE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch by-model.txt"})}}},
		llmtest.Turn{Text: "Greeted."},
	)
	e.write("notes.txt", "Ada wrote the first program.\n")
	e.writeHome(".nova/commands/greet.md", "---\n"+
		"description: Greet someone\n"+
		"argument-hint: [first] [last]\n"+
		"allowed-tools: Bash(touch:*)\n"+
		"model: haiku\n"+
		"---\n"+
		"Greet $0 then $1; all: $ARGUMENTS.\n"+
		"Touched: !`touch greeted.txt && echo touched-ok`\n"+
		"Refused: !`mkdir not-made`\n"+
		"Notes follow: @notes.txt\n")
	r := e.run("", "-p", "--output-format", "json", "/greet Ada Lovelace")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if res := parseResult(t, r.stdout); len(res.Denials) != 1 || res.Denials[0].ToolName != "Bash" || !strings.Contains(res.Denials[0].input(), "mkdir not-made") {
		t.Errorf("permission_denials = %+v, want the refused shell line", res.Denials)
	}
	reqs := e.srv.Requests()
	haiku, _ := config.AliasModel(llm.ProviderAnthropic, "haiku") // what --model haiku names
	for i, req := range reqs {
		if m := req.JSON()["model"]; m != haiku {
			t.Errorf("request %d asked model %v, want the command's (haiku)", i, m)
		}
	}
	got := lastUserText(t, reqs[0])
	for _, want := range []string{
		"<command-name>/greet</command-name>\n<command-args>Ada Lovelace</command-args>",
		"Greet Ada then Lovelace; all: Ada Lovelace.",
		"Touched: touched-ok",
		`Refused: [nova did not run "mkdir not-made": Permission to use Bash was denied`, "nobody to approve it",
		"Notes follow: @notes.txt", `<file path="notes.txt">`, "Ada wrote the first program.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the prompt sent lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "allowed-tools") || strings.Contains(got, "argument-hint") {
		t.Errorf("the frontmatter reached the model:\n%s", got)
	}
	for name, want := range map[string]bool{"greeted.txt": true, "by-model.txt": true, "not-made": false} {
		if _, err := os.Stat(filepath.Join(e.ws, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
	if !strings.Contains(r.stderr, "/greet allows for this run: Bash(touch:*)") {
		t.Errorf("stderr does not say what the command allowed:\n%s", r.stderr)
	}
}

// claudeProject writes a workspace as Claude Code users have them: a
// command, a namespaced command and a skill with a file of its own.
func claudeProject(e *e2e) {
	e.write("README.md", "# Widgets\nA widget library.\n")
	e.write(".claude/commands/review.md", "---\n"+
		"description: Review the project\n"+
		"allowed-tools: Bash(cat:*), Read\n"+
		"---\n"+
		"## Context\n\n- The readme: !`cat README.md`\n\nReview it against @README.md, focusing on $ARGUMENTS.\n")
	e.write(".claude/commands/frontend/component.md", "---\n"+
		"description: Scaffold a component\n"+
		"argument-hint: [name] [style]\n"+
		"---\n"+
		"Create the $0 component in the $1 style.\n")
	e.write(".claude/skills/explain-code/SKILL.md", "---\n"+
		"name: explain-code\n"+
		"description: Explains code with diagrams and analogies. Use when explaining how code works.\n"+
		"allowed-tools: Read Grep\n"+
		"---\n"+
		"Follow the checklist in ${CLAUDE_SKILL_DIR}/checklist.md.\n")
	e.write(".claude/skills/explain-code/checklist.md", "1. Start with an analogy.\n")
}

// A Claude Code project's commands and skills work unchanged, once the
// folder is trusted; before, they are not loaded, and /review says why.
func TestClaudeCodeProjectE2E(t *testing.T) {
	e := newE2E(t)
	claudeProject(e)
	r := e.run("", "-p", "/review naming")
	if r.code == 0 || !strings.Contains(r.stderr, "/review is in "+filepath.Join(e.ws, ".claude", "commands")+", and this folder is not trusted") ||
		!strings.Contains(r.stderr, "ignoring commands in .claude/commands") || !strings.Contains(r.stderr, "ignoring skills in .claude/skills") {
		t.Errorf("untrusted: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("the provider was asked %d times for a command that was not run", n)
	}

	skillDir := filepath.Join(e.ws, ".claude", "skills", "explain-code")
	e.srv.Push(
		llmtest.Turn{Text: "Reviewed."},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "Skill", Input: jsonInput(map[string]any{"skill": "explain-code"})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "Read", Input: jsonInput(map[string]any{"file_path": filepath.Join(skillDir, "checklist.md")})}}},
		llmtest.Turn{Text: "Explained."},
	)
	r = e.run("", "--trust", "-p", "/review naming")
	if r.code != 0 {
		t.Fatalf("/review: exit %d\nstderr: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	got := lastUserText(t, reqs[0])
	for _, want := range []string{"- The readme: # Widgets\nA widget library.", "focusing on naming.", `<file path="README.md">`,
		"<skills>", "- explain-code: Explains code with diagrams", "- review: Review the project", "- component: Scaffold a component"} {
		if !strings.Contains(got, want) {
			t.Errorf("/review sent lacks %q:\n%s", want, got)
		}
	}

	r = e.run("", "--trust", "-p", "/frontend:component Button primary")
	if r.code != 0 {
		t.Fatalf("/frontend:component: exit %d\nstderr: %s", r.code, r.stderr)
	}
	reqs = e.srv.Requests()
	if got := lastUserText(t, reqs[1]); !strings.Contains(got, "Create the Button component in the primary style.") {
		t.Errorf("/frontend:component sent:\n%s", got)
	}
	results := toolResultsOf(t, reqs[2])
	if res := results["s1"]; res.IsError || !strings.Contains(res.Text, "Base directory for this skill: "+skillDir) ||
		!strings.Contains(res.Text, "Follow the checklist in "+filepath.Join(skillDir, "checklist.md")) {
		t.Errorf("the Skill result: %+v", res)
	}
	if res := toolResultsOf(t, reqs[3])["r1"]; res.IsError || !strings.Contains(res.Text, "Start with an analogy") {
		t.Errorf("the skill's own file was not read: %+v", res)
	}
}
