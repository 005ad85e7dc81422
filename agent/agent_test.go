package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// fakeTool records calls and optionally waits.
type fakeTool struct {
	name    string
	kind    permission.Kind
	delay   time.Duration
	started chan string
	running atomic.Int32
	maxPar  atomic.Int32
}

func (f *fakeTool) Name() string            { return f.name }
func (f *fakeTool) Description() string     { return "test tool" }
func (f *fakeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f *fakeTool) Kind() permission.Kind   { return f.kind }
func (f *fakeTool) Permission(json.RawMessage, *tools.Env) permission.Request {
	return permission.Request{}
}
func (f *fakeTool) Run(ctx context.Context, in json.RawMessage, env *tools.Env) (tools.Result, error) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		m := f.maxPar.Load()
		if n <= m || f.maxPar.CompareAndSwap(m, n) {
			break
		}
	}
	if f.started != nil {
		f.started <- string(in)
	}
	select {
	case <-time.After(f.delay):
	case <-ctx.Done():
		return tools.Result{}, ctx.Err()
	}
	return tools.Result{Output: f.name + " ran " + string(in)}, nil
}

type harness struct {
	client *scripted
	agent  *Agent
	reg    *tools.Registry
}

func newHarness(t *testing.T, mode permission.Mode, interactive bool, ts ...tools.Tool) *harness {
	t.Helper()
	reg := tools.NewRegistry()
	for _, tl := range ts {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	checker, err := permission.NewChecker(permission.Config{Mode: mode, Workspace: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env := tools.NewEnv(t.TempDir())
	env.SpillDir = t.TempDir()
	env.Notify = Notify
	if interactive {
		env.Ask = Person{}
	}
	c := &scripted{}
	a := New(Config{Client: c, Model: "m", System: "sys", Context: func(context.Context) string { return "<environment>ctx</environment>" },
		Pipeline: &tools.Pipeline{Registry: reg, Checker: checker}, Env: env,
		ContextWindow: 100_000, MaxTokens: 4_000})
	return &harness{client: c, agent: a, reg: reg}
}

func TestRunTextOnly(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	h.client.resps = append(h.client.resps, reply("hello"))
	evs := drain(h.agent.Run(context.Background(), llm.UserText("hi")), nil)
	d := last(evs)
	if d.Subtype != SubtypeSuccess || d.Result != "hello" || d.NumTurns != 1 || d.Usage.InputTokens != 100 {
		t.Fatalf("done = %+v", d)
	}
	// The environment context rides in the first user message only.
	first := h.client.reqs[0].Messages[0]
	if first.Parts[0].Text != "<environment>ctx</environment>" || first.Parts[1].Text != "hi" {
		t.Errorf("first message = %+v", first)
	}
	for _, ev := range evs {
		if _, err := json.Marshal(ev); err != nil {
			t.Errorf("event %s does not marshal: %v", ev.Type, err)
		}
	}
}

func TestReadOnlyCallsRunInParallelWhileStreaming(t *testing.T) {
	slow := &fakeTool{name: "Slow", kind: permission.KindRead, delay: 200 * time.Millisecond, started: make(chan string, 3)}
	h := newHarness(t, permission.ModeDefault, false, slow)
	streamSawStart := make(chan bool, 1)
	h.client.resps = append(h.client.resps,
		func(ctx context.Context, emit func(llm.StreamEvent)) error {
			for i, in := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
				c := call("c"+string(rune('1'+i)), "Slow", in)
				emit(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &c})
			}
			// The first call starts before the stream ends.
			select {
			case <-slow.started:
				streamSawStart <- true
			case <-time.After(5 * time.Second):
				streamSawStart <- false
			}
			emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopToolUse})
			return nil
		},
		reply("done"))
	start := time.Now()
	evs := drain(h.agent.Run(context.Background(), llm.UserText("go")), nil)
	elapsed := time.Since(start)
	if !<-streamSawStart {
		t.Fatal("read-only call did not start while the model was streaming")
	}
	if slow.maxPar.Load() < 2 {
		t.Errorf("max parallel = %d, want the calls to overlap", slow.maxPar.Load())
	}
	if elapsed > 550*time.Millisecond {
		t.Logf("three 200ms calls took %v (expected about 200ms; slow machine?)", elapsed)
	}
	// Results go back in call order.
	msgs := h.client.reqs[1].Messages
	res := msgs[len(msgs)-1]
	for i, want := range []string{"c1", "c2", "c3"} {
		if res.Parts[i].ToolResult.CallID != want {
			t.Errorf("result %d is for %s, want %s", i, res.Parts[i].ToolResult.CallID, want)
		}
	}
	if d := last(evs); d.Subtype != SubtypeSuccess || d.NumTurns != 2 {
		t.Errorf("done = %+v", d)
	}
}

func TestAskIsDeniedWithNobodyToAnswer(t *testing.T) {
	w := &fakeTool{name: "Writer", kind: permission.KindEdit}
	h := newHarness(t, permission.ModeDefault, false, w)
	h.client.resps = append(h.client.resps, reply("", call("c1", "Writer", `{}`)), reply("ok"))
	d := last(drain(h.agent.Run(context.Background(), llm.UserText("go")), nil))
	if len(d.Denials) != 1 || d.Denials[0].ToolName != "Writer" || d.Denials[0].Layer != permission.LayerAsk {
		t.Fatalf("denials = %+v", d.Denials)
	}
	msgs := h.client.reqs[1].Messages
	tr := msgs[len(msgs)-1].Parts[0].ToolResult
	if !tr.IsError || !strings.Contains(tr.Content[0].Text, "denied") {
		t.Errorf("model was told %+v", tr)
	}
}

func TestAskAnsweredByPerson(t *testing.T) {
	for _, allow := range []bool{true, false} {
		w := &fakeTool{name: "Writer", kind: permission.KindEdit}
		h := newHarness(t, permission.ModeDefault, true, w)
		h.client.resps = append(h.client.resps, reply("", call("c1", "Writer", `{"x":1}`)), reply("ok"))
		var asked *PermissionAsk
		evs := drain(h.agent.Run(context.Background(), llm.UserText("go")), func(a *PermissionAsk) {
			asked = a
			a.Answer(PermissionAnswer{Allow: allow, Message: "not now"})
		})
		if asked == nil || asked.ID != "c1" || asked.Tool != "Writer" {
			t.Fatalf("ask = %+v", asked)
		}
		msgs := h.client.reqs[1].Messages
		text := msgs[len(msgs)-1].Parts[0].ToolResult.Content[0].Text
		if allow && text != `Writer ran {"x":1}` {
			t.Errorf("allowed call result = %q", text)
		}
		if !allow && (!strings.Contains(text, "not now") || len(last(evs).Denials) != 1) {
			t.Errorf("denied call: result %q denials %+v", text, last(evs).Denials)
		}
	}
}

func TestStreamBrokenAfterOutputKeepsHistoryConsistent(t *testing.T) {
	r := &fakeTool{name: "Slow", kind: permission.KindRead, delay: time.Minute}
	h := newHarness(t, permission.ModeDefault, false, r)
	h.client.resps = append(h.client.resps, func(ctx context.Context, emit func(llm.StreamEvent)) error {
		emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: "partial"})
		c := call("c1", "Slow", `{}`)
		emit(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &c})
		return &llm.APIError{Kind: llm.ErrStream, Message: "connection reset"}
	})
	d := last(drain(h.agent.Run(context.Background(), llm.UserText("go")), nil))
	if d.Subtype != SubtypeError || !strings.Contains(d.Error, "connection reset") {
		t.Fatalf("done = %+v", d)
	}
	for _, m := range h.agent.History() {
		if len(m.ToolCalls()) > 0 {
			t.Errorf("a tool call without its result entered history: %+v", m)
		}
	}
	hist := h.agent.History()
	if got := hist[len(hist)-1].Text(); got != "partial" {
		t.Errorf("the text shown was not kept: %q", got)
	}
}

func TestCancelStopsToolsAndReportsInterrupted(t *testing.T) {
	slow := &fakeTool{name: "Slow", kind: permission.KindRead, delay: time.Minute, started: make(chan string, 1)}
	h := newHarness(t, permission.ModeDefault, false, slow)
	h.client.resps = append(h.client.resps, reply("", call("c1", "Slow", `{}`)), reply("never"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-slow.started; cancel() }()
	start := time.Now()
	evs := drain(h.agent.Run(ctx, llm.UserText("go")), nil)
	if time.Since(start) > 10*time.Second {
		t.Fatal("cancel did not stop the tool")
	}
	if d := last(evs); d.Subtype != SubtypeInterrupted {
		t.Errorf("done = %+v", d)
	}
	hist := h.agent.History()
	if n := len(hist); n != 4 || hist[2].Parts[0].ToolResult == nil || hist[3].Text() != InterruptedForToolNote {
		t.Errorf("history after interrupt = %+v, want prompt, call, result, the note", hist)
	}
}

func TestMaxTurns(t *testing.T) {
	r := &fakeTool{name: "R", kind: permission.KindRead}
	h := newHarness(t, permission.ModeDefault, false, r)
	h.agent.cfg.MaxTurns = 1
	h.client.resps = append(h.client.resps, reply("", call("c1", "R", `{}`)), reply("x"))
	d := last(drain(h.agent.Run(context.Background(), llm.UserText("go")), nil))
	if d.Subtype != SubtypeMaxTurns || !d.IsError || d.NumTurns != 1 || len(h.client.reqs) != 1 {
		t.Errorf("done = %+v after %d requests", d, len(h.client.reqs))
	}
}

func TestInvalidInputIsReportedToTheModel(t *testing.T) {
	h := newHarness(t, permission.ModeBypass, false)
	h.client.resps = append(h.client.resps, reply("", call("c1", "NoSuchTool", `{}`)), reply("sorry"))
	d := last(drain(h.agent.Run(context.Background(), llm.UserText("go")), nil))
	if d.Subtype != SubtypeSuccess {
		t.Fatalf("done = %+v", d)
	}
	msgs := h.client.reqs[1].Messages
	if tr := msgs[len(msgs)-1].Parts[0].ToolResult; !tr.IsError || !strings.Contains(tr.Content[0].Text, "no tool named") {
		t.Errorf("result = %+v", tr)
	}
}

func TestPrefixIsStableAcrossTurns(t *testing.T) {
	r := &fakeTool{name: "R", kind: permission.KindRead}
	h := newHarness(t, permission.ModeDefault, false, r)
	h.client.resps = append(h.client.resps, reply("a", call("c1", "R", `{}`)), reply("b", call("c2", "R", `{}`)), reply("c"))
	drain(h.agent.Run(context.Background(), llm.UserText("go")), nil)
	for i := 1; i < len(h.client.reqs); i++ {
		prev, cur := h.client.reqs[i-1], h.client.reqs[i]
		if prev.System != cur.System {
			t.Errorf("system prompt changed at request %d", i)
		}
		pj, _ := json.Marshal(prev.Messages)
		cj, _ := json.Marshal(cur.Messages[:len(prev.Messages)])
		if string(pj) != string(cj) {
			t.Errorf("request %d does not extend request %d", i, i-1)
		}
		tp, _ := json.Marshal(prev.Tools)
		tc, _ := json.Marshal(cur.Tools)
		if string(tp) != string(tc) {
			t.Errorf("tool list changed at request %d", i)
		}
	}
}

func TestCompactionLimit(t *testing.T) {
	tests := []struct{ window, out, want int }{
		{200_000, 16_384, 200_000 - 16_384 - SummaryReserve},
		{16_000, 16_000, 8_000},
		{0, 100, 0},
	}
	for _, tt := range tests {
		if got := CompactionLimit(tt.window, tt.out); got != tt.want {
			t.Errorf("CompactionLimit(%d,%d) = %d, want %d", tt.window, tt.out, got, tt.want)
		}
	}
}

// memRecorder is an in-memory Recorder with compaction boundaries.
type memRecorder struct {
	mu       sync.Mutex
	msgs     []llm.Message
	context  string
	summary  string
	kept     []llm.Message
	compacts int
}

func (r *memRecorder) AppendMessage(m llm.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return nil
}
func (r *memRecorder) AppendDecision(string, string, permission.Decision) error { return nil }
func (r *memRecorder) AppendUsage(llm.Usage) error                              { return nil }
func (r *memRecorder) AppendCompaction(c, s string, kept []llm.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.context, r.summary, r.kept = c, s, kept
	r.compacts++
	return nil
}

func TestCompactionWhenTheWindowFills(t *testing.T) {
	big := strings.Repeat("x", 3000)
	r := &fakeTool{name: "R", kind: permission.KindRead}
	h := newHarness(t, permission.ModeDefault, false, r)
	rec := &memRecorder{}
	h.agent.cfg.Recorder = rec
	h.agent.cfg.ContextWindow = 4000 // limit 2000 tokens ≈ 8000 chars
	h.agent.cfg.MaxTokens = 500
	loads := 0
	h.agent.cfg.Context = func(context.Context) string { loads++; return "<instructions>be brief</instructions>" }
	// Three turns of big text; the provider's input count grows with them
	// until the threshold is crossed.
	for i := range 3 {
		in := 500 * (i + 1)
		h.client.resps = append(h.client.resps, func(ctx context.Context, emit func(llm.StreamEvent)) error {
			emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: big})
			emit(llm.StreamEvent{Type: llm.EventUsage, Usage: &llm.Usage{InputTokens: in, OutputTokens: 750}})
			emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopEndTurn})
			return nil
		})
		drain(h.agent.Run(context.Background(), llm.UserText("question "+string(rune('a'+i)))), nil)
	}
	h.client.resps = append(h.client.resps, reply("## Goal\nanswer questions"), reply("fine"))
	evs := drain(h.agent.Run(context.Background(), llm.UserText("question d")), nil)
	var comp *Compaction
	for _, ev := range evs {
		if ev.Type == EventCompaction {
			comp = ev.Compaction
		}
	}
	if comp == nil || comp.After >= comp.Before {
		t.Fatalf("no compaction that shrank the context: %+v", comp)
	}
	if rec.compacts != 1 || !strings.Contains(rec.summary, "## Goal") || rec.context != "<instructions>be brief</instructions>" || strings.Contains(rec.summary, "be brief") {
		t.Errorf("boundary = %d, context %q, summary %q; want the context rebuilt and kept apart from the summary", rec.compacts, rec.context, rec.summary)
	}
	if loads != 2 {
		t.Errorf("context built %d times, want at start and after compaction", loads)
	}
	// The summary request carried the early history and asked for sections.
	sumReq := h.client.reqs[3]
	lastMsg := sumReq.Messages[len(sumReq.Messages)-1].Text()
	if !strings.Contains(lastMsg, "## Next steps") || len(sumReq.Tools) != 0 {
		t.Errorf("summary request: %q, %d tools", lastMsg, len(sumReq.Tools))
	}
	// The next request starts with the summary and keeps the newest turn.
	next := h.client.reqs[4]
	if !strings.Contains(next.Messages[0].Text(), "compacted") || !strings.Contains(next.Messages[0].Text(), "## Goal") {
		t.Errorf("first message after compaction = %q", next.Messages[0].Text())
	}
	if !strings.Contains(next.Messages[0].Text()+next.Messages[len(next.Messages)-1].Text(), "question d") {
		t.Errorf("the newest prompt was not kept")
	}
	if strings.Contains(mustJSON(next.Messages), "question a") {
		t.Errorf("early history survived compaction")
	}
}

func TestCompactionFailureKeepsHistory(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	h.client.resps = append(h.client.resps, reply("one"), reply("two"))
	drain(h.agent.Run(context.Background(), llm.UserText("a")), nil)
	drain(h.agent.Run(context.Background(), llm.UserText("b")), nil)
	before := len(h.agent.History())
	h.client.resps = append(h.client.resps, func(context.Context, func(llm.StreamEvent)) error {
		return &llm.APIError{Kind: llm.ErrServer, Message: "boom"}
	})
	err := h.agent.Compact(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "history kept") {
		t.Fatalf("err = %v", err)
	}
	if len(h.agent.History()) != before {
		t.Errorf("history changed after a failed compaction")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
