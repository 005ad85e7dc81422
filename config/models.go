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
or add a provider to NOVA_HOME/config.json (see ` + DocsBase + `configuration.md)`)

// DocsBase is where nova's documentation is read, for messages that point
// to a page: the repository's docs/ folder, since an installed nova has no
// docs/ beside it.
const DocsBase = "https://github.com/nova-dev/nova/blob/main/docs/"

// Selection is the provider and model a run uses.
type Selection struct {
	Provider Provider
	Model    Model
	// Unlisted says the model is neither in config.json nor one nova
	// knows, on a provider that serves whatever it hosts (Ollama, an
	// OpenAI-compatible server): only the server's list can say whether
	// it is there.
	Unlisted bool
}

// ID is "provider:model".
func (s Selection) ID() string { return s.Provider.Key + ":" + s.Model.Model }

// Select picks the provider and model for a run. choice is the --model flag
// ("provider:model", a model's name or a family alias such as "sonnet");
// when empty, NOVA_MODEL, then the config's default_model, then the first
// provider's first model, then the first provider's default model are
// tried. Model may come back empty for an OpenAI-compatible server with no
// model named: the caller must ask.
//
// A name is known when config.json lists it for the provider or it is one
// of nova's models of the provider's type (a dated snapshot included), or
// a claude-* id on an Anthropic provider (sent as given); an alias
// resolves to the family's current model. A name nova cannot place
// is an error that lists the known models, except on a server that hosts
// anything, where it comes back Unlisted for the caller to check.
func Select(providers []Provider, f *File, choice string, getenv func(string) string) (Selection, error) {
	if len(providers) == 0 {
		return Selection{}, ErrNoProvider
	}
	from := "--model"
	if choice == "" {
		choice, from = getenv("NOVA_MODEL"), "NOVA_MODEL"
	}
	if choice == "" {
		choice, from = f.DefaultModel, "default_model"
	}
	if choice == "" {
		return providerDefault(providers[0]), nil
	}
	if key, name, ok := strings.Cut(choice, ":"); ok {
		for _, p := range providers {
			if p.Key != key {
				continue
			}
			if name == "" {
				return providerDefault(p), nil
			}
			if m, ok := resolve(p, name); ok {
				return Selection{Provider: p, Model: m}, nil
			}
			if hosts(p) {
				return Selection{Provider: p, Model: Model{Model: name}, Unlisted: true}, nil
			}
			return Selection{}, unknownModel(from, choice, providers)
		}
		// "llama3:8b" names an Ollama-style tag, not a provider.
		if p, ok := firstHosting(providers); ok {
			if m, ok := resolve(p, choice); ok {
				return Selection{Provider: p, Model: m}, nil
			}
			return Selection{Provider: p, Model: Model{Model: choice}, Unlisted: true}, nil
		}
		return Selection{}, fmt.Errorf("%s %s: no provider %q is configured (configured: %s)", from, choice, key, providerKeys(providers))
	}
	for _, p := range providers {
		if m, ok := resolve(p, choice); ok {
			return Selection{Provider: p, Model: m}, nil
		}
	}
	if p, ok := firstHosting(providers); ok && !isAlias(choice) {
		return Selection{Provider: p, Model: Model{Model: choice}, Unlisted: true}, nil
	}
	return Selection{}, unknownModel(from, choice, providers)
}

// providerDefault is p's first configured model, else its default model
// (none for a server that hosts anything).
func providerDefault(p Provider) Selection {
	if len(p.Models) > 0 {
		return Selection{Provider: p, Model: p.Models[0]}
	}
	return Selection{Provider: p, Model: Model{Model: DefaultModelName(p.Type)}}
}

// resolve finds name among p's models: a configured one, a family alias,
// or a model nova knows for p's type. An alias of a first-party provider
// is the family's current model (with its config.json settings when it is
// listed there); on a server that hosts anything, it is the first
// configured model of the family.
func resolve(p Provider, name string) (Model, bool) {
	configured := func(id string) (Model, bool) {
		for _, m := range p.Models {
			if m.Model == id {
				return m, true
			}
		}
		return Model{}, false
	}
	if m, ok := configured(name); ok {
		return m, true
	}
	if isAlias(name) {
		if k, ok := aliasOf(p.Type, name); ok {
			if m, ok := configured(k.id); ok {
				return m, true
			}
			return Model{Model: k.id}, true
		}
		for _, m := range p.Models {
			if inFamily(m.Model, name) {
				return m, true
			}
		}
		return Model{}, false
	}
	if _, ok := lookupKnown(p.Type, name); ok {
		return Model{Model: name}, true
	}
	// A claude-* id nova does not list yet (claude-sonnet-4-0, a new
	// snapshot) goes to Anthropic as given, as Claude Code sends it:
	// Anthropic's own answer says whether it exists, where a refusal here
	// would stop a command or agent written for Claude Code.
	if p.Type == llm.ProviderAnthropic && strings.HasPrefix(name, "claude-") {
		return Model{Model: name}, true
	}
	return Model{}, false
}

// hosts reports whether p serves whatever models it hosts (Ollama and
// other OpenAI-compatible servers), so any name may be one of them.
func hosts(p Provider) bool {
	return p.Type == llm.ProviderOllama || p.Type == llm.ProviderOpenAICompatible
}

// firstHosting returns the first provider that serves arbitrary model
// names.
func firstHosting(ps []Provider) (Provider, bool) {
	for _, p := range ps {
		if hosts(p) {
			return p, true
		}
	}
	return Provider{}, false
}

// KnownModels lists the models of providers as "provider:model" ids:
// each provider's configured models, then, for the first-party ones, the
// current models nova knows (all of them, older ones too, when all is set).
func KnownModels(providers []Provider, all bool) []string {
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, p := range providers {
		for _, m := range p.Models {
			add(p.Key + ":" + m.Model)
		}
		for _, k := range catalog {
			if k.t == p.Type && (all || !k.legacy) {
				add(p.Key + ":" + k.id)
			}
		}
	}
	return ids
}

// unknownModel is the error for a model name no provider has: it lists
// what the providers have, and the aliases.
func unknownModel(from, choice string, providers []Provider) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: no configured provider has this model. Known models:", from, choice)
	for _, p := range providers {
		var names []string
		for _, id := range KnownModels([]Provider{p}, true) {
			name := strings.TrimPrefix(id, p.Key+":")
			if k, ok := lookupKnown(p.Type, name); ok && k.alias != "" && k.id == name {
				name += " (" + k.alias + ")"
			}
			names = append(names, name)
		}
		switch {
		case hosts(p) && len(names) > 0:
			names = append(names, "or any model the server lists")
		case hosts(p):
			names = []string{"any model the server lists"}
		}
		fmt.Fprintf(&b, "\n  %s: %s", p.Key, strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, "\nAliases: %s. A model nova does not know yet can be added to its provider's \"models\" in NOVA_HOME/config.json (%sconfiguration.md#unknown-models).",
		strings.Join(Aliases(), ", "), DocsBase)
	return errors.New(b.String())
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
// Anthropic's is what the sonnet alias names, so the default never lags
// the alias table.
func DefaultModelName(t llm.ProviderType) string {
	switch t {
	case llm.ProviderAnthropic:
		id, _ := AliasModel(t, "sonnet")
		return id
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
	case strings.HasPrefix(name, "gpt-5"), strings.HasPrefix(name, "gpt-6"), strings.HasPrefix(name, "o3"), strings.HasPrefix(name, "o4"):
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

// AliasModel is the model a family alias (sonnet, opus, haiku, ...) names
// for provider type t, the one table --model and agents' and skills'
// model: both read; false when t has no such family.
func AliasModel(t llm.ProviderType, alias string) (string, bool) {
	k, ok := aliasOf(t, alias)
	return k.id, ok
}
