package config

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/llm"
)

// Price is what a model's tokens cost, in US dollars per million tokens.
// In config.json a price that leaves out cache_write or cache_read charges
// those tokens as input: a guess that never makes a session look cheaper
// than it was.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
	// LongPrompt, when set, prices every token of a request whose prompt
	// (input, cache reads and cache writes) is over LongPrompt.Over tokens.
	LongPrompt *LongPrompt `json:"long_prompt,omitempty"`
}

// LongPrompt is the price of requests with a prompt over Over tokens.
type LongPrompt struct {
	Over       int     `json:"over"`
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
}

// UnmarshalJSON reads a price, charging cache tokens left unpriced as input.
func (p *Price) UnmarshalJSON(data []byte) error {
	var raw struct {
		Input      *float64 `json:"input"`
		Output     *float64 `json:"output"`
		CacheWrite *float64 `json:"cache_write"`
		CacheRead  *float64 `json:"cache_read"`
		LongPrompt *struct {
			Over       int      `json:"over"`
			Input      *float64 `json:"input"`
			Output     *float64 `json:"output"`
			CacheWrite *float64 `json:"cache_write"`
			CacheRead  *float64 `json:"cache_read"`
		} `json:"long_prompt"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw.Input == nil || raw.Output == nil {
		return fmt.Errorf("a price needs input and output (US dollars per million tokens)")
	}
	or := func(v *float64, def float64) float64 {
		if v == nil {
			return def
		}
		return *v
	}
	*p = Price{Input: *raw.Input, Output: *raw.Output, CacheWrite: or(raw.CacheWrite, *raw.Input), CacheRead: or(raw.CacheRead, *raw.Input)}
	if lp := raw.LongPrompt; lp != nil {
		if lp.Input == nil || lp.Output == nil || lp.Over <= 0 {
			return fmt.Errorf("long_prompt needs over (tokens), input and output")
		}
		p.LongPrompt = &LongPrompt{Over: lp.Over, Input: *lp.Input, Output: *lp.Output,
			CacheWrite: or(lp.CacheWrite, *lp.Input), CacheRead: or(lp.CacheRead, *lp.Input)}
	}
	for _, v := range []float64{p.Input, p.Output, p.CacheWrite, p.CacheRead} {
		if v < 0 {
			return fmt.Errorf("a price cannot be negative")
		}
	}
	return nil
}

// Cost is what one response's usage costs in US dollars. u is one
// request's: the long-prompt rate depends on that request's prompt.
func (p Price) Cost(u llm.Usage) float64 {
	in, out, write, read := p.Input, p.Output, p.CacheWrite, p.CacheRead
	if lp := p.LongPrompt; lp != nil && u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens > lp.Over {
		in, out, write, read = lp.Input, lp.Output, lp.CacheWrite, lp.CacheRead
	}
	return (float64(u.InputTokens)*in + float64(u.OutputTokens)*out +
		float64(u.CacheWriteTokens)*write + float64(u.CacheReadTokens)*read) / 1e6
}

// String is the price as /cost and nova doctor show it.
func (p Price) String() string {
	s := fmt.Sprintf("$%s input, $%s output, $%s cache write, $%s cache read per million tokens",
		dollars(p.Input), dollars(p.Output), dollars(p.CacheWrite), dollars(p.CacheRead))
	if lp := p.LongPrompt; lp != nil {
		s += fmt.Sprintf(" (prompts over %d tokens: $%s input, $%s output)", lp.Over, dollars(lp.Input), dollars(lp.Output))
	}
	return s
}

// dollars writes a rate as prices are written: $2, $0.10, $12.50, $0.125.
func dollars(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i == 2 {
		s += "0"
	}
	return s
}

// PriceOf returns the price of the selected model and whether one is
// known: the model's own "price" in config.json, then the file's
// "prices" for "provider:model", then for the model's name, then nova's
// table of the first-party providers' list prices. A model on an
// OpenAI-compatible server or Ollama has a price only when config.json
// gives it one: the same name there may cost anything, or nothing.
func (f *File) PriceOf(sel Selection) (Price, bool) {
	if p := sel.Model.Price; p != nil {
		return *p, true
	}
	if f != nil {
		if p, ok := f.Prices[sel.ID()]; ok {
			return p, true
		}
		if p, ok := f.Prices[sel.Model.Model]; ok {
			return p, true
		}
	}
	if k, ok := lookupKnown(sel.Provider.Type, sel.Model.Model); ok {
		return k.price, true
	}
	return Price{}, false
}
