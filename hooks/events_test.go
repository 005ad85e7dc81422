package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
)

// TestEventAnswers: what each event makes of a hook's exit code, plain
// stdout and JSON, as Claude Code's per-event tables say.
func TestEventAnswers(t *testing.T) {
	tests := []struct {
		name   string
		in     Input
		script string
		check  func(t *testing.T, o Outcome)
	}{
		{"UserPromptSubmit plain stdout is context", PromptInput("fix it"), "echo 'branch: main'", func(t *testing.T, o Outcome) {
			checkAll(t, "context", o.Context, []string{"UserPromptSubmit hook additional context: branch: main"})
		}},
		{"UserPromptSubmit additionalContext", PromptInput("fix it"),
			`echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ticket NOVA-16"}}'`, func(t *testing.T, o Outcome) {
				checkAll(t, "context", o.Context, []string{"ticket NOVA-16"})
			}},
		{"UserPromptSubmit exit 2 blocks the prompt", PromptInput("deploy"), "echo 'no deploys on Friday' >&2; exit 2", func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "no deploys on Friday" {
				t.Errorf("outcome = %+v", o)
			}
		}},
		{"UserPromptSubmit decision block", PromptInput("deploy"), `echo '{"decision":"block","reason":"ask ops"}'`, func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "ask ops" {
				t.Errorf("outcome = %+v", o)
			}
		}},
		{"Stop exit 2 keeps the agent going", StopInput(false, "done"), "echo 'tests fail' >&2; exit 2", func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "tests fail" {
				t.Errorf("outcome = %+v", o)
			}
		}},
		{"Stop decision block", StopInput(false, "done"), `echo '{"decision":"block","reason":"run the tests first"}'`, func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "run the tests first" {
				t.Errorf("outcome = %+v", o)
			}
		}},
		{"Stop additionalContext", StopInput(false, "done"), `echo '{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"lint too"}}'`, func(t *testing.T, o Outcome) {
			if o.Block || len(o.Context) != 1 {
				t.Errorf("outcome = %+v", o)
			}
		}},
		{"SessionStart plain stdout is context", SessionStartInput("startup", "m"), "echo 'open issues: 3'", func(t *testing.T, o Outcome) {
			checkAll(t, "context", o.Context, []string{"SessionStart:startup hook additional context: open issues: 3"})
		}},
		{"SessionStart exit 2 is shown to the person", SessionStartInput("startup", "m"), "echo oops >&2; exit 2", func(t *testing.T, o Outcome) {
			checkAll(t, "notices", o.Notices, []string{"SessionStart:startup hook error: [sh hook.sh]: oops"})
			if o.Block {
				t.Error("SessionStart blocked")
			}
		}},
		{"PreCompact exit 2 blocks compaction", PreCompactInput("manual", ""), "echo 'not now' >&2; exit 2", func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "not now" {
				t.Errorf("outcome = %+v", o)
			}
		}},
		{"PostToolUse exit 2 goes to the model", PostToolInput("Edit", json.RawMessage(`{}`), "t", "ok"), "echo 'gofmt failed' >&2; exit 2", func(t *testing.T, o Outcome) {
			checkAll(t, "context", o.Context, []string{"gofmt failed"})
		}},
		{"PostToolUse decision block is feedback", PostToolInput("Edit", json.RawMessage(`{}`), "t", "ok"), `echo '{"decision":"block","reason":"lint errors"}'`, func(t *testing.T, o Outcome) {
			checkAll(t, "context", o.Context, []string{"PostToolUse:Edit hook feedback: lint errors"})
		}},
		{"PermissionRequest allow with updatedInput", PermissionInput("Bash", json.RawMessage(`{"command":"npm test"}`), nil),
			`echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"npm run lint"}}}}'`, func(t *testing.T, o Outcome) {
				if o.Permission != "allow" || string(o.Input) != `{"command":"npm run lint"}` {
					t.Errorf("outcome = %+v", o)
				}
			}},
		{"PermissionRequest deny with interrupt", PermissionInput("Bash", nil, nil),
			`echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no","interrupt":true}}}'`, func(t *testing.T, o Outcome) {
				if o.Permission != "deny" || !o.Block || !o.Stop || o.StopReason != "no" {
					t.Errorf("outcome = %+v", o)
				}
			}},
		{"PermissionRequest exit 2 is not honored", PermissionInput("Bash", nil, nil), "echo nope >&2; exit 2", func(t *testing.T, o Outcome) {
			if o.Block || o.Permission != "" || len(o.Notices) != 0 {
				t.Errorf("outcome = %+v", o)
			}
		}},
		{"Notification output is ignored", NotificationInput("nova needs your permission to use Bash", "Permission needed", "permission_prompt"),
			`echo '{"continue":false,"systemMessage":"x"}'; exit 3`, func(t *testing.T, o Outcome) {
				if o.Stop || len(o.Notices) != 0 || o.Ran != 1 {
					t.Errorf("outcome = %+v", o)
				}
			}},
		{"TurnStart continue false stops the run", TurnInput(TurnStart, 1, ""), `echo '{"continue":false,"stopReason":"budget spent"}'`, func(t *testing.T, o Outcome) {
			if !o.Stop || o.StopReason != "budget spent" {
				t.Errorf("outcome = %+v", o)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.script("hook.sh", tt.script+"\n")
			o := w.engine(cmdHooks(string(tt.in.Event), "", "sh hook.sh")).Fire(context.Background(), tt.in)
			if o.Ran != 1 {
				t.Fatalf("ran %d hooks", o.Ran)
			}
			tt.check(t, o)
		})
	}
}

// TestMatcherSelectsHooks: only the hooks whose matcher takes the value
// run, and the same handler in two files runs once.
func TestMatcherSelectsHooks(t *testing.T) {
	w := newWorld(t)
	log := "echo $0 >> ran.log"
	src := func(file, matcher, name string) Source {
		return Source{File: file, Hooks: json.RawMessage(cmdHooks("PreToolUse", matcher, "sh -c '"+log+"' "+name))}
	}
	cfg, err := Parse([]Source{src("a.json", "Bash", "bash"), src("b.json", "Bash", "bash"), src("a.json", "Edit|Write", "edit"),
		src("a.json", "mcp__db__.*", "db"), src("a.json", "*", "all")})
	if err != nil {
		t.Fatal(err)
	}
	e := New(cfg, Session{ProjectDir: w.dir})
	for _, name := range []string{"Bash", "Write", "mcp__db__query", "Read"} {
		e.Fire(context.Background(), ToolInput(name, nil, "t"))
	}
	got := strings.Fields(w.read("ran.log"))
	counts := map[string]int{}
	for _, g := range got {
		counts[g]++
	}
	want := map[string]int{"bash": 1, "edit": 1, "db": 1, "all": 4}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s ran %d times, want %d (log %v)", k, counts[k], v, got)
		}
	}
}

// TestHTTPHook: the event's JSON is POSTed; the answer is read as a
// command's stdout; a guard that answers 500 or cannot be reached blocks.
func TestHTTPHook(t *testing.T) {
	var mu sync.Mutex
	var got []byte
	var auth, leak string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got, _ = io.ReadAll(r.Body)
		auth, leak = r.Header.Get("Authorization"), r.Header.Get("X-Leak")
		w.WriteHeader(status)
		if status == http.StatusOK {
			io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy service says no"}}`)
		}
	}))
	defer srv.Close()
	w := newWorld(t)
	hooks := `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"http","url":"` + srv.URL + `","headers":{"Authorization":"Bearer $MY_TOKEN","X-Leak":"${SECRET}"},"allowedEnvVars":["MY_TOKEN"]}]}]}`
	env := map[string]string{"MY_TOKEN": "tok", "SECRET": "s3cret"}
	e := w.engine(hooks, func(s *Session) { s.Getenv = func(k string) string { return env[k] } })
	o := e.Fire(context.Background(), bashCall)
	if !o.Block || !strings.Contains(o.Reason, "policy service says no") {
		t.Fatalf("outcome = %+v", o)
	}
	var body map[string]any
	if err := json.Unmarshal(got, &body); err != nil || body["hook_event_name"] != "PreToolUse" || body["tool_name"] != "Bash" {
		t.Errorf("body = %s (%v)", got, err)
	}
	if auth != "Bearer tok" || leak != "" {
		t.Errorf("headers: Authorization %q, X-Leak %q (an unlisted variable must stay out)", auth, leak)
	}
	status = http.StatusInternalServerError
	if o := e.Fire(context.Background(), bashCall); !o.Block || !strings.Contains(o.Reason, "500") {
		t.Errorf("a guard answering 500: %+v", o)
	}
	srv.Close()
	if o := e.Fire(context.Background(), bashCall); !o.Block || !strings.Contains(o.Reason, "could not be reached") {
		t.Errorf("an unreachable guard: %+v", o)
	}
}

// judge is a fake model for prompt hooks: it answers each request with the
// next scripted text and records the requests.
type judge struct {
	mu      sync.Mutex
	answers []string
	reqs    []llm.Request
}

func (j *judge) Stream(ctx context.Context, req llm.Request, emit func(llm.StreamEvent)) error {
	j.mu.Lock()
	j.reqs = append(j.reqs, req)
	if len(j.answers) == 0 {
		j.mu.Unlock()
		return errors.New("no answer scripted")
	}
	a := j.answers[0]
	j.answers = j.answers[1:]
	j.mu.Unlock()
	emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: a})
	emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopEndTurn})
	return nil
}

func TestPromptHook(t *testing.T) {
	tests := []struct {
		name, hooks, answer string
		in                  Input
		check               func(t *testing.T, o Outcome)
	}{
		{"ok true decides nothing", `{"Stop":[{"hooks":[{"type":"prompt","prompt":"Are we done? $ARGUMENTS"}]}]}`, `{"ok": true}`,
			StopInput(false, "all done"), func(t *testing.T, o Outcome) {
				if o.Block || o.Stop {
					t.Errorf("outcome = %+v", o)
				}
			}},
		{"Stop ok false goes on", `{"Stop":[{"hooks":[{"type":"prompt","prompt":"Are we done? $ARGUMENTS"}]}]}`, "```json\n{\"ok\": false, \"reason\": \"the tests were not run\"}\n```",
			StopInput(false, "all done"), func(t *testing.T, o Outcome) {
				if !o.Block || o.Reason != "the tests were not run" {
					t.Errorf("outcome = %+v", o)
				}
			}},
		{"Stop impossible lets it stop", `{"Stop":[{"hooks":[{"type":"prompt","prompt":"Done?"}]}]}`, `{"ok": false, "reason": "never", "impossible": true}`,
			StopInput(false, "x"), func(t *testing.T, o Outcome) {
				if o.Block {
					t.Errorf("outcome = %+v", o)
				}
			}},
		{"PreToolUse ok false denies and ends the turn", `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"Safe? $ARGUMENTS"}]}]}`, `{"ok": false, "reason": "deletes the build"}`,
			bashCall, func(t *testing.T, o Outcome) {
				if !o.Block || !strings.Contains(o.Reason, "deletes the build") || !o.Stop {
					t.Errorf("outcome = %+v", o)
				}
			}},
		{"PreToolUse continueOnBlock tells the model only", `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"Safe?","continueOnBlock":true}]}]}`, `{"ok": false, "reason": "no"}`,
			bashCall, func(t *testing.T, o Outcome) {
				if !o.Block || o.Stop {
					t.Errorf("outcome = %+v", o)
				}
			}},
		{"an answer that is not the schema blocks a guard", `{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"Safe?"}]}]}`, `I think it is fine`,
			bashCall, func(t *testing.T, o Outcome) {
				if !o.Block || !strings.Contains(o.Reason, "not {\"ok\"") {
					t.Errorf("outcome = %+v", o)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &judge{answers: []string{tt.answer}}
			w := newWorld(t)
			o := w.engine(tt.hooks, func(s *Session) { s.Client, s.Model = j, "session-model" }).Fire(context.Background(), tt.in)
			tt.check(t, o)
			if len(j.reqs) != 1 {
				t.Fatalf("the model was asked %d times", len(j.reqs))
			}
			req := j.reqs[0]
			prompt := req.Messages[0].Text()
			if req.Model != "session-model" || !strings.Contains(prompt, `"hook_event_name":"`+string(tt.in.Event)+`"`) || strings.Contains(prompt, "$ARGUMENTS") {
				t.Errorf("request: model %q, prompt %q", req.Model, prompt)
			}
		})
	}
	t.Run("no model", func(t *testing.T) {
		w := newWorld(t)
		o := w.engine(`{"PreToolUse":[{"hooks":[{"type":"prompt","prompt":"Safe?"}]}]}`).Fire(context.Background(), bashCall)
		if !o.Block {
			t.Errorf("a prompt guard with no model let the call through: %+v", o)
		}
	})
}

func TestPromptText(t *testing.T) {
	if got := promptText(`cost \$1.00: $ARGUMENTS!`, `{"a":1}`); got != `cost $1.00: {"a":1}!` {
		t.Errorf("got %q", got)
	}
	if got := promptText("Judge it.", `{}`); got != "Judge it.\n\n{}" {
		t.Errorf("got %q", got)
	}
}

// TestToolHooks: the pipeline's view. A Bash result reaches PostToolUse
// as Claude Code's object; a command that exited non-zero is a
// PostToolUseFailure with "Exit code N" first; updatedToolOutput replaces
// the result.
func TestToolHooks(t *testing.T) {
	w := newWorld(t)
	w.script("post.py", `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open(data["hook_event_name"] + ".json", "w") as f:
    json.dump(data, f)
if data["hook_event_name"] == "PostToolUse":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": {"stdout": "[redacted]", "stderr": ""}}}))
`)
	hooks := `{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"python3 post.py"}]}],
		"PostToolUseFailure":[{"matcher":"Bash","hooks":[{"type":"command","command":"python3 post.py"}]}]}`
	th := w.engine(hooks).Tools()
	call := tools.Call{ID: "toolu_9", Name: "Bash", Input: json.RawMessage(`{"command":"echo secret"}`)}
	ok := tools.Result{Output: "secret", Display: display.OfCommand(display.Command{Command: "echo secret"})}
	res, v := th.PostToolUse(context.Background(), call, ok)
	if res.Output != "[redacted]" || v.Decision != "" {
		t.Errorf("after PostToolUse: %q %+v", res.Output, v)
	}
	var post map[string]any
	if err := json.Unmarshal([]byte(w.read("PostToolUse.json")), &post); err != nil {
		t.Fatal(err)
	}
	resp, _ := post["tool_response"].(map[string]any)
	if resp["stdout"] != "secret" || resp["stderr"] != "" || resp["interrupted"] != false || post["tool_use_id"] != "toolu_9" {
		t.Errorf("PostToolUse input = %v", post)
	}
	failed := tools.Result{Output: "npm ERR! missing script\nExit code: 1", Display: display.OfCommand(display.Command{Command: "npm test", ExitCode: 1})}
	if res, _ := th.PostToolUse(context.Background(), call, failed); res.Output != failed.Output {
		t.Errorf("a failure's output changed: %q", res.Output)
	}
	var fail map[string]any
	if err := json.Unmarshal([]byte(w.read("PostToolUseFailure.json")), &fail); err != nil {
		t.Fatal(err)
	}
	if fail["error"] != "Exit code 1\nnpm ERR! missing script" || fail["is_interrupt"] != false {
		t.Errorf("PostToolUseFailure input = %v", fail)
	}
	// Suggestions reach PermissionRequest in Claude Code's shape.
	w.script("perm.py", "#!/usr/bin/env python3\nimport sys\nopen('perm.json','w').write(sys.stdin.read())\n")
	th = w.engine(`{"PermissionRequest":[{"hooks":[{"type":"command","command":"python3 perm.py"}]}]}`).Tools()
	th.PermissionRequest(context.Background(), call, permission.Decision{Behavior: permission.Ask, Suggestions: []string{"Bash(echo:*)"}})
	var perm struct {
		Suggestions []struct {
			Type  string              `json:"type"`
			Rules []map[string]string `json:"rules"`
		} `json:"permission_suggestions"`
		ToolUseID *string `json:"tool_use_id"`
	}
	if err := json.Unmarshal([]byte(w.read("perm.json")), &perm); err != nil {
		t.Fatal(err)
	}
	if len(perm.Suggestions) != 1 || perm.Suggestions[0].Type != "addRules" || perm.Suggestions[0].Rules[0]["toolName"] != "Bash" ||
		perm.Suggestions[0].Rules[0]["ruleContent"] != "echo:*" || perm.ToolUseID != nil {
		t.Errorf("PermissionRequest input = %s", w.read("perm.json"))
	}
}

// TestParse: shapes nova cannot read stop it, naming the file; what is well
// formed but not run is kept, and says why.
func TestParse(t *testing.T) {
	bad := []struct{ hooks, want string }{
		{`[]`, "must be an object"},
		{`{"PreToolUse": {"matcher": "Bash"}}`, "list of matcher groups"},
		{`{"PreToolUse": [{"matcher": "Bash"}]}`, `no "hooks" list`},
		{`{"PreToolUse": [{"hooks": [{"command": "x"}]}]}`, `no "type"`},
		{`{"PreToolUse": [{"hooks": [{"type": "command"}]}]}`, `needs "command"`},
		{`{"PreToolUse": [{"hooks": [{"type": "http", "url": "file:///etc/passwd"}]}]}`, "not an http"},
		{`{"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}`, "positive number"},
		{`{"PreToolUse": [{"matcher": "(?!x)", "hooks": [{"type": "command", "command": "x"}]}]}`, "RE2"},
	}
	for _, tt := range bad {
		_, err := Parse([]Source{{File: "/p/.claude/settings.json", Hooks: json.RawMessage(tt.hooks)}})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "/p/.claude/settings.json") {
			t.Errorf("%s: %v, want an error naming the file and %q", tt.hooks, err, tt.want)
		}
	}
	cfg, err := Parse([]Source{{File: "s.json", Hooks: json.RawMessage(`{
		"PostToolBatch": [{"hooks": [{"type": "command", "command": "x"}]}],
		"PreToolUse": [{"hooks": [{"type": "mcp_tool", "server": "s", "tool": "t"}, {"type": "agent", "prompt": "p"}]}],
		"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "p"}]}],
		"SubagentStop": [{"hooks": [{"type": "command", "command": "x"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 5}]}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"no PostToolBatch event", `no "mcp_tool" hooks`, "", "does not run prompt hooks", "", ""}
	if len(cfg.Hooks) != len(want) {
		t.Fatalf("hooks = %+v", cfg.Hooks)
	}
	for i, w := range want {
		if got := cfg.Hooks[i].Unavailable; (w == "") != (got == "") || !strings.Contains(got, w) {
			t.Errorf("hook %d (%s %s): unavailable %q, want %q", i, cfg.Hooks[i].Event, cfg.Hooks[i].Type, got, w)
		}
	}
	if p := cfg.Problems(); len(p) != 3 || !strings.Contains(p[1], "every call it matches is blocked") {
		t.Errorf("problems = %q", p)
	}
	var b strings.Builder
	cfg.Describe(&b, nil)
	for _, s := range []string{"  PreToolUse\n", "    every tool name  mcp_tool", "  Stop\n    command [x]  timeout 5s  (s.json)", "      not run: nova has no PostToolBatch event"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("description lacks %q:\n%s", s, b.String())
		}
	}
}

// TestAsyncHooksDecideNothing: an async hook runs in the background, its
// answer is not waited for, and Close stops it.
func TestAsyncHooksDecideNothing(t *testing.T) {
	w := newWorld(t)
	e := w.engine(cmdHooks("PreToolUse", "Bash", "echo started > async.log; sleep 30; echo finished >> async.log; exit 2", "async", "true"))
	if o := e.Fire(context.Background(), bashCall); o.Block || o.Ran != 0 {
		t.Fatalf("an async hook decided: %+v", o)
	}
	// Fire did not wait: the hook is still starting, or sleeping.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasPrefix(readOr(filepath.Join(w.dir, "async.log")), "started") {
		if time.Now().After(deadline) {
			t.Fatal("the async hook never ran")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.Close() // stops the hook and waits for it
	if got := readOr(filepath.Join(w.dir, "async.log")); got != "started\n" {
		t.Errorf("async.log = %q: Close did not stop the hook", got)
	}
}

func readOr(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// TestHTTPBodyThatIsNotJSON: a 2xx answer that is not a JSON object is a
// non-blocking error, as in Claude Code, even for a guard.
func TestHTTPBodyThatIsNotJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "looks fine to me") }))
	defer srv.Close()
	w := newWorld(t)
	o := w.engine(`{"PreToolUse":[{"hooks":[{"type":"http","url":"`+srv.URL+`"}]}]}`).Fire(context.Background(), bashCall)
	if o.Block || len(o.Notices) != 1 || !strings.Contains(o.Notices[0], "not a JSON object") {
		t.Errorf("outcome = %+v", o)
	}
}

// TestUpdatedToolOutput: a string replaces any tool's output.
func TestUpdatedToolOutput(t *testing.T) {
	w := newWorld(t)
	th := w.engine(cmdHooks("PostToolUse", "Read", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"[the file is secret]"}}'`)).Tools()
	res, _ := th.PostToolUse(context.Background(), tools.Call{ID: "r", Name: "Read", Input: json.RawMessage(`{"file_path":"/x"}`)}, tools.Result{Output: "password=hunter2"})
	if res.Output != "[the file is secret]" {
		t.Errorf("output = %q", res.Output)
	}
}
