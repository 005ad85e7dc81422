package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
)

// runCancelledAtFirstText runs prompt and interrupts it, as Esc does, when
// the first answer text arrives.
func (w *wire) runCancelledAtFirstText(prompt string) *Done {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var d *Done
	for ev := range w.agent.Run(ctx, llm.UserText(prompt)) {
		if ev.Type == EventTextDelta {
			cancel()
		}
		if ev.Done != nil {
			d = ev.Done
		}
	}
	return d
}

// userTexts are the texts of the user messages of an Anthropic request
// body, in order.
func userTexts(t *testing.T, req llmtest.Request) []string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range body.Messages {
		if m.Role != "user" {
			continue
		}
		for _, c := range m.Content {
			if c.Type == "text" {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// TestInterruptIsToldToTheModelAndCounted: after Esc mid-answer, the next
// request carries "[Request interrupted by user]" between the cut answer
// and the new prompt, and the interrupted request's tokens (the prompt
// counts Anthropic gave at message_start, the output that streamed) are in
// the session's totals and its cost.
func TestInterruptIsToldToTheModelAndCounted(t *testing.T) {
	answer := strings.Repeat("a long answer the person stops reading ", 8)
	w := newWire(t, nil,
		llmtest.Turn{Text: answer, InputTokens: 1_200, CacheReadTokens: 30_000, CacheWriteTokens: 500, ChunkDelay: 100 * time.Millisecond},
		llmtest.Turn{Text: "Understood, something else then.", InputTokens: 40, OutputTokens: 9},
	)
	w.agent.cfg.Price = func(u llm.Usage) float64 {
		return float64(u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens)
	}

	d := w.runCancelledAtFirstText("explain everything")
	if d == nil || d.Subtype != SubtypeInterrupted {
		t.Fatalf("done = %+v, want interrupted", d)
	}
	u := w.agent.Usage()
	if u.InputTokens != 1_200 || u.CacheReadTokens != 30_000 || u.CacheWriteTokens != 500 || u.OutputTokens < 1 {
		t.Errorf("usage after the interrupt = %+v, want the prompt's counts from message_start and some output", u)
	}
	if d.Usage != u {
		t.Errorf("done usage %+v, session usage %+v: the interrupted request counts in both", d.Usage, u)
	}
	if c, ok := w.agent.Cost(); !ok || c != float64(u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens) {
		t.Errorf("cost = %v %v, want the interrupted request priced", c, ok)
	}

	evs := w.run("never mind, do something else")
	if last(evs).Subtype != SubtypeSuccess {
		t.Fatalf("second run: %+v", last(evs))
	}
	reqs := w.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	got := userTexts(t, reqs[1])
	want := []string{"explain everything", InterruptedNote, "never mind, do something else"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("user texts of the request after the interrupt = %q, want %q", got, want)
	}
	if !strings.Contains(w.transcript(), InterruptedNote) {
		t.Error("the note is not in the transcript: a resumed session would not tell the model")
	}
	if u2 := w.agent.Usage(); u2.InputTokens != 1_240 || u2.OutputTokens != u.OutputTokens+9 {
		t.Errorf("usage after the second run = %+v", u2)
	}
}

// TestInterruptedWithoutCountsIsEstimated: a provider that reports usage
// only at the end (OpenAI's) gave nothing when the stream was cut; the
// request still counts, by the estimate of its prompt and what streamed.
func TestInterruptedWithoutCountsIsEstimated(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	streamed := strings.Repeat("x", 400)
	h.client.add(func(ctx context.Context, emit func(llm.StreamEvent)) error {
		emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: streamed})
		<-ctx.Done()
		return ctx.Err()
	}, reply("ok"))
	ctx, cancel := context.WithCancel(context.Background())
	for ev := range h.agent.Run(ctx, llm.UserText(strings.Repeat("y", 4_000))) {
		if ev.Type == EventTextDelta {
			cancel()
		}
	}
	cancel()
	u := h.agent.Usage()
	if u.InputTokens < 1_000 || u.OutputTokens != 100 {
		t.Errorf("usage = %+v, want the prompt estimated (over 1,000 tokens) and 100 output tokens", u)
	}
	drain(h.agent.Run(context.Background(), llm.UserText("go on")), nil)
	msgs := h.client.requests()[1].Messages
	lastUser := msgs[len(msgs)-1]
	var texts []string
	for _, p := range lastUser.Parts {
		texts = append(texts, p.Text)
	}
	if strings.Join(texts, "|") != InterruptedNote+"|go on" {
		t.Errorf("last user message = %q, want the note then the prompt", texts)
	}
}
