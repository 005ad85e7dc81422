package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/anthropic"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// countTool counts its runs.
type countTool struct {
	name string
	kind permission.Kind
	runs atomic.Int32
}

func (c *countTool) Name() string            { return c.name }
func (c *countTool) Description() string     { return "counting test tool" }
func (c *countTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (c *countTool) Kind() permission.Kind   { return c.kind }
func (c *countTool) Permission(json.RawMessage, *tools.Env) permission.Request {
	return permission.Request{}
}
func (c *countTool) Run(context.Context, json.RawMessage, *tools.Env) (tools.Result, error) {
	c.runs.Add(1)
	return tools.Result{Output: c.name + " ran"}, nil
}

// wire is an agent talking to the fake provider through the real Anthropic
// client and llm.WithRetry, with waits recorded instead of slept.
type wire struct {
	srv    *llmtest.Server
	agent  *Agent
	rec    *memRecorder
	sleeps []time.Duration
}

func newWire(t *testing.T, ts []tools.Tool, turns ...llmtest.Turn) *wire {
	t.Helper()
	w := &wire{srv: llmtest.New(turns...), rec: &memRecorder{}}
	t.Cleanup(w.srv.Close)
	p := llm.DefaultRetryPolicy()
	p.Sleep = func(ctx context.Context, d time.Duration) error {
		w.sleeps = append(w.sleeps, d)
		return ctx.Err()
	}
	client := llm.WithRetry(anthropic.New(llm.ProviderConfig{Type: llm.ProviderAnthropic, BaseURL: w.srv.URL, APIKey: "k"}), p)
	reg := tools.NewRegistry()
	for _, tl := range ts {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	checker, err := permission.NewChecker(permission.Config{Mode: permission.ModeDefault, Workspace: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env := tools.NewEnv(t.TempDir())
	env.SpillDir = t.TempDir()
	env.Ask, env.Notify = Person{}, Notify
	w.agent = New(Config{Client: client, Model: "claude-test", System: "sys",
		Pipeline: &tools.Pipeline{Registry: reg, Checker: checker}, Env: env,
		ContextWindow: 100_000, MaxTokens: 4_000, Recorder: w.rec})
	return w
}

// run runs prompt, allowing every ask, and returns the events.
func (w *wire) run(prompt string) []Event {
	return drain(w.agent.Run(context.Background(), llm.UserText(prompt)), func(a *PermissionAsk) {
		a.Answer(PermissionAnswer{Allow: true})
	})
}

// transcript is everything the recorder was given, as one string.
func (w *wire) transcript() string {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	b, _ := json.Marshal(w.rec.msgs)
	return string(b)
}

// textAfterLastRetry is the text a consumer that honours retry events shows.
func textAfterLastRetry(evs []Event) (before, after string, retries []*llm.RetryInfo) {
	var b, a strings.Builder
	for _, ev := range evs {
		switch ev.Type {
		case EventRetry:
			retries = append(retries, ev.Retry)
			b.WriteString(a.String())
			a.Reset()
		case EventTextDelta:
			a.WriteString(ev.Text)
		}
	}
	return b.String(), a.String(), retries
}

func TestBrokenResponseIsAskedForAgain(t *testing.T) {
	const partial = "VOIDED-PARTIAL the first half of an answer"
	faults := []struct {
		name string
		turn llmtest.Turn
	}{
		{"cut mid-text", llmtest.Turn{Text: partial, CutAfterText: 2}},
		{"overloaded after text", llmtest.Turn{Text: partial, StreamError: true}},
		{"cut mid-thinking", llmtest.Turn{Thinking: "VOIDED-PARTIAL thinking", Text: partial, CutAfter: 6}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			w := newWire(t, nil, f.turn, llmtest.Turn{Text: "the final answer"})
			evs := w.run("question")
			d := last(evs)
			if d.IsError || d.Result != "the final answer" {
				t.Fatalf("done = %+v, want success with only the final answer", d)
			}
			voided, shown, retries := textAfterLastRetry(evs)
			if len(retries) != 1 || !retries[0].DiscardPartial {
				t.Fatalf("retries = %+v, want one that voids the partial output", retries)
			}
			if f.turn.Thinking == "" && !strings.Contains(partial, voided) {
				t.Errorf("text before the retry = %q", voided)
			}
			if shown != "the final answer" {
				t.Errorf("text after the retry = %q", shown)
			}
			if tr := w.transcript(); strings.Contains(tr, "VOIDED-PARTIAL") || !strings.Contains(tr, "the final answer") {
				t.Errorf("transcript = %s: want the final answer and nothing of the voided attempt", tr)
			}
			hist := w.agent.History()
			if len(hist) != 2 || hist[1].Text() != "the final answer" {
				t.Errorf("history = %+v", hist)
			}
			reqs := w.srv.Requests()
			if len(reqs) != 2 || !bytes.Equal(reqs[0].Body, reqs[1].Body) {
				t.Errorf("%d requests; the retry must send the same request, with nothing of the voided attempt", len(reqs))
			}
		})
	}
}

// TestRetryDropsCallsNotStarted: a call the broken attempt made but that
// had not started (it waits for a permission answer) is dropped unrun.
func TestRetryDropsCallsNotStarted(t *testing.T) {
	mark := &countTool{name: "Mark", kind: permission.KindExec}
	w := newWire(t, []tools.Tool{mark},
		llmtest.Turn{Text: "VOIDED-PARTIAL let me", ToolCalls: []llmtest.ToolCall{{ID: "toolu_void", Name: "Mark", Input: `{}`}}, StreamError: true},
		llmtest.Turn{Text: "done without it"})
	evs := w.run("go")
	if d := last(evs); d.IsError || d.Result != "done without it" {
		t.Fatalf("done = %+v", d)
	}
	if n := mark.runs.Load(); n != 0 {
		t.Errorf("the voided call ran %d times", n)
	}
	for _, ev := range evs {
		if ev.Type == EventPermissionAsk || ev.Type == EventToolResult {
			t.Errorf("%s event for a voided call", ev.Type)
		}
	}
	if tr := w.transcript(); strings.Contains(tr, "VOIDED-PARTIAL") || strings.Contains(tr, "toolu_void") {
		t.Errorf("transcript keeps the voided attempt: %s", tr)
	}
}

// TestNoRetryOnceACallStarted: once a call of the turn has run, the
// response is not asked for again, and history stays consistent.
func TestNoRetryOnceACallStarted(t *testing.T) {
	peek := &countTool{name: "Peek", kind: permission.KindRead}
	w := newWire(t, []tools.Tool{peek},
		llmtest.Turn{Text: "looking", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Peek", Input: `{}`}}, StreamError: true},
		llmtest.Turn{Text: "should not be reached"})
	evs := w.run("go")
	d := last(evs)
	if !d.IsError || d.Subtype != SubtypeError {
		t.Fatalf("done = %+v, want the failure reported", d)
	}
	if n := len(w.srv.Requests()); n != 1 || w.srv.Remaining() != 1 {
		t.Errorf("%d requests: a turn whose tool had started was retried", n)
	}
	if n := peek.runs.Load(); n != 1 {
		t.Errorf("Peek ran %d times, want 1", n)
	}
	for _, ev := range evs {
		if ev.Type == EventRetry {
			t.Errorf("retry event: %s", ev.Text)
		}
	}
	for _, m := range w.agent.History() {
		if len(m.ToolCalls()) > 0 {
			t.Errorf("a tool call without its result entered history: %+v", m)
		}
	}
}

func TestRetryIsBounded(t *testing.T) {
	w := newWire(t, nil,
		llmtest.Turn{Text: "VOIDED-ONE and more text", CutAfterText: 1},
		llmtest.Turn{Text: "VOIDED-TWO and more text", CutAfterText: 1},
		llmtest.Turn{Text: "third try and more text", CutAfterText: 1},
		llmtest.Turn{Text: "never asked for"})
	evs := w.run("go")
	d := last(evs)
	if !d.IsError || !strings.Contains(d.Error, "broken") {
		t.Fatalf("done = %+v, want the broken stream reported", d)
	}
	if n := len(w.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 attempts", n)
	}
	_, _, retries := textAfterLastRetry(evs)
	if len(retries) != 2 || len(w.sleeps) != 2 {
		t.Errorf("%d retries, %d waits; want 2 each", len(retries), len(w.sleeps))
	}
	for i, r := range retries {
		if r.Attempt != i+2 || r.MaxAttempts != 3 || r.Delay != w.sleeps[i] || r.Delay <= 0 {
			t.Errorf("retry %d = %+v, slept %v", i, r, w.sleeps[i])
		}
	}
	if tr := w.transcript(); strings.Contains(tr, "VOIDED-") {
		t.Errorf("transcript keeps a voided attempt: %s", tr)
	}
}
