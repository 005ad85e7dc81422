package agent

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// TestMaxBudgetStopsBeforeTheNextTurn: at $0.60 a response and a $1
// budget, the second response crosses it; its calls are answered, no
// third request is sent, and the run ends error_max_budget_usd. A later
// run of the session spends nothing.
func TestMaxBudgetStopsBeforeTheNextTurn(t *testing.T) {
	calls := func(id string) llmtest.Turn {
		return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: id, Name: "Nothing", Input: `{}`}}}
	}
	w := newWire(t, nil, calls("toolu_1"), calls("toolu_2"), calls("toolu_3"), llmtest.Turn{Text: "never sent"})
	w.agent.cfg.Price = func(llm.Usage) float64 { return 0.6 }
	w.agent.cfg.MaxBudgetUSD = 1

	d := last(w.run("spend"))
	if d.Subtype != SubtypeMaxBudget || !d.IsError || d.NumTurns != 2 || !strings.Contains(d.Error, "$1.00") {
		t.Fatalf("done = %+v, want error_max_budget_usd after 2 turns", d)
	}
	if n := len(w.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2: the budget stops the run before the third", n)
	}
	if d.CostUSD < 1.19 || d.CostUSD > 1.21 {
		t.Errorf("run cost %v, want 1.2", d.CostUSD)
	}
	if !strings.Contains(w.transcript(), "toolu_2") {
		t.Error("the crossing turn's call has no result in the transcript")
	}
	if d := last(w.run("more")); d.Subtype != SubtypeMaxBudget || d.NumTurns != 0 {
		t.Errorf("second run = %+v, want stopped before any turn", d)
	}
	if n := len(w.srv.Requests()); n != 2 {
		t.Errorf("%d requests after the second run, want still 2", n)
	}

	// Positive control: no prices, no stop.
	w = newWire(t, nil, calls("toolu_1"), calls("toolu_2"), llmtest.Turn{Text: "all done"})
	w.agent.cfg.MaxBudgetUSD = 1
	if d := last(w.run("spend")); d.Subtype != SubtypeSuccess || d.NumTurns != 3 {
		t.Errorf("unpriced run = %+v, want success (live refuses a budget without prices)", d)
	}
}
