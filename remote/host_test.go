package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/tools"
)

// turnFunc is one scripted model response.
type turnFunc func(ctx context.Context, emit func(llm.StreamEvent)) error

// script is a fake llm.Client shared by a test's sessions.
type script struct {
	mu    sync.Mutex
	turns []turnFunc
}

func (s *script) push(ts ...turnFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, ts...)
}

func (s *script) Stream(ctx context.Context, _ llm.Request, emit func(llm.StreamEvent)) error {
	s.mu.Lock()
	var t turnFunc
	if len(s.turns) > 0 {
		t, s.turns = s.turns[0], s.turns[1:]
	}
	s.mu.Unlock()
	if t == nil {
		t = say("(no more script)")
	}
	return t(ctx, emit)
}

func say(text string) turnFunc {
	return func(ctx context.Context, emit func(llm.StreamEvent)) error {
		emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: text})
		emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopEndTurn})
		return nil
	}
}

// hold streams text, then waits for release (or the run's end).
func hold(text string, release <-chan struct{}) turnFunc {
	return func(ctx context.Context, emit func(llm.StreamEvent)) error {
		emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: text})
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: " released"})
		emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopEndTurn})
		return nil
	}
}

func callTool(id, name, input string) turnFunc {
	return func(ctx context.Context, emit func(llm.StreamEvent)) error {
		emit(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}})
		emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopToolUse})
		return nil
	}
}

// askTool is a tool the checker always asks about; it says when it ran.
type askTool struct{ ran chan string }

func (askTool) Name() string            { return "Deploy" }
func (askTool) Description() string     { return "deploys" }
func (askTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (askTool) Kind() permission.Kind   { return permission.KindExec }
func (askTool) Permission(json.RawMessage, *tools.Env) permission.Request {
	return permission.Request{}
}
func (a askTool) Run(context.Context, json.RawMessage, *tools.Env) (tools.Result, error) {
	a.ran <- "Deploy"
	return tools.Result{Output: "deployed"}, nil
}

// fakeHost runs real agents on the test's script, in memory.
type fakeHost struct {
	t      *testing.T
	script *script
	ran    chan string
	mu     sync.Mutex
	open   map[string]*live.Session
	n      int
	// wrap, when set, wraps each session's agent (a test's scripted
	// frontend events around a real run).
	wrap func(live.Runner) live.Runner
}

func newFakeHost(t *testing.T) *fakeHost {
	return &fakeHost{t: t, script: &script{}, ran: make(chan string, 16), open: map[string]*live.Session{}}
}

func (h *fakeHost) Open(_ context.Context, id string) (*live.Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.open[id]; s != nil {
		return s, nil
	}
	return nil, live.ErrNoSession
}

func (h *fakeHost) Create(ctx context.Context, _ live.Spec) (*live.Session, error) {
	reg := tools.NewRegistry()
	if err := reg.Register(askTool{ran: h.ran}); err != nil {
		return nil, err
	}
	checker, err := permission.NewChecker(permission.Config{Mode: permission.ModeDefault, Workspace: h.t.TempDir(), Home: h.t.TempDir()})
	if err != nil {
		return nil, err
	}
	env := tools.NewEnv(h.t.TempDir())
	env.SpillDir = h.t.TempDir()
	env.Ask, env.Notify = agent.Person{}, agent.Notify
	a := agent.New(agent.Config{Client: h.script, Model: "m", Pipeline: &tools.Pipeline{Registry: reg, Checker: checker},
		Env: env, ContextWindow: 100_000, MaxTokens: 4_000})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	id := "01TESTSESSION" + strconv.Itoa(h.n)
	var runner live.Runner = a
	if h.wrap != nil {
		runner = h.wrap(a)
	}
	s := live.NewSession(context.Background(), id, runner)
	h.open[id] = s
	h.t.Cleanup(s.Close)
	return s, nil
}

func (h *fakeHost) List(string) ([]session.Meta, error)      { return nil, nil }
func (h *fakeHost) Load(string) (*session.Transcript, error) { return nil, live.ErrNoSession }
func (h *fakeHost) Context(context.Context, string, string, string) (agent.ContextUsage, error) {
	return agent.ContextUsage{}, live.ErrNoSession
}
func (h *fakeHost) Rename(string, string) error { return live.ErrNoSession }
func (h *fakeHost) Controller(context.Context, string) (*live.Controller, error) {
	return nil, live.ErrNoSession
}
func (h *fakeHost) SetWorkspace(string, string) error { return live.ErrNoSession }
func (h *fakeHost) States(metas []session.Meta) []live.SessionState {
	return make([]live.SessionState, len(metas))
}
func (h *fakeHost) Delete(id string, _ bool) error {
	h.mu.Lock()
	s := h.open[id]
	delete(h.open, id)
	h.mu.Unlock()
	if s == nil {
		return live.ErrNoSession
	}
	s.Close()
	return nil
}

// sseFrameRead is one frame of a chat stream as a client reads it.
type sseFrameRead struct {
	ID   int64
	Data string
	Type string
	Raw  map[string]any
}

// sseReader reads a chat stream frame by frame.
type sseReader struct {
	t    *testing.T
	resp *http.Response
	br   *bufio.Reader
	done bool
}

// openStream POSTs body to /api/chat/stream.
func (ts *testServer) openStream(body string) *sseReader {
	ts.t.Helper()
	req, _ := http.NewRequest("POST", ts.url+"/api/chat/stream", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { resp.Body.Close() })
	return &sseReader{t: ts.t, resp: resp, br: bufio.NewReader(resp.Body)}
}

// next reads one frame; ok is false at [DONE] or the end of the body.
func (r *sseReader) next() (sseFrameRead, bool) {
	r.t.Helper()
	var f sseFrameRead
	got := false
	type line struct {
		s   string
		err error
	}
	for {
		lc := make(chan line, 1)
		go func() {
			s, err := r.br.ReadString('\n')
			lc <- line{s, err}
		}()
		var l line
		select {
		case l = <-lc:
		case <-time.After(10 * time.Second):
			r.t.Fatal("no stream frame for 10 s")
		}
		if l.err != nil {
			if l.err != io.EOF {
				r.t.Logf("stream read: %v", l.err)
			}
			return f, false
		}
		s := strings.TrimRight(l.s, "\n")
		switch {
		case s == "" && got:
			return f, true
		case s == "":
		case strings.HasPrefix(s, "id: "):
			f.ID, _ = strconv.ParseInt(strings.TrimPrefix(s, "id: "), 10, 64)
			got = true
		case s == "data: [DONE]":
			r.done = true
			return f, false
		case strings.HasPrefix(s, "data: "):
			f.Data = strings.TrimPrefix(s, "data: ")
			_ = json.Unmarshal([]byte(f.Data), &f.Raw)
			f.Type, _ = f.Raw["type"].(string)
			got = true
		}
	}
}

// until reads frames until one of type typ; it fails the test at the end.
func (r *sseReader) until(typ string) sseFrameRead {
	r.t.Helper()
	for {
		f, ok := r.next()
		if !ok {
			r.t.Fatalf("the stream ended before a %s frame", typ)
		}
		if f.Type == typ {
			return f
		}
	}
}

// rest reads to the end and returns the frames.
func (r *sseReader) rest() []sseFrameRead {
	r.t.Helper()
	var out []sseFrameRead
	for {
		f, ok := r.next()
		if !ok {
			return out
		}
		out = append(out, f)
	}
}
