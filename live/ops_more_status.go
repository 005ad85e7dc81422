package live

import (
	"sync"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// Status is how the session stands, for a status bar or /status: the
// figures since this controller opened it, across model switches.
type Status struct {
	Model     string
	Mode      permission.Mode
	Cwd       string
	Home      string
	Branch    string // the workspace's git branch; "" outside a repository
	SessionID string
	// Usage is the session's token totals.
	Usage llm.Usage
	// CostUSD is the session's cost; nil when a model that was used has
	// no prices.
	CostUSD *float64
	// Context is the last known context usage; nil before the first
	// message.
	Context *agent.ContextUsage
}

// branchCache is the git branch of the workspace of of, the runtime it
// was read for: one git process per runtime, not per status line drawn
// (a /resume may move to another workspace).
type branchCache struct {
	mu     sync.Mutex
	of     *Runtime
	branch string
}

// Status is how the session stands now. The cost is known when every
// model that was used has prices.
func (c *Controller) Status() Status {
	rt, now := c.Runtime(), c.Spent()
	st := Status{Model: rt.Selection.ID(), Mode: rt.Checker.Mode(), Cwd: rt.Workdir, Home: rt.Home, Branch: c.branchOf(rt),
		SessionID: rt.Session.ID(), Usage: now.Usage}
	if _, priced := rt.Agent.Cost(); priced && !now.Unpriced {
		st.CostUSD = &now.Cost
	}
	if cu := rt.Agent.ContextUsage(); cu.MessageCount > 0 {
		// After a switch the new agent has not answered yet: its estimate
		// of the same history stands in, rather than no figure.
		st.Context = &cu
	}
	return st
}

// branchOf is the git branch of rt's workspace, read once per runtime.
func (c *Controller) branchOf(rt *Runtime) string {
	b := &c.branch
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.of != rt {
		b.of, b.branch = rt, agent.GitBranch(c.ctx, rt.Workdir)
	}
	return b.branch
}
