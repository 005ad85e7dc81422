package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/llm"
)

// ErrNoProvider says no model provider is configured anywhere.
var ErrNoProvider = errors.New(`no model provider configured.
Set one of:
  ANTHROPIC_API_KEY=sk-ant-...            (Anthropic)
  OPENAI_API_KEY=sk-...                   (OpenAI)
  OPENAI_BASE_URL=http://host:port/v1     (any OpenAI-compatible server: Ollama, LM Studio, vLLM, OpenRouter; add OPENAI_API_KEY if it needs one)
  OLLAMA_HOST=127.0.0.1:11434             (Ollama)
or add a provider to NOVA_HOME/config.json (see docs/configuration.md)`)

// Selection is the provider and model a run uses.
type Selection struct {
	Provider Provider
	Model    Model
}

// ID is "provider:model".
func (s Selection) ID() string { return s.Provider.Key + ":" + s.Model.Model }

// Select picks the provider and model for a run. choice is the --model flag
// ("provider:model" or just "model"); when empty, NOVA_MODEL, then the
// config's default_model, then the first provider's first model, then the
// first provider's default model are tried. Model may come back empty for an
// OpenAI-compatible server with no model named: the caller must ask.
func Select(providers []Provider, f *File, choice string, getenv func(string) string) (Selection, error) {
	if len(providers) == 0 {
		return Selection{}, ErrNoProvider
	}
	if choice == "" {
		choice = getenv("NOVA_MODEL")
	}
	if choice == "" {
		choice = f.DefaultModel
	}
	if choice == "" {
		p := providers[0]
		if len(p.Models) > 0 {
			return Selection{Provider: p, Model: p.Models[0]}, nil
		}
		return Selection{Provider: p, Model: Model{Model: DefaultModelName(p.Type)}}, nil
	}
	if key, name, ok := strings.Cut(choice, ":"); ok {
		for _, p := range providers {
			if p.Key == key {
				return Selection{Provider: p, Model: findModel(p, name)}, nil
			}
		}
		// "llama3:8b" names an Ollama-style tag, not a provider.
		if p, ok := firstHosting(providers); ok {
			return pickByModel([]Provider{p}, choice), nil
		}
		return Selection{}, fmt.Errorf("--model %s: no provider %q is configured (configured: %s)", choice, key, providerKeys(providers))
	}
	return pickByModel(providers, choice), nil
}

// firstHosting returns the first provider that serves arbitrary model
// names (Ollama and other OpenAI-compatible servers).
func firstHosting(ps []Provider) (Provider, bool) {
	for _, p := range ps {
		if p.Type == llm.ProviderOllama || p.Type == llm.ProviderOpenAICompatible {
			return p, true
		}
	}
	return Provider{}, false
}

// pickByModel finds the provider that lists model, else uses the first.
func pickByModel(providers []Provider, model string) Selection {
	for _, p := range providers {
		for _, m := range p.Models {
			if m.Model == model {
				return Selection{Provider: p, Model: m}
			}
		}
	}
	return Selection{Provider: providers[0], Model: Model{Model: model}}
}

func findModel(p Provider, name string) Model {
	for _, m := range p.Models {
		if m.Model == name {
			return m
		}
	}
	return Model{Model: name}
}

func providerKeys(ps []Provider) string {
	keys := make([]string, len(ps))
	for i, p := range ps {
		keys[i] = p.Key
	}
	return strings.Join(keys, ", ")
}

// DefaultModelName is the model used for a provider when none is named; ""
// means the server must be asked (OpenAI-compatible servers host anything).
func DefaultModelName(t llm.ProviderType) string {
	switch t {
	case llm.ProviderAnthropic:
		return "claude-sonnet-4-5"
	case llm.ProviderOpenAIResponse:
		return "gpt-5"
	}
	return ""
}

// Limits returns the context window and output limit of m, filling in
// defaults from the model's family when the config does not say.
func (m Model) Limits() (window, maxOutput int) {
	window, maxOutput = m.ContextWindow, m.MaxOutput
	name := strings.ToLower(m.Model)
	defWindow, defOut := 128_000, 8_192
	switch {
	case strings.HasPrefix(name, "claude"):
		defWindow, defOut = 200_000, 16_384
	case strings.HasPrefix(name, "gpt-5"), strings.HasPrefix(name, "o3"), strings.HasPrefix(name, "o4"):
		defWindow, defOut = 400_000, 16_384
	case strings.HasPrefix(name, "gpt-4.1"):
		defWindow, defOut = 1_000_000, 16_384
	}
	if window <= 0 {
		window = defWindow
	}
	if maxOutput <= 0 {
		maxOutput = defOut
	}
	return window, maxOutput
}

// ProviderConfig turns a configured provider into what a client needs,
// with the file's timeouts.
func (p Provider) ProviderConfig(t Timeouts) llm.ProviderConfig {
	hint := p.Source
	switch p.Source {
	case "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OLLAMA_HOST":
	case "OPENAI_BASE_URL":
		hint = "OPENAI_API_KEY (sent to " + p.BaseURL + ")"
	default:
		hint = fmt.Sprintf("api_key of provider %q in %s", p.Key, p.Source)
	}
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	return llm.ProviderConfig{Key: p.Key, Type: p.Type, Name: p.Name, BaseURL: p.BaseURL, APIKey: p.APIKey, KeyHint: hint,
		ConnectTimeout: ms(t.ConnectMS), FirstByteTimeout: ms(t.FirstByteMS), IdleTimeout: ms(t.IdleMS)}
}
