package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// The examples of docs/hooks.md are run as written: a reader pastes them,
// so they must work. Each is marked by a comment naming the example and
// the file its code block is (~/ is the home, other paths the project).

var exampleMark = regexp.MustCompile(`^<!-- hooks-example ([\w-]+): (\S+) -->$`)

// hookExamples reads the examples of docs/hooks.md: name -> file -> content.
func hookExamples(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "hooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		m := exampleMark.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("docs/hooks.md line %d: the mark is not followed by a code block", i+1)
		}
		var body []string
		for i += 2; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		if out[m[1]] == nil {
			out[m[1]] = map[string]string{}
		}
		out[m[1]][m[2]] = strings.Join(body, "\n") + "\n"
	}
	return out
}

// install writes example name's files, scripts executable, with each
// replacement of the settings' text applied (old, new, ...).
func (e *e2e) install(ex map[string]map[string]string, name string, replace ...string) {
	e.t.Helper()
	files := ex[name]
	if len(files) == 0 {
		e.t.Fatalf("docs/hooks.md has no example %q", name)
	}
	for path, content := range files {
		full := filepath.Join(e.ws, path)
		if rest, ok := strings.CutPrefix(path, "~/"); ok {
			full = filepath.Join(e.home, rest)
		}
		if strings.HasSuffix(path, ".json") {
			for i := 0; i+1 < len(replace); i += 2 {
				content = strings.ReplaceAll(content, replace[i], replace[i+1])
			}
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o755); err != nil {
			e.t.Fatal(err)
		}
	}
}

func bash(id, command string) llmtest.ToolCall {
	return llmtest.ToolCall{ID: id, Name: "Bash", Input: jsonInput(map[string]any{"command": command})}
}

func TestHooksDocsBashGuard(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{bash("b1", "rm -rf build")}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{bash("b2", "rm -r -f build")}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{bash("b3", "git push --force origin main")}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{bash("b4", "rm build/old.o")}},
		llmtest.Turn{Text: "Cleaned up."})
	e.install(hookExamples(t), "bash-guard")
	e.write("build/old.o", "x")
	e.write("build/keep.o", "x")
	if r := e.run("", "-p", "--allowedTools", "Bash", "clean up"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	for i, w := range []string{"Blocked: rm -rf is not allowed here", "Blocked: rm -rf is not allowed here", "Blocked: force-pushing is not allowed"} {
		id := "b" + string(rune('1'+i))
		if res := toolResultsOf(t, reqs[i+1])[id]; !res.IsError || !strings.Contains(res.Text, w) {
			t.Errorf("%s: the model got %+v", id, res)
		}
	}
	if !e.exists("build/keep.o") || e.exists("build/old.o") {
		t.Errorf("the guard blocked the plain rm, or let a recursive one through")
	}
}

func TestHooksDocsFormatter(t *testing.T) {
	if _, err := exec.LookPath("gofmt"); err != nil {
		t.Skip("gofmt not installed")
	}
	write := func(id, path, content string) llmtest.Turn {
		return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: id, Name: "Write", Input: jsonInput(map[string]any{"file_path": path, "content": content})}}}
	}
	e := newE2E(t, write("w1", "main.go", "package main\nfunc  main(){\n}\n"), write("w2", "broken.go", "package main\nfunc {\n"), llmtest.Turn{Text: "Written."})
	e.install(hookExamples(t), "formatter")
	if r := e.run("", "-p", "--trust", "--allowedTools", "Write", "write the program"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := e.read("main.go"); got != "package main\n\nfunc main() {\n}\n" {
		t.Errorf("main.go = %q, want it gofmt-ed", got)
	}
	if res := toolResultsOf(t, e.srv.Requests()[2])["w2"]; !strings.Contains(res.Text, "PostToolUse:Write hook error") || !strings.Contains(res.Text, "expected") {
		t.Errorf("the model was not told gofmt's error: %+v", res)
	}
}

func TestHooksDocsPromptContext(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	e := newE2E(t, llmtest.Turn{Text: "Noted."})
	e.install(hookExamples(t), "prompt-context")
	cmd := exec.Command("git", "init", "-q", "-b", "hooks-demo")
	cmd.Dir, cmd.Env = e.ws, e.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	e.write("notes.txt", "draft")
	if r := e.run("", "-p", "what is going on?"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	body := string(e.srv.Requests()[0].Body)
	for _, w := range []string{"Current git branch: hooks-demo", "Uncommitted changes:\\n?? notes.txt"} {
		if !strings.Contains(body, w) {
			t.Errorf("the prompt's context lacks %q", w)
		}
	}
}

func TestHooksDocsStopTests(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{Text: "Done."},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{bash("b1", "echo fixed > status.txt")}},
		llmtest.Turn{Text: "Fixed, and the tests pass."})
	e.install(hookExamples(t), "stop-tests", "make test", "sh run-tests.sh")
	e.write("run-tests.sh", "grep -q fixed status.txt 2>/dev/null || { echo 'FAIL: status.txt is not fixed'; exit 1; }\n")
	r := e.run("", "-p", "--allowedTools", "Bash", "fix the status")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Fixed, and the tests pass." {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[1].Body), "The tests fail; fix them before you stop:\\nFAIL: status.txt is not fixed") {
		t.Fatalf("%d requests; the second: %s", len(reqs), reqs[min(1, len(reqs)-1)].Body)
	}
	if got := e.read("status.txt"); got != "fixed\n" {
		t.Errorf("status.txt = %q", got)
	}
}
