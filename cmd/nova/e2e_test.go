package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// novaBin is the nova binary the end-to-end tests run, built once.
var novaBin string

func TestMain(m *testing.M) {
	// The MCP tests start this binary as their stdio server.
	mcptest.MainIfRequested()
	dir, err := os.MkdirTemp("", "nova-e2e-bin-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	novaBin = filepath.Join(dir, "nova")
	args := []string{"build", "-o", novaBin}
	if raceBuild {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build nova:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// e2e is one test's world: a workspace, a home with NOVA_HOME inside, and a
// fake provider.
type e2e struct {
	t    *testing.T
	ws   string
	home string
	srv  *llmtest.Server
	env  []string
	// races is where a nova built with -race writes what it detects (the
	// GORACE log_path), whichever way it was started: a report on stderr
	// would be lost in a tmux pane or in a test that expects a failure.
	races string
}

// newE2E makes t's world. Each test's world is its own (temp dirs, a
// fake provider on a port of its own, a tmux socket of its own), so the
// test runs in parallel with the others: most of an end-to-end test is
// waiting on the nova it started.
func newE2E(t *testing.T, turns ...llmtest.Turn) *e2e {
	t.Helper()
	parallel(t)
	return newSerialE2E(t, turns...)
}

// newSerialE2E is newE2E for a test whose subject is machine-wide (the
// sweep of dead novas' processes, which any nova that starts does): it
// stays sequential, and Go runs sequential tests while no parallel one
// runs, so no other test's nova sweeps what this one checks.
func newSerialE2E(t *testing.T, turns ...llmtest.Turn) *e2e {
	t.Helper()
	e := &e2e{t: t, ws: t.TempDir(), home: t.TempDir(), srv: llmtest.New(turns...)}
	t.Cleanup(e.srv.Close)
	// Not t.TempDir: its name comes from the test's, and GORACE splits its
	// options at spaces, commas and colons.
	races, err := os.MkdirTemp("", "nova-race-")
	if err != nil {
		t.Fatal(err)
	}
	e.races = races
	t.Cleanup(func() { os.RemoveAll(races) })
	if ws, err := filepath.EvalSymlinks(e.ws); err == nil {
		e.ws = ws
	}
	e.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + e.home,
		"NOVA_HOME=" + filepath.Join(e.home, ".nova"),
		// atexit_sleep_ms=0: by default a -race binary sleeps a second
		// before it exits, which made the package seven times slower.
		"GORACE=atexit_sleep_ms=0 log_path=" + filepath.Join(e.races, "race"),
		"ANTHROPIC_API_KEY=test-key",
		"ANTHROPIC_BASE_URL=" + e.srv.URL,
	}
	// Cleanups run last registered first: this one runs before the temp
	// dirs are removed and after a tmux pane started later is killed.
	t.Cleanup(e.checkRaces)
	return e
}

// parallel makes t parallel once: a test may make several worlds (a
// probe before its own). t.Parallel panics, changing nothing, when t is
// parallel already or used t.Setenv or t.Chdir first; such a test stays
// sequential.
func parallel(t *testing.T) {
	defer func() { _ = recover() }()
	t.Parallel()
}

// checkRaces fails the test with every data race a nova of it reported.
func (e *e2e) checkRaces() {
	logs, _ := filepath.Glob(filepath.Join(e.races, "race.*"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		e.t.Errorf("nova reported a data race (%s):\n%s", filepath.Base(l), b)
	}
}

// baseEnv is the environment without any provider.
func (e *e2e) baseEnv() []string { return e.env[:4:4] }

type runResult struct {
	stdout, stderr string
	code           int
}

// run executes nova with args in the workspace, stdin from stdin.
func (e *e2e) run(stdin string, args ...string) runResult {
	e.t.Helper()
	return e.runIn("", stdin, args...)
}

// runIn executes nova with args in dir, a folder of the workspace ("" for
// the workspace itself), stdin from stdin.
func (e *e2e) runIn(dir, stdin string, args ...string) runResult {
	e.t.Helper()
	cmd := exec.Command(novaBin, args...)
	cmd.Dir = filepath.Join(e.ws, dir)
	cmd.Env = e.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run nova: %v", err)
	}
	return runResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

func (e *e2e) write(name, content string) {
	e.t.Helper()
	p := filepath.Join(e.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *e2e) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.ws, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func jsonInput(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// trajectory is the scripted task: read a file, edit it, run a command,
// answer.
func trajectory() []llmtest.Turn {
	return []llmtest.Turn{
		{Text: "Let me look at the file.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "greet.txt"})}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Edit", Input: jsonInput(map[string]any{"file_path": "greet.txt", "old_string": "hello world", "new_string": "hello nova"})}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_3", Name: "Bash", Input: jsonInput(map[string]any{"command": "tr a-z A-Z < greet.txt > shout.txt && cat shout.txt"})}}},
		{Text: "Done: greet.txt now says hello nova."},
	}
}

func TestPrintModeTrajectory(t *testing.T) {
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			e := newE2E(t, trajectory()...)
			e.write("greet.txt", "hello world\n")
			r := e.run("", "-p", "--verbose", "--output-format", format, "--allowedTools", "Edit,Bash", "update the greeting")
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			t.Logf("stderr:\n%s", r.stderr)
			if got := e.read("greet.txt"); got != "hello nova\n" {
				t.Errorf("greet.txt = %q, want edited", got)
			}
			if got := e.read("shout.txt"); got != "HELLO NOVA\n" {
				t.Errorf("shout.txt = %q, want the command's output", got)
			}
			switch format {
			case "text":
				if strings.TrimSpace(r.stdout) != "Done: greet.txt now says hello nova." {
					t.Errorf("stdout = %q, want only the final answer", r.stdout)
				}
			case "json":
				var res map[string]any
				if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
					t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
				}
				checkResult(t, res, "success", 4)
			case "stream-json":
				checkStream(t, r.stdout)
			}
			if strings.Contains(r.stderr, "denied") || strings.Contains(r.stderr, "✗") {
				t.Errorf("a call failed: %s", r.stderr)
			}
			reqs := e.srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("provider saw %d requests, want 4", len(reqs))
			}
			if !strings.Contains(string(reqs[1].Body), "hello world") {
				t.Errorf("second request lacks the Read result")
			}
			if !strings.Contains(string(reqs[3].Body), "HELLO NOVA") {
				t.Errorf("fourth request lacks the Bash output")
			}
		})
	}
}

func checkStream(t *testing.T, stdout string) {
	t.Helper()
	st := parseStream(t, stdout)
	if st.init["model"] != defaultModel() || st.init["permissionMode"] != "default" {
		t.Errorf("first line = %v, want the init line", st.init)
	}
	if tl, _ := st.init["tools"].([]any); len(tl) < 4 {
		t.Errorf("init tools = %v", st.init["tools"])
	}
	for _, id := range []string{"toolu_1", "toolu_2", "toolu_3"} {
		if st.toolUses[id] != 1 || st.toolResults[id] != 1 || st.meta[id].Decision.Behavior != "allow" {
			t.Errorf("%s: %d tool_use, %d tool_result blocks, nova_tool_result %+v; want one each, allowed", id, st.toolUses[id], st.toolResults[id], st.meta[id])
		}
	}
	if !strings.Contains(st.text, "Let me look at the file.") || !strings.HasSuffix(st.text, "Done: greet.txt now says hello nova.") {
		t.Errorf("assistant text = %q", st.text)
	}
	if st.kinds["system/init"] != 1 || st.kinds["stream_event"] != 0 {
		t.Errorf("message counts = %v", st.kinds)
	}
	checkResult(t, st.result, "success", 4)
}

func checkResult(t *testing.T, res map[string]any, subtype string, turns float64) {
	t.Helper()
	if res["type"] != "result" || res["subtype"] != subtype {
		t.Errorf("result = %v, want type result subtype %s", res, subtype)
	}
	if res["num_turns"] != turns {
		t.Errorf("num_turns = %v, want %v", res["num_turns"], turns)
	}
	if sid, _ := res["session_id"].(string); len(sid) != 26 {
		t.Errorf("session_id = %q, want a ULID", sid)
	}
	for _, k := range []string{"is_error", "result", "duration_ms", "usage", "permission_denials"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result lacks %s", k)
		}
	}
}

func TestPrintModeDeniesAsksWithNobodyToAnswer(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch made.txt"})}}},
		llmtest.Turn{Text: "I could not run the command."},
	)
	r := e.run("", "-p", "--output-format", "json", "make a file")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made.txt")); err == nil {
		t.Error("the denied command ran")
	}
	var res struct {
		Denials []struct {
			ToolName string `json:"tool_name"`
			Layer    string `json:"layer"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Denials) != 1 || res.Denials[0].ToolName != "Bash" || res.Denials[0].Layer == "" {
		t.Errorf("permission_denials = %+v, want the Bash call with its layer", res.Denials)
	}
	if body := string(e.srv.Requests()[1].Body); !strings.Contains(body, "denied") {
		t.Errorf("the model was not told about the denial")
	}
	if !strings.Contains(r.stderr, "denied Bash") {
		t.Errorf("stderr does not report the denial: %s", r.stderr)
	}
}

func TestPrintModeExitCodes(t *testing.T) {
	t.Run("no provider", func(t *testing.T) {
		e := newE2E(t)
		e.env = e.baseEnv()
		r := e.run("", "-p", "hi")
		if r.code != 2 {
			t.Errorf("exit %d, want 2", r.code)
		}
		for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr does not mention %s:\n%s", want, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "goroutine") || r.stdout != "" {
			t.Errorf("unexpected output: stdout %q stderr %q", r.stdout, r.stderr)
		}
	})
	t.Run("bad usage", func(t *testing.T) {
		e := newE2E(t)
		for _, args := range [][]string{
			{"-p", "--output-format", "yaml", "hi"},
			{"--no-such-flag"},
			{"-p", "--permission-mode", "yolo", "hi"},
			{"-p", "--model", "nosuch:model", "hi"},
		} {
			if r := e.run("", args...); r.code != 2 {
				t.Errorf("%v: exit %d, want 2 (stderr %s)", args, r.code, r.stderr)
			}
		}
	})
	t.Run("bad key", func(t *testing.T) {
		e := newE2E(t, llmtest.Turn{Status: 401, ErrorMessage: "invalid x-api-key"})
		r := e.run("", "-p", "--output-format", "json", "hi")
		if r.code != 1 {
			t.Errorf("exit %d, want 1", r.code)
		}
		if !strings.Contains(r.stderr, "ANTHROPIC_API_KEY") {
			t.Errorf("stderr does not name the key: %s", r.stderr)
		}
		var res map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res["is_error"] != true || res["subtype"] != "error_during_execution" {
			t.Errorf("stdout = %q, want an error result object", r.stdout)
		}
		if n := len(e.srv.Requests()); n != 1 {
			t.Errorf("auth error retried: %d requests", n)
		}
	})
	t.Run("max turns", func(t *testing.T) {
		e := newE2E(t,
			llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "LS", Input: `{}`}}},
			llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "t2", Name: "LS", Input: `{}`}}},
		)
		r := e.run("", "-p", "--output-format", "json", "--max-turns", "1", "loop")
		if r.code != 1 || !strings.Contains(r.stdout, `"error_max_turns"`) {
			t.Errorf("exit %d stdout %s, want 1 and error_max_turns", r.code, r.stdout)
		}
	})
	t.Run("unreachable provider fails fast", func(t *testing.T) {
		e := newE2E(t)
		e.env = append(e.baseEnv(), "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=http://127.0.0.1:1")
		r := e.run("", "-p", "hi")
		if r.code != 1 {
			t.Errorf("exit %d, want 1: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "connection") {
			t.Errorf("stderr = %q, want a connection error", r.stderr)
		}
	})
}

func TestPrintModeStdin(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "looks fine"}, llmtest.Turn{Text: "ok"})
	r := e.run("diff --git a/x b/x\n+added line\n", "-p", "review this")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "looks fine" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	body := string(e.srv.Requests()[0].Body)
	if !strings.Contains(body, "review this") || !strings.Contains(body, "+added line") {
		t.Errorf("request lacks prompt or piped stdin: %s", body)
	}
	r = e.run("just stdin", "-p")
	if r.code != 0 || !strings.Contains(string(e.srv.Requests()[1].Body), "just stdin") {
		t.Errorf("prompt from stdin not sent: exit %d", r.code)
	}
}

func TestVersion(t *testing.T) {
	e := newE2E(t)
	// A lone flag is answered in main; with other flags, by the root
	// command's own --version.
	for _, args := range [][]string{{"--version"}, {"-v"}, {"--version", "--model", "sonnet"}, {"-p", "-v", "hi"}} {
		r := e.run("", args...)
		if r.code != 0 || r.stdout != "nova "+version+"\n" {
			t.Errorf("%q: exit %d stdout %q", args, r.code, r.stdout)
		}
	}
}

// TestSandboxedShellKeepsState: inside bwrap the shell's cwd and exported
// variables still carry over from one Bash call to the next.
func TestSandboxedShellKeepsState(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash", Input: jsonInput(map[string]any{"command": "mkdir -p sub && cd sub && export GREETING=hi"})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b2", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo \"$GREETING from $(basename \"$PWD\")\" > said.txt"})}}},
		llmtest.Turn{Text: "done"},
	)
	r := e.run("", "-p", "--sandbox", "--allowedTools", "Bash", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "cannot run") {
		t.Skipf("sandbox unavailable here: %s", r.stderr)
	}
	if got := e.read("sub/said.txt"); got != "hi from sub\n" {
		t.Errorf("said.txt = %q, want the state of the first call", got)
	}
}

// TestPrintModeInterrupt: Ctrl-C (SIGINT) mid-answer exits 130 and, in the
// json format, still prints the result object.
func TestPrintModeInterrupt(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: strings.Repeat("word ", 400), ChunkDelay: 20 * time.Millisecond})
	cmd := exec.Command(novaBin, "-p", "--output-format", "json", "talk")
	cmd.Dir, cmd.Env = e.ws, e.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(e.srv.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130; stderr %s", err, errOut.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not a result object: %v\n%s", err, out.String())
	}
	if res["is_error"] != true || res["type"] != "result" {
		t.Errorf("result = %v", res)
	}
}

// TestThinkingBudget: MAX_THINKING_TOKENS asks Anthropic for extended
// thinking, and the signed thinking block goes back with the tool result.
func TestThinkingBudget(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Thinking: "check the dir", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "LS", Input: `{}`}}},
		llmtest.Turn{Text: "empty enough"})
	e.env = append(e.env, "MAX_THINKING_TOKENS=2048")
	if r := e.run("", "-p", "look"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	first, second := reqs[0].JSON(), string(reqs[1].Body)
	th, _ := first["thinking"].(map[string]any)
	if th == nil || th["type"] != "enabled" || th["budget_tokens"] != float64(2048) {
		t.Errorf("thinking param = %v", first["thinking"])
	}
	if !strings.Contains(second, `"type":"thinking"`) || !strings.Contains(second, llmtest.AnthropicSignature("check the dir")) {
		t.Errorf("the signed thinking block was not sent back: %s", second)
	}
}

func TestResumeWithoutID(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"-r"}, []string{"--resume=" + pickSession}},
		{[]string{"--resume", "--model", "x"}, []string{"--resume=" + pickSession, "--model", "x"}},
		{[]string{"-r", "01ABC"}, []string{"-r", "01ABC"}},
		{[]string{"-p", "hi"}, []string{"-p", "hi"}},
	}
	for _, tt := range tests {
		if got := resumeWithoutID(tt.in); strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("resumeWithoutID(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	e := newE2E(t)
	if r := e.run("", "-p", "hi", "-r"); r.code != 2 || !strings.Contains(r.stderr, "needs a session id in print mode") {
		t.Errorf("print mode with a bare -r: exit %d, %s", r.code, r.stderr)
	}
}

// TestAllowedToolsSyntax: rules may be given comma- or space-separated,
// and a comma inside a rule's parentheses stays in the rule.
func TestAllowedToolsSyntax(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo a,b"})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b2", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch made.txt"})}}},
		llmtest.Turn{Text: "done"},
	)
	r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Read Bash(echo a,b)", "--allowedTools", "Glob,Bash(touch made.txt)", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, `"tool_name":"Bash"`) {
		t.Errorf("an allowed command was denied: %s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made.txt")); err != nil {
		t.Errorf("made.txt: %v", err)
	}
}

// TestModelWithoutTools: a model configured with "tools": false is sent no
// tool list.
func TestModelWithoutTools(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "just words"})
	home := filepath.Join(e.home, ".nova")
	cfg := fmt.Sprintf(`{"providers":[{"key":"plain","type":"anthropic","base_url":%q,"api_key":"k","models":[{"model":"tiny","tools":false}]}]}`, e.srv.URL)
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = e.baseEnv()
	r := e.run("", "-p", "hi")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "just words" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if _, ok := e.srv.Requests()[0].JSON()["tools"]; ok {
		t.Errorf("tools were sent to a model configured without them")
	}
	if !strings.Contains(r.stderr, "without tools") {
		t.Errorf("stderr does not say the model has no tools: %s", r.stderr)
	}
}
