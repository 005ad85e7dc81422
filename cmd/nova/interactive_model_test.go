package main

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// cost is u at the given rates per million tokens: input, output, cache
// write, cache read.
func cost(u llm.Usage, in, out, write, read float64) float64 {
	return (float64(u.InputTokens)*in + float64(u.OutputTokens)*out + float64(u.CacheWriteTokens)*write + float64(u.CacheReadTokens)*read) / 1e6
}

// TestInteractiveModelSwitchKeepsFigures: /model with an alias switches the
// session to the family's current model, and the status figures (tokens,
// cost, context) go on from where they were; each model's tokens are
// priced at its own rates. A name no provider has is refused before the
// session is touched.
func TestInteractiveModelSwitchKeepsFigures(t *testing.T) {
	first := llmtest.Turn{Text: "Hello.", InputTokens: 1_000, OutputTokens: 100, CacheWriteTokens: 2_000, CacheReadTokens: 50_000}
	title := llmtest.Turn{Text: "Greeting", InputTokens: 40, OutputTokens: 3}
	second := llmtest.Turn{Text: "Hi from Opus.", InputTokens: 300, OutputTokens: 20, CacheReadTokens: 52_000}
	w := newInteractiveWorld(t, first, title, second)
	w.start(t, buildOptions{})
	w.run(t, "hi")
	w.b.waitTitle()

	st := w.b.Status()
	sonnet45 := func(u llm.Usage) float64 { return cost(u, 2, 10, 2.50, 0.20) } // the default: claude-sonnet-5-5
	u1 := llm.Usage{InputTokens: 1_040, OutputTokens: 103, CacheWriteTokens: 2_000, CacheReadTokens: 50_000}
	if st.Usage != u1 {
		t.Fatalf("usage = %+v, want %+v", st.Usage, u1)
	}
	want := sonnet45(llm.Usage{InputTokens: 1_000, OutputTokens: 100, CacheWriteTokens: 2_000, CacheReadTokens: 50_000}) +
		sonnet45(llm.Usage{InputTokens: 40, OutputTokens: 3})
	if st.CostUSD == nil || math.Abs(*st.CostUSD-want) > 1e-9 {
		t.Fatalf("cost = %v, want %v", st.CostUSD, want)
	}
	if st.Context == nil {
		t.Fatal("no context figure after a turn")
	}
	id := st.SessionID

	if err := w.b.SetModel("sonet"); err == nil || !strings.Contains(err.Error(), "/model sonet: no configured provider has this model") ||
		!strings.Contains(err.Error(), "claude-opus-5-5 (opus)") {
		t.Errorf("unknown model: %v", err)
	}
	if st2 := w.b.Status(); st2.Model != st.Model || st2.SessionID != id || st2.Usage != u1 {
		t.Errorf("a refused switch changed the session: %+v", st2)
	}

	if err := w.b.SetModel("opus"); err != nil {
		t.Fatal(err)
	}
	st2 := w.b.Status()
	if st2.Model != "anthropic:claude-opus-5-5" || st2.SessionID != id {
		t.Errorf("after /model opus: model %s, session %s", st2.Model, st2.SessionID)
	}
	if st2.Usage != u1 || st2.CostUSD == nil || *st2.CostUSD != *st.CostUSD || st2.Context == nil {
		t.Errorf("the switch lost the figures: %+v (cost %v), before %+v (cost %v)", st2.Usage, st2.CostUSD, st.Usage, *st.CostUSD)
	}

	w.run(t, "again")
	reqs := w.srv.Requests()
	if m := reqs[len(reqs)-1].JSON()["model"]; m != "claude-opus-5-5" {
		t.Errorf("the request after the switch went to %v", m)
	}
	st3 := w.b.Status()
	u2 := llm.Usage{InputTokens: 300, OutputTokens: 20, CacheReadTokens: 52_000}
	wantUsage := u1
	wantUsage.Add(u2)
	want += cost(u2, 4, 20, 5, 0.20)
	if st3.Usage != wantUsage || st3.CostUSD == nil || math.Abs(*st3.CostUSD-want) > 1e-9 {
		t.Errorf("after a turn on opus: usage %+v cost %v, want %+v and %v", st3.Usage, st3.CostUSD, wantUsage, want)
	}

	models := w.b.Models()
	for _, id := range []string{"anthropic:claude-sonnet-5-5", "anthropic:claude-opus-5-5", "anthropic:claude-haiku-5-5", "anthropic:claude-fable-5-1"} {
		if !slices.Contains(models, id) {
			t.Errorf("/model lists %v, without %s", models, id)
		}
	}

	if err := w.b.NewSession(); err != nil {
		t.Fatal(err)
	}
	if st4 := w.b.Status(); st4.Usage != (llm.Usage{}) || st4.CostUSD == nil || *st4.CostUSD != 0 || st4.Context != nil {
		t.Errorf("a new session starts with the old figures: %+v", st4)
	}
}
