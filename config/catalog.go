package config

import (
	"regexp"
	"strings"

	"github.com/nova-dev/nova/llm"
)

// known is one model nova knows by name: the first-party providers' models,
// with their list prices.
type known struct {
	t  llm.ProviderType
	id string
	// alias, when set, is the family name (--model sonnet) that resolves
	// to this id: the family's current model. An alias names one entry.
	alias string
	// legacy models are accepted by --model and priced, but /model offers
	// only the current ones.
	legacy bool
	price  Price
}

// Prices per million tokens in US dollars, list prices of the first-party
// APIs (no batch, priority or regional premium). Cache writes are the
// 5-minute writes nova's requests make.
//
// Sources (compiled 2026-12-01 from copies of these pages and of the
// announcements they link, not a live read: check the rates marked
// "verify" against the live pages when you next touch this table):
//   - Anthropic: https://platform.claude.com/docs/en/about-claude/pricing
//     and each model's page under https://platform.claude.com/docs/en/models/
//     (Claude Haiku 5.5 is priced by prompt length: over 100,000 prompt
//     tokens every token of the request costs five times as much; Sonnet
//     5.5's cache reads went from $0.20 to $0.10 on 2026-10-07).
//   - OpenAI: https://developers.openai.com/api/docs/pricing and the model
//     pages under https://developers.openai.com/api/docs/models/ (GPT-6
//     requests with more than 272,000 input tokens cost twice as much for
//     input and cache, 1.5 times for output). OpenAI bills no cache writes
//     for the GPT-5 models: they are priced as input.
//
// Prices change: keep this table to the pages above, and say the date you
// read them. config.json overrides any of them (docs/configuration.md#prices).
var catalog = []known{
	// Anthropic, current lineup first.
	{t: llm.ProviderAnthropic, id: "claude-fable-5-1", alias: "fable", price: Price{Input: 10, Output: 50, CacheWrite: 12.50, CacheRead: 0.25}},
	// verify: Opus 5.5's cache write and read. Sonnet 5.5's were read on
	// platform.claude.com/docs/en/models/sonnet-5-5/overview (2026-12-01):
	// 5m cache write $2.50, cache read $0.20.
	{t: llm.ProviderAnthropic, id: "claude-opus-5-5", alias: "opus", price: Price{Input: 4, Output: 20, CacheWrite: 5, CacheRead: 0.20}},
	{t: llm.ProviderAnthropic, id: "claude-sonnet-5-5", alias: "sonnet", price: Price{Input: 2, Output: 10, CacheWrite: 2.50, CacheRead: 0.20}},
	{t: llm.ProviderAnthropic, id: "claude-haiku-5-5", alias: "haiku", price: Price{Input: 0.10, Output: 0.50, CacheWrite: 0.125, CacheRead: 0.01,
		LongPrompt: &LongPrompt{Over: 100_000, Input: 0.50, Output: 2.50, CacheWrite: 0.625, CacheRead: 0.05}}},
	{t: llm.ProviderAnthropic, id: "claude-opus-5", legacy: true, price: Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.50}},
	{t: llm.ProviderAnthropic, id: "claude-sonnet-5", legacy: true, price: Price{Input: 2, Output: 10, CacheWrite: 2.50, CacheRead: 0.20}},
	{t: llm.ProviderAnthropic, id: "claude-opus-4-8", legacy: true, price: Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.50}},
	{t: llm.ProviderAnthropic, id: "claude-opus-4-7", legacy: true, price: Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.50}},
	{t: llm.ProviderAnthropic, id: "claude-opus-4-6", legacy: true, price: Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.50}},
	{t: llm.ProviderAnthropic, id: "claude-opus-4-5", legacy: true, price: Price{Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.50}},
	{t: llm.ProviderAnthropic, id: "claude-sonnet-4-6", legacy: true, price: Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.30}},
	{t: llm.ProviderAnthropic, id: "claude-sonnet-4-5", legacy: true, price: Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.30}},
	{t: llm.ProviderAnthropic, id: "claude-haiku-4-5", legacy: true, price: Price{Input: 1, Output: 5, CacheWrite: 1.25, CacheRead: 0.10}},
	{t: llm.ProviderAnthropic, id: "claude-opus-4-1", legacy: true, price: Price{Input: 15, Output: 75, CacheWrite: 18.75, CacheRead: 1.50}},

	// OpenAI (Responses API), current lineup first. The GPT-6 tiers are
	// the families: astra (the most capable), sol, luna (the cheapest).
	// verify: the GPT-6 cache writes and long-prompt rates.
	{t: llm.ProviderOpenAIResponse, id: "gpt-6-astra", alias: "astra", price: Price{Input: 10, Output: 50, CacheWrite: 12.50, CacheRead: 1,
		LongPrompt: &LongPrompt{Over: 272_000, Input: 20, Output: 75, CacheWrite: 25, CacheRead: 2}}},
	{t: llm.ProviderOpenAIResponse, id: "gpt-6.1-sol", alias: "sol", price: Price{Input: 2, Output: 10, CacheWrite: 2.50, CacheRead: 0.10,
		LongPrompt: &LongPrompt{Over: 272_000, Input: 4, Output: 15, CacheWrite: 5, CacheRead: 0.20}}},
	{t: llm.ProviderOpenAIResponse, id: "gpt-6-luna", alias: "luna", price: Price{Input: 0.10, Output: 0.50, CacheWrite: 0.125, CacheRead: 0.01,
		LongPrompt: &LongPrompt{Over: 272_000, Input: 0.20, Output: 0.75, CacheWrite: 0.25, CacheRead: 0.02}}},
	{t: llm.ProviderOpenAIResponse, id: "gpt-6-sol", legacy: true, price: Price{Input: 2, Output: 10, CacheWrite: 2.50, CacheRead: 0.20,
		LongPrompt: &LongPrompt{Over: 272_000, Input: 4, Output: 15, CacheWrite: 5, CacheRead: 0.40}}},
	{t: llm.ProviderOpenAIResponse, id: "gpt-5", legacy: true, price: Price{Input: 1.25, Output: 10, CacheWrite: 1.25, CacheRead: 0.125}},
	{t: llm.ProviderOpenAIResponse, id: "gpt-5-mini", legacy: true, price: Price{Input: 0.25, Output: 2, CacheWrite: 0.25, CacheRead: 0.025}},
	{t: llm.ProviderOpenAIResponse, id: "gpt-5-nano", legacy: true, price: Price{Input: 0.05, Output: 0.40, CacheWrite: 0.05, CacheRead: 0.005}},
}

// snapshot matches the date a pinned model id ends with:
// claude-sonnet-4-5-20250929, gpt-5-2025-08-07.
var snapshot = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// lookupKnown finds id among the models nova knows for provider type t,
// a dated snapshot of one included.
func lookupKnown(t llm.ProviderType, id string) (known, bool) {
	base := snapshot.ReplaceAllString(id, "")
	for _, k := range catalog {
		if k.t == t && (k.id == id || k.id == base) {
			return k, true
		}
	}
	return known{}, false
}

// aliasOf returns the catalog entry that alias names for provider type t.
func aliasOf(t llm.ProviderType, alias string) (known, bool) {
	for _, k := range catalog {
		if k.t == t && k.alias == alias {
			return k, true
		}
	}
	return known{}, false
}

// isAlias reports whether name is a family alias of any provider type.
func isAlias(name string) bool {
	for _, k := range catalog {
		if k.alias != "" && k.alias == name {
			return true
		}
	}
	return false
}

// Aliases lists the family aliases --model accepts, in catalog order.
func Aliases() []string {
	var out []string
	for _, k := range catalog {
		if k.alias != "" {
			out = append(out, k.alias)
		}
	}
	return out
}

// inFamily reports whether a configured model id belongs to the family
// alias names: one of the id's words is the alias ("opus" in
// "claude-opus-4-1", "sol" in "openai/gpt-6.1-sol").
func inFamily(id, alias string) bool {
	words := strings.FieldsFunc(strings.ToLower(id), func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || r == ':' || r == '/' || r == ' '
	})
	for _, w := range words {
		if w == alias {
			return true
		}
	}
	return false
}
