package config

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// ModelEntry is one model as /model offers it: a name a person reads,
// the id --model takes, its context window and its price.
type ModelEntry struct {
	// ID is "provider:model".
	ID string
	// Name is the model's label in config.json, nova's name for a model
	// it knows ("Claude Sonnet 5.5"), else the model's id.
	Name string
	// Alias is the family alias that names this model ("sonnet"), if any.
	Alias string
	// ContextWindow is in tokens (Model.Limits).
	ContextWindow int
	// Price is what the model costs, when Priced (File.PriceOf).
	Price  Price
	Priced bool
}

// ModelEntries describes the models /model offers (KnownModels, the
// current ones), each priced as a session on it would be.
func ModelEntries(f *File, providers []Provider) []ModelEntry {
	var out []ModelEntry
	for _, id := range KnownModels(providers, false) {
		sel, err := Select(providers, f, id, func(string) string { return "" })
		if err != nil {
			continue
		}
		out = append(out, Describe(f, sel))
	}
	return out
}

// Describe is sel as /model shows it.
func Describe(f *File, sel Selection) ModelEntry {
	e := ModelEntry{ID: sel.ID(), Name: sel.Model.Label}
	if e.Name == "" {
		e.Name = displayName(sel.Model.Model)
	}
	if k, ok := lookupKnown(sel.Provider.Type, sel.Model.Model); ok && k.id == sel.Model.Model {
		e.Alias = k.alias
	}
	e.ContextWindow, _ = sel.Model.Limits()
	e.Price, e.Priced = f.PriceOf(sel)
	return e
}

// displayName names a model nova knows the way its maker does:
// claude-sonnet-5-5 is Claude Sonnet 5.5, gpt-6.1-sol is GPT-6.1 Sol. Any
// other id (a server's model, a dated snapshot) is shown as it is.
func displayName(id string) string {
	if snapshot.MatchString(id) {
		return id
	}
	words := strings.Split(id, "-")
	title := func(w string) string {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		return string(r)
	}
	switch {
	case len(words) >= 3 && words[0] == "claude":
		// claude-<family>-<major>[-<minor>]
		return "Claude " + title(words[1]) + " " + strings.Join(words[2:], ".")
	case len(words) >= 2 && words[0] == "gpt":
		name := "GPT-" + words[1]
		for _, w := range words[2:] {
			name += " " + title(w)
		}
		return name
	}
	return id
}

// SetDefaultModel makes id ("provider:model", as ModelEntry.ID) the
// model new sessions use: default_model in NOVA_HOME/config.json,
// rewritten atomically under the file's lock, the rest of the file kept.
func SetDefaultModel(novaHome, id string) error {
	key, name, ok := strings.Cut(id, ":")
	if !ok || key == "" || name == "" {
		return &InputError{Reason: fmt.Sprintf("default model %q: want provider:model", id)}
	}
	return editFile(novaHome, "set default model", func(_ *File, providers []json.RawMessage, doc map[string]json.RawMessage) ([]json.RawMessage, error) {
		raw, err := json.Marshal(id)
		if err != nil {
			return nil, err
		}
		doc["default_model"] = raw
		if providers == nil {
			providers = []json.RawMessage{} // written as [], not null
		}
		return providers, nil
	})
}

// Short is the price as /model shows it beside a model: input and output
// per million tokens.
func (p Price) Short() string {
	return fmt.Sprintf("$%s in, $%s out /Mtok", dollars(p.Input), dollars(p.Output))
}
