package agent

import (
	"context"
	"strings"

	"github.com/nova-dev/nova/llm"
)

// completeText sends req and gathers the answer's text and usage, for the
// agent's own requests that are not a turn (the compaction summary, the
// title): one loop, so both read usage alike. retry, when set, is told of
// each retry the client makes.
func (a *Agent) completeText(ctx context.Context, req llm.Request, retry func(*llm.RetryInfo)) (string, llm.Usage, error) {
	var text strings.Builder
	var usage llm.Usage
	err := a.cfg.Client.Stream(ctx, req, func(ev llm.StreamEvent) {
		switch ev.Type {
		case llm.EventTextDelta:
			text.WriteString(ev.Text)
		case llm.EventUsage:
			if ev.Usage != nil {
				usage = *ev.Usage
			}
		case llm.EventRetry:
			if retry != nil && ev.Retry != nil {
				retry(ev.Retry)
			}
		}
	})
	return text.String(), usage, err
}
