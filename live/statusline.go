package live

import (
	"context"
	"errors"
	"time"

	"github.com/nova-dev/nova/agent"
)

// StatusLineInput is what a frontend knows of the session beyond the
// runtime, for a status line command: the figures it shows itself.
type StatusLineInput struct {
	// CostUSD is the session's cost; nil when the prices are unknown.
	CostUSD *float64
	// Context is the last context usage; nil before the first turn.
	Context *agent.ContextUsage
}

// HasStatusLine reports whether the settings name a status line command
// (a project's only in a trusted folder, like any other grant).
func (rt *Runtime) HasStatusLine() bool {
	return rt.Setup != nil && rt.Setup.Settings.StatusLine != nil && rt.engine != nil
}

// StatusLine runs the settings' statusLine command as a hook runs, with
// Claude Code's status line JSON on stdin (the fields nova knows, with
// Claude Code's names, so a command written for it reads them unchanged),
// and returns the first line it printed.
func (rt *Runtime) StatusLine(ctx context.Context, in StatusLineInput) (string, error) {
	if !rt.HasStatusLine() {
		return "", errors.New("no statusLine setting")
	}
	cost := map[string]any{"total_duration_ms": time.Since(rt.built).Milliseconds()}
	if in.CostUSD != nil {
		cost["total_cost_usd"] = *in.CostUSD
	}
	fields := map[string]any{
		"model":        map[string]any{"id": rt.Selection.Model.Model, "display_name": rt.Selection.ID()},
		"workspace":    map[string]any{"current_dir": rt.Workdir, "project_dir": rt.Workdir},
		"version":      rt.version,
		"output_style": map[string]any{"name": "default"},
		"cost":         cost,
	}
	if c := in.Context; c != nil && c.Limit > 0 {
		fields["context_window"] = map[string]any{"context_window_size": c.Limit, "used_tokens": c.Used, "used_percentage": c.Percent}
		fields["exceeds_200k_tokens"] = c.Used > 200_000
	}
	return rt.engine.StatusLine(ctx, rt.Setup.Settings.StatusLine.Command, fields)
}
