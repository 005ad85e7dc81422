package main

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// recordSetup runs TestClaudeCodeSetupAsRecorded's scenarios against
// Claude Code instead of nova and writes what it did to
// testdata/claudecode/<scenario>.json.
var recordSetup = flag.Bool("claudecode.record", false, "record what Claude Code does in TestClaudeCodeSetupAsRecorded's scenarios")

// setupWorld is one scenario's world and the program under test: nova,
// or Claude Code's native binary when recording.
type setupWorld struct {
	*e2e
	exe    string
	claude bool
}

// trust trusts the workspace the way each program records it: Claude
// Code's hasTrustDialogAccepted in ~/.claude.json, nova trust.
func (w *setupWorld) trust() {
	w.t.Helper()
	if w.claude {
		b, _ := json.Marshal(map[string]any{"projects": map[string]any{w.ws: map[string]any{"hasTrustDialogAccepted": true}}})
		w.writeHome(".claude.json", string(b))
		return
	}
	if r := w.run("", "trust"); r.code != 0 {
		w.t.Fatalf("nova trust: %d %s", r.code, r.stderr)
	}
}

// exec runs the program under test in the workspace.
func (w *setupWorld) exec(args ...string) runResult {
	w.t.Helper()
	if !w.claude {
		return w.run("", args...)
	}
	cmd := exec.Command(w.exe, args...)
	cmd.Dir = w.ws
	cmd.Env = append(append([]string{}, w.env...), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return runResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

// exists says whether the workspace holds name.
func (w *setupWorld) exists(name string) bool {
	_, err := os.Stat(filepath.Join(w.ws, name))
	return err == nil
}

// setupScenario is one thing a Claude Code user's setup does: files laid
// out, a model's turns, a run, and what came of it in terms both
// programs can be held to.
type setupScenario struct {
	name  string
	turns []llmtest.Turn
	run   func(w *setupWorld) map[string]any
}

func bashCall(id, command string) llmtest.Turn {
	return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: id, Name: "Bash", Input: jsonInput(map[string]any{"command": command, "description": "run it"})}}}
}

// settingsScenario: a project's .claude/settings.json denies rm and
// allows touch. The deny holds even under a command-line grant of all
// Bash; the allow applies only in a trusted folder.
func settingsScenario(name string, trusted, grantAll bool) setupScenario {
	return setupScenario{
		name:  name,
		turns: []llmtest.Turn{bashCall("toolu_rm", "rm -f precious.txt"), bashCall("toolu_touch", "touch made.txt"), {Text: "done"}},
		run: func(w *setupWorld) map[string]any {
			w.write(".claude/settings.json", `{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Bash(touch:*)"]}}`)
			w.write("precious.txt", "keep")
			if trusted {
				w.trust()
			}
			args := []string{"-p", "tidy up"}
			if grantAll {
				args = append(args, "--allowedTools", "Bash")
			}
			r := w.exec(args...)
			return map[string]any{"exit": r.code, "precious.txt kept": w.exists("precious.txt"), "made.txt made": w.exists("made.txt")}
		},
	}
}

// TestClaudeCodeSetupAsRecorded holds nova to what Claude Code 2.1.333
// (the Agent SDK's native binary, run against the fake provider with HOME
// in a temporary directory) did with the same files and the same model
// turns: a project's permission rules, trusted and not, the four memory
// locations and a paths: rule, and a Stop hook that parses
// transcript_path with jq. Recorded with -claudecode.record into
// testdata/claudecode/*.json.
func TestClaudeCodeSetupAsRecorded(t *testing.T) {
	scenarios := []setupScenario{
		settingsScenario("settings-deny-under-grant", false, true),
		settingsScenario("settings-untrusted", false, false),
		settingsScenario("settings-trusted", true, false),
		{
			name:  "memory",
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "r1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "src/api/users.go"})}}}, {Text: "read it"}},
			run: func(w *setupWorld) map[string]any {
				layClaudeMemory(w.e2e)
				before := len(w.srv.Requests())
				r := w.exec("-p", "read the users handler", "--allowedTools", "Read")
				reqs := w.srv.Requests()[before:]
				seen := func(i int) []string {
					var in []string
					if i >= len(reqs) {
						return in
					}
					for _, m := range []string{"USER-MEMORY", "PROJECT-MEMORY", "PROJECT-DOT-CLAUDE", "LOCAL-MEMORY", "RULE-ALWAYS", "RULE-API"} {
						if strings.Contains(string(reqs[i].Body), m) {
							in = append(in, m)
						}
					}
					return in
				}
				return map[string]any{"exit": r.code, "requests": len(reqs), "first request holds": seen(0), "second request holds": seen(1)}
			},
		},
		{
			name: "stop-hook-transcript",
			turns: []llmtest.Turn{
				{Text: "Let me check.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo checking", "description": "check"})}}},
				{Text: "First try: tests still fail."},
				{Text: "Fixed it.\n<promise>DONE</promise>"},
			},
			run: func(w *setupWorld) map[string]any {
				if _, err := exec.LookPath("jq"); err != nil {
					w.t.Skip("jq is not installed")
				}
				hook, err := filepath.Abs("testdata/claudecode/stop-loop.sh")
				if err != nil {
					w.t.Fatal(err)
				}
				// A Claude Code user's own settings file: both read it.
				w.writeHome(".claude/settings.json", `{"hooks": `+commandHook("Stop", "", hook)+`}`)
				before := len(w.srv.Requests())
				r := w.exec("-p", "fix the tests", "--output-format", "json", "--allowedTools", "Bash(echo:*)")
				var res struct {
					Result string `json:"result"`
				}
				_ = json.Unmarshal([]byte(r.stdout), &res)
				seen, _ := os.ReadFile(filepath.Join(w.ws, "seen.txt"))
				return map[string]any{"exit": r.code, "requests": len(w.srv.Requests()) - before, "result": res.Result,
					"the hook read": strings.Split(strings.TrimSpace(string(seen)), "\n")}
			},
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			w := &setupWorld{e2e: newE2E(t, sc.turns...), exe: novaBin}
			if *recordSetup {
				bins, _ := filepath.Glob(filepath.Join("..", "..", "headless", "testdata", "agentsdk", "node_modules", "@anthropic-ai", "claude-agent-sdk-*", "claude"))
				if len(bins) == 0 {
					t.Fatal("no Claude Code binary: npm install in headless/testdata/agentsdk (with its optional dependencies)")
				}
				w.exe, w.claude = bins[0], true
				if abs, err := filepath.Abs(bins[0]); err == nil {
					w.exe = abs
				}
			}
			got := sc.run(w)
			file := filepath.Join("testdata", "claudecode", sc.name+".json")
			// JSON both ways, so numbers and lists compare as recorded.
			b, _ := json.MarshalIndent(got, "", "  ")
			if *recordSetup {
				if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			rec, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("no recording of Claude Code (go test -run TestClaudeCodeSetupAsRecorded -claudecode.record): %v", err)
			}
			var want, have any
			_ = json.Unmarshal(rec, &want)
			_ = json.Unmarshal(b, &have)
			if !reflect.DeepEqual(have, want) {
				t.Errorf("nova:\n%s\nClaude Code 2.1.333:\n%s", b, rec)
			}
		})
	}
}
