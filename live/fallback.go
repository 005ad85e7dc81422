package live

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/providers"
	"github.com/nova-dev/nova/tools"
)

// fallbackTarget is one model of --fallback-model.
type fallbackTarget struct {
	id     string // provider:model, for people
	model  string // its name at the provider
	client llm.Client
	price  func(llm.Usage) float64 // nil: no known prices
}

// fallbackClient is the session's client under --fallback-model (Claude
// Code's fallbackModel): a request the primary model cannot serve, because
// it is overloaded or unavailable once its retries are spent, goes to the
// next fallback model, and the rest of that run stays there; the next run
// tries the primary again, so an outage does not demote the session.
type fallbackClient struct {
	targets []fallbackTarget // the primary first
	mu      sync.Mutex
	run     *tools.RunScope // the run that fell back
	at      int             // the target it fell back to
	last    atomic.Int32    // the target of the latest request, for its price
}

// Stream implements llm.Client.
func (c *fallbackClient) Stream(ctx context.Context, req llm.Request, emit func(llm.StreamEvent)) error {
	scope := tools.RunScopeOf(ctx)
	i := 0
	c.mu.Lock()
	if scope != nil && scope == c.run {
		i = c.at
	}
	c.mu.Unlock()
	for ; ; i++ {
		t := c.targets[i]
		if i > 0 {
			req.Model = t.model
		}
		c.last.Store(int32(i))
		streamed := false
		err := t.client.Stream(ctx, req, func(ev llm.StreamEvent) {
			if ev.Type != llm.EventRetry {
				streamed = true
			}
			emit(ev)
		})
		if err == nil || streamed || ctx.Err() != nil || !unavailable(err) || i == len(c.targets)-1 {
			return err
		}
		next := c.targets[i+1]
		c.mu.Lock()
		c.run, c.at = scope, i+1
		c.mu.Unlock()
		agent.Notice(ctx, fmt.Sprintf("%s cannot answer (%v): switching to the fallback model %s for the rest of this turn", t.id, err, next.id))
	}
}

// price is what the latest response cost, at the prices of the model that
// gave it.
func (c *fallbackClient) price(u llm.Usage) float64 {
	if p := c.targets[c.last.Load()].price; p != nil {
		return p(u)
	}
	return 0
}

// unavailable says err is one a fallback model is for: the model is
// overloaded, its server unavailable (503), or the provider has no such
// model (404).
func unavailable(err error) bool {
	var ae *llm.APIError
	if !errors.As(err, &ae) {
		return false
	}
	return ae.Kind == llm.ErrOverloaded || ae.StatusCode == http.StatusServiceUnavailable || ae.StatusCode == http.StatusNotFound
}

// withFallback returns the session's client and pricing with the fallback
// models of o (a comma-separated list) behind the primary's; none given,
// they are returned as they are. A fallback nova cannot price is refused
// with a budget, as the primary is.
func withFallback(ctx context.Context, o Options, file *config.File, sel config.Selection, client llm.Client, price func(llm.Usage) float64) (llm.Client, func(llm.Usage) float64, []string, error) {
	if strings.TrimSpace(o.FallbackModel) == "" {
		return client, price, nil, nil
	}
	fc := &fallbackClient{targets: []fallbackTarget{{id: sel.ID(), model: sel.Model.Model, client: client, price: price}}}
	var warnings []string
	for _, name := range strings.Split(o.FallbackModel, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		fo := o
		fo.Model = name
		fsel, warns, err := SelectModel(ctx, fo, file)
		if err != nil {
			return nil, nil, nil, configErr("--fallback-model %s: %v", name, err)
		}
		warnings = append(warnings, warns...)
		if fsel.ID() == sel.ID() {
			return nil, nil, nil, configErr("--fallback-model %s is the session's model: name a different one", name)
		}
		fclient, err := providers.New(fsel.Provider.ProviderConfig(file.Timeouts), llm.DefaultRetryPolicy())
		if err != nil {
			return nil, nil, nil, configErr("--fallback-model %s: %v", name, err)
		}
		t := fallbackTarget{id: fsel.ID(), model: fsel.Model.Model, client: fclient}
		if p, ok := file.PriceOf(fsel); ok {
			t.price = p.Cost
		} else if o.MaxBudgetUSD > 0 {
			return nil, nil, nil, configErr("--max-budget-usd: nova has no prices for the fallback model %s, so it cannot tell when the budget is spent; give it a price in config.json (docs/configuration.md#prices)", fsel.ID())
		}
		fc.targets = append(fc.targets, t)
	}
	if price == nil {
		// The session's model has no prices: its cost stays unknown.
		return fc, nil, warnings, nil
	}
	return fc, fc.price, warnings, nil
}
