package agent

import "fmt"

// overBudget says whether the session's cost has reached the budget
// (Config.MaxBudgetUSD), and the words that end the run if so. It is
// checked before each model turn, so a run stops before it spends more,
// as Claude Code's --max-budget-usd does; the turn that crossed the
// budget has run whole (its tool calls answered).
func (a *Agent) overBudget() (string, bool) {
	if a.cfg.MaxBudgetUSD <= 0 {
		return "", false
	}
	cost, priced := a.Cost()
	if !priced || cost < a.cfg.MaxBudgetUSD {
		return "", false
	}
	return fmt.Sprintf("reached the maximum budget of $%.2f: the session has cost $%.4f (--max-budget-usd)", a.cfg.MaxBudgetUSD, cost), true
}
