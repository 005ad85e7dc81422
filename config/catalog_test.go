package config

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// TestAliasesResolvePerProvider: a family alias is the family's current
// model on the provider it is asked of; on a server that hosts anything
// it is the configured model of that family.
func TestAliasesResolvePerProvider(t *testing.T) {
	ps := []Provider{
		{Key: "anthropic", Type: llm.ProviderAnthropic},
		{Key: "openai", Type: llm.ProviderOpenAIResponse},
		{Key: "router", Type: llm.ProviderOpenAICompatible, Models: []Model{{Model: "anthropic/claude-opus-4.1"}, {Model: "openai/gpt-6.1-sol"}}},
		{Key: "work", Type: llm.ProviderAnthropic, Models: []Model{{Model: "claude-haiku-5-5", Label: "cheap", MaxOutput: 4096}}},
	}
	tests := []struct{ choice, want string }{
		{"sonnet", "anthropic:claude-sonnet-5-5"},
		{"opus", "anthropic:claude-opus-5-5"},
		{"haiku", "anthropic:claude-haiku-5-5"},
		{"fable", "anthropic:claude-fable-5-1"},
		{"astra", "openai:gpt-6-astra"},
		{"sol", "openai:gpt-6.1-sol"},
		{"luna", "openai:gpt-6-luna"},
		{"openai:sol", "openai:gpt-6.1-sol"},
		{"router:opus", "router:anthropic/claude-opus-4.1"},
		{"router:sol", "router:openai/gpt-6.1-sol"},
		{"work:haiku", "work:claude-haiku-5-5"},
		{"gpt-5-2025-08-07", "openai:gpt-5-2025-08-07"},
	}
	for _, tt := range tests {
		sel, err := Select(ps, &File{}, tt.choice, envOf(nil))
		if err != nil {
			t.Errorf("%s: %v", tt.choice, err)
			continue
		}
		if sel.ID() != tt.want || sel.Unlisted {
			t.Errorf("%s: got %s (unlisted %v), want %s", tt.choice, sel.ID(), sel.Unlisted, tt.want)
		}
	}
	// The alias keeps the configured model's settings.
	sel, _ := Select(ps, &File{}, "work:haiku", envOf(nil))
	if sel.Model.MaxOutput != 4096 || sel.Model.Label != "cheap" {
		t.Errorf("work:haiku lost its config: %+v", sel.Model)
	}
	// A family no model of a hosting server belongs to is not there.
	if _, err := Select(ps[2:3], &File{}, "router:haiku", envOf(nil)); err != nil {
		t.Errorf("router:haiku: %v", err)
	} else if sel, _ := Select(ps[2:3], &File{}, "router:haiku", envOf(nil)); !sel.Unlisted {
		t.Errorf("router:haiku should be left to the server's list: %+v", sel)
	}
}

// TestUnlistedClaudeID: a claude-* id nova does not list goes to an
// Anthropic provider as given (Claude Code's commands name
// claude-sonnet-4-0), with or without the provider's key; with no
// Anthropic provider it is still unknown.
func TestUnlistedClaudeID(t *testing.T) {
	ps := []Provider{
		{Key: "local", Type: llm.ProviderOllama},
		{Key: "anthropic", Type: llm.ProviderAnthropic},
	}
	for _, choice := range []string{"claude-sonnet-4-0", "anthropic:claude-sonnet-4-0"} {
		sel, err := Select(ps, &File{}, choice, envOf(nil))
		if err != nil || sel.Provider.Key != "anthropic" || sel.Model.Model != "claude-sonnet-4-0" || sel.Unlisted {
			t.Errorf("%s: %+v, %v; want anthropic's claude-sonnet-4-0", choice, sel, err)
		}
	}
	if _, err := Select(ps[1:], &File{}, "openai:claude-sonnet-4-0", envOf(nil)); err == nil {
		t.Errorf("a provider that is not configured was accepted")
	}
	openai := []Provider{{Key: "openai", Type: llm.ProviderOpenAIResponse}}
	if _, err := Select(openai, &File{}, "claude-sonnet-4-0", envOf(nil)); err == nil || !strings.Contains(err.Error(), "no configured provider has this model") {
		t.Errorf("claude-sonnet-4-0 with only OpenAI: %v", err)
	}
}

// TestUnknownModelListsKnownOnes: a name nova cannot place fails before
// any request, naming where it came from and what is known.
func TestUnknownModelListsKnownOnes(t *testing.T) {
	ps := []Provider{
		{Key: "anthropic", Type: llm.ProviderAnthropic},
		{Key: "openai", Type: llm.ProviderOpenAIResponse, Models: []Model{{Model: "gpt-custom"}}},
	}
	tests := []struct {
		choice, novaModel, def string
		from                   string
	}{
		{choice: "sonet-5-5", from: "--model sonet-5-5:"},
		{choice: "anthropic:gpt-6-astra", from: "--model anthropic:gpt-6-astra:"},
		{novaModel: "opuss", from: "NOVA_MODEL opuss:"},
		{def: "anthropic:nope", from: "default_model anthropic:nope:"},
	}
	for _, tt := range tests {
		_, err := Select(ps, &File{DefaultModel: tt.def}, tt.choice, envOf(map[string]string{"NOVA_MODEL": tt.novaModel}))
		if err == nil {
			t.Errorf("%+v: no error", tt)
			continue
		}
		msg := err.Error()
		for _, want := range []string{tt.from, "Known models:", "anthropic: claude-fable-5-1 (fable), claude-opus-5-5 (opus), claude-sonnet-5-5 (sonnet)",
			"claude-sonnet-4-5", "openai: gpt-custom, gpt-6-astra (astra)", "Aliases: fable, opus, sonnet, haiku, astra, sol, luna", "config.json"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%+v: error lacks %q:\n%s", tt, want, msg)
			}
		}
	}
	// An alias is never taken for a hosted model's name.
	if _, err := Select([]Provider{{Key: "ollama", Type: llm.ProviderOllama}}, &File{}, "sonnet", envOf(nil)); err == nil ||
		!strings.Contains(err.Error(), "ollama: any model the server lists") {
		t.Errorf("sonnet with only Ollama: %v", err)
	}
}

func TestKnownModels(t *testing.T) {
	ps := []Provider{
		{Key: "local", Type: llm.ProviderOllama, Models: []Model{{Model: "qwen"}}},
		{Key: "anthropic", Type: llm.ProviderAnthropic, Models: []Model{{Model: "claude-sonnet-5-5"}}},
	}
	got := strings.Join(KnownModels(ps, false), " ")
	want := "local:qwen anthropic:claude-sonnet-5-5 anthropic:claude-fable-5-1 anthropic:claude-opus-5-5 anthropic:claude-haiku-5-5"
	if got != want {
		t.Errorf("KnownModels = %s\nwant %s", got, want)
	}
	if all := KnownModels(ps, true); len(all) <= len(strings.Fields(want)) || !strings.Contains(strings.Join(all, " "), "anthropic:claude-opus-4-1") {
		t.Errorf("KnownModels(all) = %v", all)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPriceCost(t *testing.T) {
	sonnet, _ := lookupKnown(llm.ProviderAnthropic, "claude-sonnet-5-5")
	u := llm.Usage{InputTokens: 1_000, OutputTokens: 2_000, CacheWriteTokens: 10_000, CacheReadTokens: 1_000_000}
	// 1k×$2 + 2k×$10 + 10k×$2.50 + 1M×$0.20 per million.
	if got := sonnet.price.Cost(u); !near(got, 0.002+0.02+0.025+0.20) {
		t.Errorf("sonnet cost = %v", got)
	}
	haiku, _ := lookupKnown(llm.ProviderAnthropic, "claude-haiku-5-5")
	small := llm.Usage{InputTokens: 50_000, CacheReadTokens: 50_000, OutputTokens: 1_000}
	if got := haiku.price.Cost(small); !near(got, 0.005+0.0005+0.0005) {
		t.Errorf("haiku at exactly 100k prompt tokens = %v, want the base rate", got)
	}
	big := small
	big.InputTokens++
	if got := haiku.price.Cost(big); !near(got, (50_001*0.50+50_000*0.05+1_000*2.50)/1e6) {
		t.Errorf("haiku over 100k prompt tokens = %v, want the long-prompt rate on every token", got)
	}
	if s := sonnet.price.String(); s != "$2 input, $10 output, $2.50 cache write, $0.20 cache read per million tokens" {
		t.Errorf("String = %q", s)
	}
}

// TestPriceOverrides: config.json prices win over the table, the model's
// own first; a hosted model is priced only by config.json.
func TestPriceOverrides(t *testing.T) {
	home := t.TempDir()
	body := `{
  "providers": [
    {"key": "local", "type": "ollama", "models": [{"model": "qwen", "price": {"input": 0, "output": 0}}, {"model": "llama"}]},
    {"key": "work", "type": "anthropic", "models": [{"model": "claude-opus-5-5"}]}
  ],
  "prices": {
    "claude-sonnet-5-5": {"input": 1, "output": 5, "cache_read": 0.05},
    "work:claude-opus-5-5": {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.30}
  }
}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFile(home)
	if err != nil {
		t.Fatal(err)
	}
	ps := Providers(f, envOf(map[string]string{"ANTHROPIC_API_KEY": "k"}))
	price := func(choice string) (Price, bool) {
		t.Helper()
		sel, err := Select(ps, f, choice, envOf(nil))
		if err != nil {
			t.Fatalf("%s: %v", choice, err)
		}
		return f.PriceOf(sel)
	}
	if p, ok := price("local:qwen"); !ok || p.Input != 0 || p.Output != 0 || p.CacheRead != 0 {
		t.Errorf("local:qwen = %+v %v, want free", p, ok)
	}
	if _, ok := price("local:llama"); ok {
		t.Error("local:llama has a price; a hosted model is priced only by config.json")
	}
	if p, ok := price("anthropic:sonnet"); !ok || p.Input != 1 || p.CacheRead != 0.05 || p.CacheWrite != 1 {
		t.Errorf("anthropic:sonnet = %+v %v, want the file's price by name, cache writes at the input price", p, ok)
	}
	if p, ok := price("work:opus"); !ok || p.Input != 3 {
		t.Errorf("work:opus = %+v %v, want the provider:model price", p, ok)
	}
	if p, ok := price("anthropic:opus"); !ok || p.Input != 4 || p.Output != 20 {
		t.Errorf("anthropic:opus = %+v %v, want the table's", p, ok)
	}

	for _, bad := range []string{`{"input": 1}`, `{"input": -1, "output": 1}`, `{"input": 1, "output": 1, "long_prompt": {"input": 2, "output": 2}}`} {
		var p Price
		if err := json.Unmarshal([]byte(bad), &p); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestCatalogIsConsistent: every alias names one current model of its
// provider type, and no model is listed twice.
func TestCatalogIsConsistent(t *testing.T) {
	ids := map[string]bool{}
	aliases := map[string]bool{}
	for _, k := range catalog {
		key := string(k.t) + " " + k.id
		if ids[key] {
			t.Errorf("%s listed twice", key)
		}
		ids[key] = true
		if k.alias != "" {
			if aliases[k.alias] || k.legacy {
				t.Errorf("alias %s: twice, or on a legacy model", k.alias)
			}
			aliases[k.alias] = true
		}
		if k.price.Input <= 0 || k.price.Output <= 0 || k.price.CacheRead <= 0 || k.price.CacheWrite <= 0 {
			t.Errorf("%s has an incomplete price %+v", k.id, k.price)
		}
	}
	for _, d := range []llm.ProviderType{llm.ProviderAnthropic, llm.ProviderOpenAIResponse} {
		if _, ok := lookupKnown(d, DefaultModelName(d)); !ok {
			t.Errorf("default model of %s is not in the catalog", d)
		}
	}
}
