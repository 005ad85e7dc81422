package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// everyday is one Bash call of TestSandboxEverydayWorkE2E and what its
// output must hold.
type everyday struct {
	command string
	want    []string
	// not must not appear in the output.
	not []string
}

// runEveryday has the model run calls, one turn each, in print mode with
// the default sandbox and --allowedTools Bash, in the workspace files
// were written to, and checks each passes inside the sandbox: no error, no
// "Exit code", no denial (no retry outside would be allowed either).
func runEveryday(t *testing.T, files map[string]string, env []string, setup func(e *e2e), calls ...everyday) {
	t.Helper()
	e := newE2E(t, llmtest.Turn{Text: "ok"})
	e.env = append(e.env, env...)
	for name, content := range files {
		e.write(name, content)
	}
	if probe := e.run("", "-p", "--sandbox", "probe"); probe.code != 0 || strings.Contains(probe.stderr, "cannot run") {
		t.Skipf("the sandbox does not work here: exit %d: %s", probe.code, probe.stderr)
	}
	if setup != nil {
		setup(e)
	}
	var turns []llmtest.Turn
	for i, c := range calls {
		turns = append(turns, llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_" + string(rune('a'+i)), Name: "Bash",
			Input: jsonInput(map[string]any{"command": c.command, "timeout": 600000})}}})
	}
	e.srv.Push(append(turns, llmtest.Turn{Text: "All done."})...)
	r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash", "build and test it")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "cannot run") {
		t.Fatalf("the default sandbox did not start: %s", r.stderr)
	}
	if res := parseResult(t, r.stdout); len(res.Denials) != 0 {
		t.Errorf("denied: %s", denialList(res.Denials))
	}
	reqs := e.srv.Requests()[1:] // after the probe's
	if len(reqs) != len(calls)+1 {
		t.Fatalf("%d requests, want %d", len(reqs), len(calls)+1)
	}
	for i, c := range calls {
		res := toolResultsOf(t, reqs[i+1])["toolu_"+string(rune('a'+i))]
		if res.IsError || strings.Contains(res.Text, "Exit code") {
			t.Errorf("%s failed in the sandbox: %s", c.command, res.Text)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.command, w, res.Text)
			}
		}
		for _, n := range c.not {
			if strings.Contains(res.Text, n) {
				t.Errorf("%s: output shows %q:\n%s", c.command, n, res.Text)
			}
		}
	}
}

func needPrograms(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s not installed", n)
		}
	}
}

// TestSandboxEverydayWorkE2E: everyday builds and tests of fresh projects
// work in the default sandbox, with no question and no retry outside it,
// and no credential of nova's environment reaches them.
func TestSandboxEverydayWorkE2E(t *testing.T) {
	t.Run("go", func(t *testing.T) {
		needPrograms(t, "go")
		runEveryday(t, map[string]string{
			"go.mod":    "module example.com/m\n\ngo 1.21\n",
			"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
		}, []string{"GOTOOLCHAIN=local"}, nil,
			everyday{command: "go test ./...", want: []string{"ok  \texample.com/m"}},
			everyday{command: "go test ./...", want: []string{"(cached)"}})
	})
	t.Run("node", func(t *testing.T) {
		needPrograms(t, "node", "npm")
		runEveryday(t, map[string]string{
			"package.json": `{"name": "m", "version": "1.0.0", "scripts": {"test": "node test.js"}}` + "\n",
			"test.js":      "console.log('node tests passed');\n",
		}, nil, nil, everyday{command: "npm test", want: []string{"node tests passed"}})
	})
	t.Run("python", func(t *testing.T) {
		needPrograms(t, "python3")
		runEveryday(t, map[string]string{
			"test_m.py": "import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n\nif __name__ == '__main__':\n    unittest.main()\n",
		}, nil, nil, everyday{command: "python3 -m unittest", want: []string{"Ran 1 test", "OK"}})
	})
	t.Run("make and git", func(t *testing.T) {
		needPrograms(t, "make", "git")
		gitInit := func(e *e2e) {
			cmd := exec.Command("git", "init", "-q")
			cmd.Dir, cmd.Env = e.ws, e.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v: %s", err, out)
			}
		}
		runEveryday(t, map[string]string{"Makefile": "all: out.txt\n\nout.txt:\n\techo built > out.txt\n", "a.txt": "a\n"},
			[]string{"GIT_AUTHOR_NAME=Nova Test", "GIT_AUTHOR_EMAIL=nova@example.com", "GIT_COMMITTER_NAME=Nova Test", "GIT_COMMITTER_EMAIL=nova@example.com"},
			gitInit,
			everyday{command: "make && cat out.txt", want: []string{"built"}},
			everyday{command: "git add a.txt Makefile && git commit -q -m 'first commit' && git log --oneline", want: []string{"first commit"}})
	})
	t.Run("env", func(t *testing.T) {
		runEveryday(t, nil, []string{"GITHUB_TOKEN=ghp_e2e_secret_value", "FOO_SECRET=foo-secret-value", "ORDINARY_VAR=plainly-visible"}, nil,
			everyday{command: "env", want: []string{"ORDINARY_VAR=plainly-visible"},
				not: []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "ghp_e2e_secret_value", "FOO_SECRET", "foo-secret-value"}})
	})
}

// TestLeaveSandboxE2E: with --allowedTools Bash, the retry outside the
// sandbox of a command that failed inside is asked, so print mode refuses
// it, saying it runs outside the sandbox and what the sandbox hit.
func TestLeaveSandboxE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "ok"})
	if probe := e.run("", "-p", "--sandbox", "probe"); probe.code != 0 || strings.Contains(probe.stderr, "cannot run") {
		t.Skipf("the sandbox does not work here: exit %d: %s", probe.code, probe.stderr)
	}
	cmd := "touch made.txt; echo 'touch: cannot touch /x: Read-only file system' >&2; exit 1"
	e.srv.Push(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_in", Name: "Bash", Input: jsonInput(map[string]any{"command": cmd})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_out", Name: "Bash", Input: jsonInput(map[string]any{"command": cmd, "dangerouslyDisableSandbox": true})}}},
		llmtest.Turn{Text: "I was stopped."},
	)
	r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash", "touch /x")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := parseResult(t, r.stdout)
	if len(res.Denials) != 1 || res.Denials[0].ToolUseID != "toolu_out" {
		t.Fatalf("denials %s, want the retry outside only\nstdout %s\nstderr %s", denialList(res.Denials), r.stdout, r.stderr)
	}
	for _, want := range []string{"outside the sandbox (dangerouslyDisableSandbox)", "inside the sandbox it failed with: touch: cannot touch /x: Read-only file system"} {
		if !strings.Contains(res.Denials[0].Reason, want) {
			t.Errorf("reason %q lacks %q", res.Denials[0].Reason, want)
		}
	}
}
