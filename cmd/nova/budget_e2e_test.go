package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestMaxBudgetUSD: with --max-budget-usd the run stops once the
// session's cost reaches the budget: Claude Code's error_max_budget_usd
// result, exit 1, and no further request. claude-sonnet-4-5 costs $3 a
// million input tokens, so each turn here costs $0.30.
func TestMaxBudgetUSD(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Glob", Input: `{"pattern":"*.txt"}`}}, InputTokens: 100_000},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Glob", Input: `{"pattern":"*.md"}`}}, InputTokens: 100_000},
		llmtest.Turn{Text: "never asked for", InputTokens: 100_000})
	r := e.run("", "-p", "--output-format", "json", "--model", "anthropic:claude-sonnet-4-5", "--max-budget-usd", "0.5", "spend")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	var res struct {
		Subtype string   `json:"subtype"`
		IsError bool     `json:"is_error"`
		Errors  []string `json:"errors"`
		Turns   int      `json:"num_turns"`
		Cost    float64  `json:"total_cost_usd"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if res.Subtype != "error_max_budget_usd" || !res.IsError || len(res.Errors) != 1 || !strings.Contains(res.Errors[0], "$0.50") || res.Turns != 2 {
		t.Errorf("result = %+v, want error_max_budget_usd after 2 turns", res)
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2: the third would pass the budget", n)
	}
	if res.Cost < 0.59 || res.Cost > 0.61 {
		t.Errorf("total_cost_usd = %v, want 0.60", res.Cost)
	}
}

// TestMaxBudgetUSDRefused: a budget nova cannot keep (a model without
// prices) or that is no budget is refused at start, before any request.
func TestMaxBudgetUSDRefused(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "never asked for"})
	e.writeHome(".nova/config.json", fmt.Sprintf(`{"providers":[{"key":"local","type":"anthropic","base_url":%q,"api_key":"k","models":[{"model":"free-model"}]}]}`, e.srv.URL))
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--model", "local:free-model", "--max-budget-usd", "1"}, "no prices for local:free-model"},
		{[]string{"--max-budget-usd", "0"}, "want a positive number"},
		{[]string{"--max-budget-usd", "-3"}, "want a positive number"},
	} {
		r := e.run("", append(append([]string{"-p"}, c.args...), "hi")...)
		if r.code != 2 || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.stderr)
		}
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}
