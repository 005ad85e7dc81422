package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
)

// lockedBuf is a bytes.Buffer a running process writes while the test reads.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// bgNova is a nova process running in the background.
type bgNova struct {
	cmd         *exec.Cmd
	out, errOut *lockedBuf
	done        chan struct{}
}

// start runs nova with args in the workspace without waiting for it. The
// process is killed at the end of the test if it still runs.
func (e *e2e) start(args ...string) *bgNova {
	e.t.Helper()
	p := &bgNova{cmd: exec.Command(novaBin, args...), out: &lockedBuf{}, errOut: &lockedBuf{}, done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Env = e.ws, e.env
	p.cmd.Stdin = strings.NewReader("")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.errOut
	// A killed nova's tools may outlive it holding its pipes; do not wait on them.
	p.cmd.WaitDelay = time.Second
	if err := p.cmd.Start(); err != nil {
		e.t.Fatalf("start nova: %v", err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	e.t.Cleanup(p.kill)
	return p
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *bgNova) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// sessionID waits for the stream-json init line and returns its session id.
func (p *bgNova) sessionID(t *testing.T) string {
	t.Helper()
	var id string
	pollUntil(t, "the init line on stdout", func() bool {
		line, _, ok := strings.Cut(p.out.String(), "\n")
		if !ok {
			return false
		}
		var init struct {
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal([]byte(line), &init); err != nil {
			t.Fatalf("first stdout line is not the init line: %q", line)
		}
		id = init.SessionID
		return true
	}, p)
	return id
}

// pollUntil waits until cond holds, failing the test after a deadline or
// when the watched process exits first.
func pollUntil(t *testing.T, what string, cond func() bool, watch ...*bgNova) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		for _, p := range watch {
			select {
			case <-p.done:
				if cond() {
					return
				}
				t.Fatalf("nova exited before %s\nstdout: %s\nstderr: %s", what, p.out.String(), p.errOut.String())
			default:
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cacheControl matches the cache breakpoints the Anthropic client puts on
// the newest message; they move every request, so prefixes are compared
// without them.
var cacheControl = regexp.MustCompile(`,"cache_control":\{[^{}]*\}|"cache_control":\{[^{}]*\},?`)

// wireMessages returns the messages of a recorded Anthropic request, each
// as the exact bytes sent, cache_control markers removed.
func wireMessages(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	out := make([]string, len(body.Messages))
	for i, m := range body.Messages {
		out[i] = cacheControl.ReplaceAllString(string(m), "")
		if strings.Contains(out[i], `"cache_control"`) {
			t.Fatalf("cache_control left after stripping: %s", out[i])
		}
	}
	return out
}

// checkPrefix fails unless the messages of prev are, byte for byte, the
// first messages of next, which adds exactly added more.
func checkPrefix(t *testing.T, what string, prev, next llmtest.Request, added int) {
	t.Helper()
	p, n := wireMessages(t, prev), wireMessages(t, next)
	if len(n) != len(p)+added {
		t.Errorf("%s: %d messages, want the previous %d plus %d", what, len(n), len(p), added)
	}
	for i := range min(len(p), len(n)) {
		if p[i] != n[i] {
			t.Errorf("%s: message %d differs from the previous request's:\nprev: %.400s\nnext: %.400s", what, i, p[i], n[i])
			return
		}
	}
}

// sameField fails unless two requests send field (system, tools) byte for byte alike.
func sameField(t *testing.T, what, field string, a, b llmtest.Request) {
	t.Helper()
	var x, y map[string]json.RawMessage
	_ = json.Unmarshal(a.Body, &x)
	_ = json.Unmarshal(b.Body, &y)
	if !bytes.Equal(x[field], y[field]) {
		t.Errorf("%s: %s differs between the requests", what, field)
	}
}

// resultSessionID reads the session id from a json result object.
func resultSessionID(t *testing.T, r runResult) string {
	t.Helper()
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res.SessionID) != 26 {
		t.Fatalf("stdout is not a result with a session id (%v): %q\nstderr: %s", err, r.stdout, r.stderr)
	}
	return res.SessionID
}

func TestResumeContinuesSession(t *testing.T) {
	for _, how := range []string{"--resume", "--continue"} {
		t.Run(how, func(t *testing.T) {
			e := newE2E(t, append(trajectory(), llmtest.Turn{Text: "It says HELLO NOVA."})...)
			e.write("greet.txt", "hello world\n")
			r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Edit,Bash", "update the greeting")
			if r.code != 0 {
				t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
			}
			id := resultSessionID(t, r)
			args := []string{"-p", "--output-format", "json", "--resume", id, "what does shout.txt say?"}
			if how == "--continue" {
				args = []string{"-p", "--output-format", "json", "-c", "what does shout.txt say?"}
			}
			r = e.run("", args...)
			if r.code != 0 {
				t.Fatalf("second run: exit %d: %s", r.code, r.stderr)
			}
			if got := resultSessionID(t, r); got != id {
				t.Errorf("second run used session %s, want %s", got, id)
			}
			reqs := e.srv.Requests()
			if len(reqs) != 5 {
				t.Fatalf("provider saw %d requests, want 4 + 1", len(reqs))
			}
			body := string(reqs[4].Body)
			for _, want := range []string{"update the greeting", "hello world", "toolu_1", "toolu_3", "HELLO NOVA", "Done: greet.txt now says hello nova.", "what does shout.txt say?"} {
				if !strings.Contains(body, want) {
					t.Errorf("the continued request lacks %q", want)
				}
			}
			// The first run's last request, plus its answer and the new
			// prompt: the provider's prompt cache still holds.
			checkPrefix(t, "continued request", reqs[3], reqs[4], 2)
			sameField(t, "continued request", "system", reqs[3], reqs[4])
			sameField(t, "continued request", "tools", reqs[3], reqs[4])
		})
	}
}

// nova sessions show is the conversation: the first prompt as typed,
// without the context nova sent the model ahead of it (the JSON export
// keeps every record as it is, context included).
func TestSessionsShowLeavesOutContext(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "It greets."})
	e.write("AGENTS.md", "Answer in haiku.\n")
	r := e.run("", "-p", "--output-format", "json", "what does greet.txt do?")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	id := resultSessionID(t, r)
	show := e.run("", "sessions", "show", id)
	if show.code != 0 || !strings.Contains(show.stdout, "## User\n\nwhat does greet.txt do?\n") || !strings.Contains(show.stdout, "It greets.") {
		t.Fatalf("sessions show: exit %d\n%s", show.code, show.stdout)
	}
	for _, leak := range []string{"<environment>", "Working directory", "haiku"} {
		if strings.Contains(show.stdout, leak) {
			t.Errorf("sessions show shows nova's context (%q):\n%s", leak, show.stdout)
		}
	}
	if js := e.run("", "sessions", "export", id, "--format", "json"); !strings.Contains(js.stdout, "Working directory") {
		t.Errorf("the JSON export lost the context record: %s", js.stdout)
	}
}

func TestResumeRefusedWhileOpen(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Hang: true})
	first := e.start("-p", "--output-format", "stream-json", "a long task")
	id := first.sessionID(t)
	pollUntil(t, "the provider to see the request", func() bool { return len(e.srv.Requests()) == 1 }, first)

	pid := strconv.Itoa(first.cmd.Process.Pid)
	for _, args := range [][]string{
		{"-p", "--resume", id, "me too"},
		{"-p", "--continue", "me too"},
	} {
		r := e.run("", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "open in another nova process") || !strings.Contains(r.stderr, pid) {
			t.Errorf("%v while open: exit %d stderr %q, want 2 and the open-in-another-process message with pid %s", args, r.code, r.stderr, pid)
		}
	}
	if r := e.run("", "sessions", "rm", id); r.code != 1 || !strings.Contains(r.stderr, "open in another nova process") {
		t.Errorf("sessions rm while open: exit %d stderr %q", r.code, r.stderr)
	}
	if r := e.run("", "sessions", "show", id); r.code != 0 || !strings.Contains(r.stdout, "a long task") {
		t.Errorf("sessions show while open: exit %d stdout %q", r.code, r.stdout)
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("refused runs reached the provider: %d requests", n)
	}

	// Once the holder is gone (even killed), the session opens again.
	first.kill()
	e.srv.Push(llmtest.Turn{Text: "back again"})
	if r := e.run("", "-p", "--resume", id, "are you there?"); r.code != 0 || strings.TrimSpace(r.stdout) != "back again" {
		t.Errorf("resume after the holder died: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestKill kills nova -p with SIGKILL at several points of a turn and
// checks that --continue carries on with every message that was complete.
func TestKill(t *testing.T) {
	longText := strings.Repeat("Streaming a long explanation of the change. ", 20)
	for _, tc := range []struct {
		name  string
		turns []llmtest.Turn
		args  []string
		// ready says the process is at the point to kill it.
		ready func(e *e2e, p *bgNova) bool
		// want are texts of completed messages the continued request carries.
		want []string
	}{
		{
			name:  "while the model streams",
			turns: []llmtest.Turn{{Text: longText, ChunkDelay: 500 * time.Millisecond}},
			args:  []string{"--include-partial-messages"},
			ready: func(e *e2e, p *bgNova) bool { return strings.Contains(p.out.String(), `"text_delta"`) },
			want:  []string{"explain the change"},
		},
		{
			name: "while a tool runs",
			turns: []llmtest.Turn{{Text: "Starting the long job.", ToolCalls: []llmtest.ToolCall{
				{ID: "toolu_sleep", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo $$ > job.pid; sleep 30"})},
			}}},
			args: []string{"--allowedTools", "Bash"},
			ready: func(e *e2e, p *bgNova) bool {
				b, err := os.ReadFile(filepath.Join(e.ws, "job.pid"))
				return err == nil && strings.HasSuffix(string(b), "\n")
			},
			want: []string{"explain the change", "Starting the long job.", "toolu_sleep"},
		},
		{
			name: "after a tool result",
			turns: []llmtest.Turn{
				{Text: "Reading the notes.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_read", Name: "Read", Input: jsonInput(map[string]any{"file_path": "notes.txt"})}}},
				{Hang: true},
			},
			ready: func(e *e2e, p *bgNova) bool { return len(e.srv.Requests()) == 2 },
			want:  []string{"explain the change", "Reading the notes.", "toolu_read", "the notes say 7"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, tc.turns...)
			e.write("notes.txt", "the notes say 7\n")
			t.Cleanup(func() { killJob(e) })
			p := e.start(append(append([]string{"-p", "--output-format", "stream-json"}, tc.args...), "explain the change")...)
			id := p.sessionID(t)
			pollUntil(t, "the point to kill at", func() bool { return tc.ready(e, p) }, p)
			p.kill()
			killJob(e)

			// What the killed process left: every complete message.
			tr, warns, err := session.NewStore(filepath.Join(e.home, ".nova")).Load(id)
			if err != nil {
				t.Fatalf("load the killed session: %v", err)
			}
			t.Logf("left %d messages, warnings %v", tr.Meta.MessageCount, warns)
			left := tr.AllMessages()

			served := len(e.srv.Requests())
			e.srv.Push(llmtest.Turn{Text: "carrying on"})
			r := e.run("", "-p", "--output-format", "json", "--continue", "go on")
			if r.code != 0 {
				t.Fatalf("--continue after kill: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
			if got := resultSessionID(t, r); got != id {
				t.Errorf("--continue used session %s, want %s", got, id)
			}
			reqs := e.srv.Requests()
			if len(reqs) != served+1 {
				t.Fatalf("provider saw %d requests, want %d", len(reqs), served+1)
			}
			body := string(reqs[served].Body)
			for _, m := range left {
				for _, s := range messageStrings(m) {
					if !strings.Contains(body, s) {
						t.Errorf("the continued request lacks %.80q of a saved %s message", s, m.Role)
					}
				}
			}
			for _, want := range append(tc.want, "go on") {
				if !strings.Contains(body, jsonText(want)) {
					t.Errorf("the continued request lacks %q", want)
				}
			}
			checkToolPairs(t, reqs[served])

			show := e.run("", "sessions", "show", id)
			if show.code != 0 {
				t.Fatalf("sessions show: exit %d: %s", show.code, show.stderr)
			}
			for _, want := range append(tc.want, "go on", "carrying on") {
				if !strings.Contains(show.stdout, want) {
					t.Errorf("sessions show lacks %q", want)
				}
			}
		})
	}
}

// killJob kills the process group of the Bash job a killed nova left
// behind (the job writes its pid to job.pid).
func killJob(e *e2e) {
	b, err := os.ReadFile(filepath.Join(e.ws, "job.pid"))
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// messageStrings are the texts and tool call ids of m as they appear,
// JSON-escaped, in a request body.
func messageStrings(m llm.Message) []string {
	var out []string
	for _, p := range m.Parts {
		switch {
		case p.Type == llm.PartText && p.Text != "":
			out = append(out, jsonText(p.Text))
		case p.ToolCall != nil:
			out = append(out, jsonText(p.ToolCall.ID))
		case p.ToolResult != nil:
			out = append(out, jsonText(p.ToolResult.CallID))
			for _, c := range p.ToolResult.Content {
				if c.Text != "" {
					out = append(out, jsonText(c.Text))
				}
			}
		}
	}
	return out
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// checkToolPairs fails unless every tool_use of the request is answered by
// a tool_result in the message right after it, as the Anthropic API
// requires (it rejects the request otherwise).
func checkToolPairs(t *testing.T, r llmtest.Request) {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	for i, m := range body.Messages {
		for _, c := range m.Content {
			if c.Type != "tool_use" {
				continue
			}
			answered := false
			if i+1 < len(body.Messages) {
				for _, n := range body.Messages[i+1].Content {
					answered = answered || (n.Type == "tool_result" && n.ToolUseID == c.ID)
				}
			}
			if !answered {
				t.Errorf("tool_use %s (message %d) has no tool_result in the next message: the real API rejects this request", c.ID, i)
			}
		}
	}
}
