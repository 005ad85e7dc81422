package main

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestResultCost: the json result's total_cost_usd is what the run's
// requests cost at the model's known prices (claude-sonnet-4-5: $3 in,
// $15 out, $0.30 cache read per million tokens), not a made-up 0.
func TestResultCost(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Priced.", InputTokens: 100_000, OutputTokens: 10_000, CacheReadTokens: 1_000_000})
	r := e.run("", "-p", "--output-format", "json", "--model", "anthropic:claude-sonnet-4-5", "cost me")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var res struct {
		Cost float64 `json:"total_cost_usd"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if want := 0.1*3 + 0.01*15 + 1*0.30; math.Abs(res.Cost-want) > 1e-9 {
		t.Errorf("total_cost_usd = %v, want %v", res.Cost, want)
	}
}
