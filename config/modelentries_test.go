package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// TestModelEntriesNameAndPrice: the entries /model shows carry a name a
// person reads, the alias, the context window and the price of the
// config's table, which config.json overrides.
func TestModelEntriesNameAndPrice(t *testing.T) {
	f := &File{Prices: map[string]Price{"anthropic:claude-opus-5-5": {Input: 7, Output: 33}}}
	ps := []Provider{{Key: "anthropic", Type: llm.ProviderAnthropic},
		{Key: "local", Type: llm.ProviderOpenAICompatible, Models: []Model{{Model: "qwen3-coder", Label: "Qwen3 Coder", ContextWindow: 32_000}}}}
	got := map[string]ModelEntry{}
	for _, e := range ModelEntries(f, ps) {
		got[e.ID] = e
	}
	sonnet := got["anthropic:claude-sonnet-5-5"]
	if sonnet.Name != "Claude Sonnet 5.5" || sonnet.Alias != "sonnet" || sonnet.ContextWindow != 200_000 || !sonnet.Priced || sonnet.Price.Input != 2 || sonnet.Price.Output != 10 {
		t.Errorf("sonnet entry = %+v", sonnet)
	}
	if opus := got["anthropic:claude-opus-5-5"]; opus.Price.Input != 7 || opus.Price.Output != 33 {
		t.Errorf("config.json's price not used: %+v", opus)
	}
	if q := got["local:qwen3-coder"]; q.Name != "Qwen3 Coder" || q.ContextWindow != 32_000 || q.Priced {
		t.Errorf("configured model = %+v", q)
	}
	if _, ok := got["anthropic:claude-sonnet-4-5"]; ok {
		t.Error("a legacy model is offered")
	}
	for id, want := range map[string]string{"gpt-6.1-sol": "GPT-6.1 Sol", "claude-opus-4-1": "Claude Opus 4.1", "claude-opus-5": "Claude Opus 5",
		"claude-sonnet-4-5-20250929": "claude-sonnet-4-5-20250929", "llama3:8b": "llama3:8b"} {
		if n := displayName(id); n != want {
			t.Errorf("displayName(%s) = %q, want %q", id, n, want)
		}
	}
}

// TestSetDefaultModelKeepsTheFile: the default is written to
// default_model, keys nova does not know and the providers kept, and
// Select then picks it.
func TestSetDefaultModelKeepsTheFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.json")
	orig := `{"providers":[{"key":"anthropic","type":"anthropic","api_key":"k"}],"default_model":"anthropic:claude-haiku-5-5","x_custom":{"a":1}}`
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetDefaultModel(home, "anthropic:claude-opus-5-5"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["default_model"] != "anthropic:claude-opus-5-5" || doc["x_custom"] == nil || len(doc["providers"].([]any)) != 1 {
		t.Errorf("config.json after SetDefaultModel: %s", data)
	}
	f, err := LoadFile(home)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(Providers(f, func(string) string { return "" }), f, "", func(string) string { return "" })
	if err != nil || sel.ID() != "anthropic:claude-opus-5-5" {
		t.Errorf("Select after SetDefaultModel = %v, %v", sel.ID(), err)
	}

	// No config.json yet (providers from the environment): one is made.
	empty := t.TempDir()
	if err := SetDefaultModel(empty, "anthropic:claude-opus-5-5"); err != nil {
		t.Fatal(err)
	}
	if f, err := LoadFile(empty); err != nil || f.DefaultModel != "anthropic:claude-opus-5-5" {
		t.Errorf("new config.json: %+v, %v", f, err)
	}
	if err := SetDefaultModel(empty, "opus"); err == nil {
		t.Error("a bare name was written as the default")
	}
	// A file nova cannot read is left as it is.
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "config.json"), []byte("{nope"), 0o600)
	if err := SetDefaultModel(bad, "anthropic:claude-opus-5-5"); err == nil {
		t.Error("a broken config.json was rewritten")
	}
	if b, _ := os.ReadFile(filepath.Join(bad, "config.json")); string(b) != "{nope" {
		t.Errorf("broken file changed: %s", b)
	}
}
