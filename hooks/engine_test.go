package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/tools"
)

// world is one test's project directory and the engine over a settings
// "hooks" object written in it.
type world struct {
	t   *testing.T
	dir string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &world{t: t, dir: dir}
}

// script writes an executable script and returns its path.
func (w *world) script(name, body string) string {
	w.t.Helper()
	p := filepath.Join(w.dir, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func (w *world) read(name string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dir, name))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// engine parses hooks (a settings "hooks" object) and returns its engine.
func (w *world) engine(hooks string, opts ...func(*Session)) *Engine {
	w.t.Helper()
	cfg, err := Parse([]Source{{File: filepath.Join(w.dir, ".nova", "settings.json"), Hooks: json.RawMessage(hooks)}})
	if err != nil {
		w.t.Fatal(err)
	}
	s := Session{ID: "01SESSION", TranscriptPath: "/nova/sessions/01SESSION/transcript.jsonl", ProjectDir: w.dir,
		Mode: func() string { return "acceptEdits" }, Env: map[string]string{"FROM_SETTINGS": "yes"}}
	for _, o := range opts {
		o(&s)
	}
	e := New(cfg, s)
	w.t.Cleanup(e.Close)
	return e
}

// cmdHooks is a "hooks" object running command under event and matcher.
func cmdHooks(event, matcher, command string, extra ...string) string {
	h := map[string]any{"type": "command", "command": command}
	for i := 0; i+1 < len(extra); i += 2 {
		var v any
		if json.Unmarshal([]byte(extra[i+1]), &v) != nil {
			v = extra[i+1]
		}
		h[extra[i]] = v
	}
	b, _ := json.Marshal(map[string]any{event: []any{map[string]any{"matcher": matcher, "hooks": []any{h}}}})
	return string(b)
}

var bashCall = ToolInput("Bash", json.RawMessage(`{"command":"rm -rf build"}`), "toolu_1")

// TestCommandHookInput: a Python hook gets Claude Code's JSON on stdin,
// runs in the project with CLAUDE_PROJECT_DIR and NOVA_PROJECT_DIR and
// the settings' env, and nova's own environment.
func TestCommandHookInput(t *testing.T) {
	w := newWorld(t)
	t.Setenv("NOVA_TEST_INHERITED", "inherited")
	w.script("dump.py", `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
data["env"] = {k: os.environ.get(k) for k in ("CLAUDE_PROJECT_DIR", "NOVA_PROJECT_DIR", "FROM_SETTINGS", "NOVA_TEST_INHERITED")}
data["pwd"] = os.getcwd()
open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "seen.json"), "w").write(json.dumps(data))
`)
	e := w.engine(cmdHooks("PreToolUse", "Bash", "python3 dump.py"))
	if o := e.Fire(context.Background(), bashCall); o.Ran != 1 || o.Block || len(o.Notices) != 0 {
		t.Fatalf("outcome = %+v", o)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(w.read("seen.json")), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "01SESSION", "transcript_path": "/nova/sessions/01SESSION/transcript.jsonl", "cwd": w.dir,
		"permission_mode": "acceptEdits", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1", "pwd": w.dir}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if in, _ := got["tool_input"].(map[string]any); in["command"] != "rm -rf build" {
		t.Errorf("tool_input = %v", got["tool_input"])
	}
	env, _ := got["env"].(map[string]any)
	for k, v := range map[string]string{"CLAUDE_PROJECT_DIR": w.dir, "NOVA_PROJECT_DIR": w.dir, "FROM_SETTINGS": "yes", "NOVA_TEST_INHERITED": "inherited"} {
		if env[k] != v {
			t.Errorf("$%s = %v, want %v", k, env[k], v)
		}
	}
}

// TestCommandHookEnvironment: a hook is the user's own program and keeps
// the user's environment, secret-named variables included, without nova's
// own credentials (its provider key, the remote's token).
func TestCommandHookEnvironment(t *testing.T) {
	w := newWorld(t)
	for k, v := range map[string]string{"ANTHROPIC_API_KEY": "sk-ant-sentinel", "NOVA_SERVER_TOKEN": "remote-sentinel",
		"GITHUB_TOKEN": "ghp-visible", "DB_PASSWORD": "db-visible", "NOVA_PLAIN": "visible"} {
		t.Setenv(k, v)
	}
	e := w.engine(cmdHooks("PreToolUse", "Bash", "env > hook-env.txt"), func(s *Session) {
		s.EnvPolicy = tools.EnvPolicy{Credentials: []string{"ANTHROPIC_API_KEY"}}
	})
	if o := e.Fire(context.Background(), bashCall); o.Ran != 1 || o.Block || len(o.Notices) != 0 {
		t.Fatalf("outcome = %+v", o)
	}
	got := w.read("hook-env.txt")
	for _, s := range []string{"sk-ant-sentinel", "remote-sentinel"} {
		if strings.Contains(got, s) {
			t.Errorf("the hook saw %s:\n%s", s, got)
		}
	}
	for _, want := range []string{"GITHUB_TOKEN=ghp-visible", "DB_PASSWORD=db-visible", "NOVA_PLAIN=visible", "FROM_SETTINGS=yes"} {
		if !strings.Contains(got, want) {
			t.Errorf("the hook's environment lacks %s:\n%s", want, got)
		}
	}
}

// TestPreToolUseAnswers: every way a PreToolUse hook answers, through a
// shell script, and what the engine makes of it.
func TestPreToolUseAnswers(t *testing.T) {
	tests := []struct {
		name, script string
		block        bool
		perm         string
		reason       []string // in Reason (or PermissionReason)
		input        string
		context      []string
		notices      []string
		stop         string
	}{
		{name: "exit 0 and nothing says nothing", script: "exit 0"},
		{name: "exit 2 blocks with stderr", script: "echo 'rm is not allowed here' >&2; exit 2",
			block: true, perm: "deny", reason: []string{"PreToolUse:Bash hook error: [sh hook.sh]: rm is not allowed here"}},
		{name: "exit 2 blocks even when the JSON allows",
			script: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'; echo no >&2; exit 2`,
			block:  true, perm: "deny", reason: []string{"hook error", "no"}},
		{name: "JSON deny", script: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Destructive command blocked by hook"}}'`,
			block: true, perm: "deny", reason: []string{"PreToolUse:Bash hook denied this call: Destructive command blocked by hook"}},
		{name: "JSON ask", script: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"touches prod"}}'`,
			perm: "ask", reason: []string{"touches prod"}},
		{name: "JSON allow with updatedInput and additionalContext",
			script: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -rf build.tmp"},"additionalContext":"build.tmp is scratch"}}'`,
			perm:   "allow", input: `{"command":"rm -rf build.tmp"}`, context: []string{"PreToolUse:Bash hook additional context: build.tmp is scratch"}},
		{name: "the deprecated top-level block", script: `echo '{"decision":"block","reason":"old style"}'`,
			block: true, perm: "deny", reason: []string{"old style"}},
		{name: "continue false with stopReason, and systemMessage",
			script: `echo '{"continue":false,"stopReason":"build is red","systemMessage":"look at CI","suppressOutput":true}'`,
			stop:   "build is red", notices: []string{"look at CI"}},
		{name: "suppressOutput alone is accepted and changes nothing", script: `echo '{"suppressOutput":true}'`},
		{name: "another exit code is a non-blocking error", script: "echo 'jq: not found' >&2; exit 1",
			notices: []string{"PreToolUse:Bash hook error: [sh hook.sh] Failed with non-blocking status code 1: jq: not found"}},
		{name: "JSON that does not parse is a non-blocking error", script: `echo '{"hookSpecificOutput": }'`,
			notices: []string{"does not parse"}},
		{name: "JSON for another event is a non-blocking error", script: `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}'`,
			notices: []string{"hookEventName"}},
		{name: "JSON decides whatever the exit code", script: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json"}}'; exit 1`,
			block: true, perm: "deny", reason: []string{"json"}},
		{name: "plain stdout is not context on PreToolUse", script: "echo hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.script("hook.sh", tt.script+"\n")
			o := w.engine(cmdHooks("PreToolUse", "Bash", "sh hook.sh")).Fire(context.Background(), bashCall)
			if o.Ran != 1 || o.Block != tt.block || o.Permission != tt.perm {
				t.Fatalf("outcome = %+v", o)
			}
			for _, r := range tt.reason {
				if !strings.Contains(o.Reason+o.PermissionReason, r) {
					t.Errorf("reason %q lacks %q", o.Reason+o.PermissionReason, r)
				}
			}
			if string(o.Input) != tt.input {
				t.Errorf("input = %s, want %s", o.Input, tt.input)
			}
			checkAll(t, "context", o.Context, tt.context)
			checkAll(t, "notices", o.Notices, tt.notices)
			if o.Stop != (tt.stop != "") || o.StopReason != tt.stop {
				t.Errorf("stop = %v %q, want %q", o.Stop, o.StopReason, tt.stop)
			}
		})
	}
}

// checkAll wants got to hold one string per want, each containing it.
func checkAll(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %q, want %d holding %q", what, got, len(want), want)
		return
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("%s[%d] = %q, want it to hold %q", what, i, got[i], want[i])
		}
	}
}

// TestGuardsFailClosed: a PreToolUse or PermissionRequest hook that times
// out, cannot start or is killed blocks the call and says so; the same
// failure of a hook on another event is a notice. The control is a
// working hook that allows.
func TestGuardsFailClosed(t *testing.T) {
	tests := []struct {
		name, hooks string
		want        string
	}{
		{name: "control: a working allow hook", want: "",
			hooks: cmdHooks("PreToolUse", "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`)},
		{name: "timed out", want: "timed out after 300ms",
			hooks: cmdHooks("PreToolUse", "Bash", "sleep 30", "timeout", "0.3")},
		{name: "script not found", want: "could not start (exit 127",
			hooks: cmdHooks("PreToolUse", "Bash", "./no-such-guard.sh")},
		{name: "script not executable", want: "could not start (exit 126",
			hooks: cmdHooks("PreToolUse", "Bash", "./plain.txt")},
		{name: "program not found, exec form", want: "could not start",
			hooks: cmdHooks("PreToolUse", "Bash", "/no/such/program", "args", "[]")},
		{name: "killed", want: "was killed (killed)",
			hooks: cmdHooks("PreToolUse", "Bash", "kill -9 $$")},
		{name: "agent hook with no subagents", want: "cannot run: this session has no subagents",
			hooks: `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"agent","prompt":"check it"}]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.script("plain.txt", "")
			if err := os.Chmod(filepath.Join(w.dir, "plain.txt"), 0o644); err != nil {
				t.Fatal(err)
			}
			o := w.engine(tt.hooks).Fire(context.Background(), bashCall)
			if tt.want == "" {
				if o.Block || o.Permission != "allow" {
					t.Fatalf("the control was blocked: %+v", o)
				}
				return
			}
			if !o.Block || o.Permission != "deny" || !strings.Contains(o.Reason, tt.want) || !strings.Contains(o.Reason, "the call was blocked") {
				t.Fatalf("outcome = %+v, want a block saying %q", o, tt.want)
			}
			// The same hook on PermissionRequest blocks too; on
			// PostToolUse it is only a notice.
			perm := w.engine(strings.Replace(tt.hooks, `"PreToolUse"`, `"PermissionRequest"`, 1)).Fire(context.Background(),
				PermissionInput("Bash", json.RawMessage(`{"command":"ls"}`), nil))
			if !perm.Block || perm.Permission != "deny" {
				t.Errorf("PermissionRequest: %+v, want a block", perm)
			}
			if tt.name == "agent hook with no subagents" {
				return // a broken agent hook on PostToolUse is the run's notice, tested with the others
			}
			post := w.engine(strings.Replace(tt.hooks, `"PreToolUse"`, `"PostToolUse"`, 1)).Fire(context.Background(),
				PostToolInput("Bash", json.RawMessage(`{"command":"ls"}`), "t", "out"))
			if post.Block || len(post.Notices) != 1 || !strings.Contains(post.Notices[0], tt.want) {
				t.Errorf("PostToolUse: %+v, want one notice saying %q", post, tt.want)
			}
		})
	}
}

// TestTimeoutKillsTheGroup: a hook that timed out is stopped with every
// process it started, so a guard cannot leave work running after it.
func TestTimeoutKillsTheGroup(t *testing.T) {
	w := newWorld(t)
	w.script("slow.sh", "#!/bin/sh\nsleep 60 &\necho $! > child.pid\nwait\n")
	o := w.engine(cmdHooks("PreToolUse", "", "./slow.sh", "timeout", "0.5")).Fire(context.Background(), bashCall)
	if !o.Block {
		t.Fatalf("outcome = %+v", o)
	}
	var pid int
	if _, err := fmt.Sscan(w.read("child.pid"), &pid); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "linux" {
		return
	}
	// SIGKILL has been sent to the group when Fire returns; the kernel may
	// take a moment to make the child a zombie (or reap it).
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(st), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook's child %d still runs: %s", pid, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMatchers: which values Claude Code's matcher forms select.
func TestMatchers(t *testing.T) {
	tests := []struct {
		matcher string
		yes, no []string
	}{
		{"", []string{"Bash", "mcp__db__q"}, nil},
		{"*", []string{"Bash", "Edit"}, nil},
		{"Bash", []string{"Bash"}, []string{"bash", "BashOutput", "NotBash"}},
		{"Edit|Write", []string{"Edit", "Write"}, []string{"MultiEdit", "NotebookEdit"}},
		{"Edit, Write", []string{"Edit", "Write"}, []string{"Edit, Write"}},
		{"Edit.*", []string{"Edit", "NotebookEdit", "MultiEdit"}, []string{"Write"}},
		{"^Edit$", []string{"Edit"}, []string{"MultiEdit"}},
		{"mcp__memory__.*", []string{"mcp__memory__create_entities"}, []string{"mcp__github__search", "Bash"}},
		{"mcp__brave-search__.*", []string{"mcp__brave-search__web"}, []string{"mcp__brave__web"}},
		{"mcp__memory", nil, []string{"mcp__memory__create_entities"}},
		{"mcp__.*__write.*", []string{"mcp__fs__write_file"}, []string{"mcp__fs__read_file"}},
		{"startup|resume", []string{"startup", "resume"}, []string{"clear", "compact"}},
	}
	for _, tt := range tests {
		m, err := compileMatcher(tt.matcher)
		if err != nil {
			t.Fatalf("%q: %v", tt.matcher, err)
		}
		for _, v := range tt.yes {
			if !m.match(v) {
				t.Errorf("%q does not match %q", tt.matcher, v)
			}
		}
		for _, v := range tt.no {
			if m.match(v) {
				t.Errorf("%q matches %q", tt.matcher, v)
			}
		}
	}
	if _, err := compileMatcher("(?<=x)y"); err == nil || !strings.Contains(err.Error(), "RE2") {
		t.Errorf("a look-behind compiled: %v", err)
	}
}
