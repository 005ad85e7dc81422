package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// sizedTool is a read-only tool whose output has size characters.
type sizedTool struct{ size int }

func (sizedTool) Name() string            { return "Big" }
func (sizedTool) Description() string     { return "returns a lot" }
func (sizedTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (sizedTool) Kind() permission.Kind   { return permission.KindRead }
func (sizedTool) Permission(json.RawMessage, *tools.Env) permission.Request {
	return permission.Request{}
}
func (t sizedTool) Run(context.Context, json.RawMessage, *tools.Env) (tools.Result, error) {
	return tools.Result{Output: strings.Repeat("o", t.size)}, nil
}

// countingClient is a provider that counts input tokens as 4 characters
// each, the system prompt and tools included, like a real one. A request
// without tools (a summary) gets summary; the others the next answer.
type countingClient struct {
	mu      sync.Mutex
	reqs    []llm.Request
	answers []func(req llm.Request) (string, []llm.ToolCall)
	summary string
}

func (c *countingClient) Stream(ctx context.Context, req llm.Request, emit func(llm.StreamEvent)) error {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	answer := func(llm.Request) (string, []llm.ToolCall) { return c.summary, nil }
	if len(req.Tools) > 0 {
		if len(c.answers) == 0 {
			c.mu.Unlock()
			return errors.New("no answer left")
		}
		answer = c.answers[0]
		c.answers = c.answers[1:]
	}
	c.mu.Unlock()
	text, calls := answer(req)
	chars := len(req.System)
	for _, t := range req.Tools {
		chars += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	for _, m := range req.Messages {
		chars += messageChars(m)
	}
	emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: text})
	for i := range calls {
		emit(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &calls[i]})
	}
	emit(llm.StreamEvent{Type: llm.EventUsage, Usage: &llm.Usage{InputTokens: chars / 4, OutputTokens: len(text) / 4}})
	stop := llm.StopEndTurn
	if len(calls) > 0 {
		stop = llm.StopToolUse
	}
	emit(llm.StreamEvent{Type: llm.EventStop, StopReason: stop})
	return nil
}

// summaries counts the summary requests (the ones without tools).
func (c *countingClient) summaries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.reqs {
		if len(r.Tools) == 0 {
			n++
		}
	}
	return n
}

// windowAgent is an agent with a big system prompt, the sized tool and the
// counting provider, on a model with a small window.
func windowAgent(t *testing.T, window, maxOut, systemChars, toolOutput int) (*Agent, *countingClient) {
	t.Helper()
	reg := tools.NewRegistry()
	if err := reg.Register(sizedTool{size: toolOutput}); err != nil {
		t.Fatal(err)
	}
	checker, err := permission.NewChecker(permission.Config{Mode: permission.ModeDefault, Workspace: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env := tools.NewEnv(t.TempDir())
	env.SpillDir = t.TempDir()
	c := &countingClient{summary: "## Goal\nkeep going"}
	a := New(Config{Client: c, Model: "m", System: strings.Repeat("s", systemChars),
		Context:  func(context.Context) string { return "<environment>ctx</environment>" },
		Pipeline: &tools.Pipeline{Registry: reg, Checker: checker}, Env: env,
		ContextWindow: window, MaxTokens: maxOut, Recorder: &memRecorder{}})
	return a, c
}

// bigCall answers with one call of the sized tool.
func bigCall(n int) func(llm.Request) (string, []llm.ToolCall) {
	return func(llm.Request) (string, []llm.ToolCall) {
		return "again", []llm.ToolCall{{ID: fmt.Sprintf("c%d", n), Name: "Big", Input: json.RawMessage(`{}`)}}
	}
}

func say(text string) func(llm.Request) (string, []llm.ToolCall) {
	return func(llm.Request) (string, []llm.ToolCall) { return text, nil }
}

// TestNoSummaryBeforeEveryTurn: the system prompt alone is over the
// compaction limit of a small window, so no compaction can get under it.
// While the requests still fit, nova must not summarise before every turn;
// it compacts once, when the next request would no longer fit.
func TestNoSummaryBeforeEveryTurn(t *testing.T) {
	// Window 16,000: limit 8,000, and 15,000 for a request with its answer.
	// The system prompt is 8,100 tokens; each call adds about 250.
	a, c := windowAgent(t, 16_000, 1_000, 32_400, 1_000)
	const calls = 32
	for i := range calls {
		c.answers = append(c.answers, bigCall(i))
	}
	c.answers = append(c.answers, say("done"))
	evs := drain(a.Run(context.Background(), llm.UserText("go")), nil)
	if d := last(evs); d.Subtype != SubtypeSuccess || d.NumTurns != calls+1 {
		t.Fatalf("run: %+v", d)
	}
	if n := c.summaries(); n != 1 {
		t.Errorf("%d summary requests, want 1: the one that makes the request fit again", n)
	}
	for i, r := range c.reqs {
		chars := len(r.System)
		for _, m := range r.Messages {
			chars += messageChars(m)
		}
		if chars/4+r.MaxTokens > 16_000 {
			t.Errorf("request %d: about %d tokens with its answer, over the window", i+1, chars/4+r.MaxTokens)
		}
	}
}

// TestCompactionThatLeavesTooMuch: the summary itself is too big, so the
// compacted history still does not fit; nova stops with a WindowError
// rather than send it.
func TestCompactionThatLeavesTooMuch(t *testing.T) {
	a, c := windowAgent(t, 12_000, 1_000, 400, 8_000)
	c.summary = strings.Repeat("summary ", 6_000) // about 12,000 tokens
	c.answers = append(c.answers, bigCall(1), bigCall(2), bigCall(3), say("unreachable"))
	evs := drain(a.Run(context.Background(), llm.UserText("go")), nil)
	d := last(evs)
	if d.Subtype != SubtypeError || !strings.Contains(d.Error, "even after compaction") || !strings.Contains(d.Error, "/clear") {
		t.Fatalf("done = %+v", d)
	}
	if n := len(c.reqs); n != 4 {
		t.Errorf("%d requests, want 4 (three turns and the summary)", n)
	}
}

// TestCompactNothingToCompactOverTheWindow: one turn too big for the window
// cannot be compacted; Compact says so with a WindowError, sending nothing.
func TestCompactNothingToCompactOverTheWindow(t *testing.T) {
	a, c := windowAgent(t, 8_000, 1_000, 400, 40_000)
	c.answers = append(c.answers, bigCall(1), say("unreachable"))
	evs := drain(a.Run(context.Background(), llm.UserText("go")), nil)
	d := last(evs)
	if d.Subtype != SubtypeError || len(c.reqs) != 1 {
		t.Fatalf("done = %+v after %d requests, want an error after 1", d, len(c.reqs))
	}
	err := a.Compact(context.Background(), "")
	var we *WindowError
	if !errors.As(err, &we) || !errors.Is(err, ErrContextFull) || we.Largest != "the result of Big (c1)" || we.Need <= we.Window {
		t.Fatalf("Compact = %v (%+v)", err, we)
	}
	if len(c.reqs) != 1 {
		t.Errorf("Compact sent %d requests", len(c.reqs)-1)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 20000: "20,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
