package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/atomicfile"
)

// InputError is an edit of config.json refused because of what was asked
// (a bad key, a duplicate, an unknown provider), not because of the file:
// the server answers it with a 400.
type InputError struct {
	// Reason says what is wrong, in words for the person who asked.
	Reason string
	// Err, when set, is a sentinel the caller can test with errors.Is
	// (ErrMCPServerNotFound).
	Err error
}

// Error returns the reason.
func (e *InputError) Error() string { return e.Reason }

// Unwrap returns Err.
func (e *InputError) Unwrap() error { return e.Err }

// inputErrorf returns an *InputError.
func inputErrorf(format string, args ...any) error {
	return &InputError{Reason: fmt.Sprintf(format, args...)}
}

// ValidProviderKey reports whether key can name a provider: 1 to 64
// letters, digits, dots, underscores and hyphens, starting with a letter
// or a digit. A provider key is the part before the first colon of
// "provider:model", so it holds no colon, and it is typed on command lines
// (--model key:model), so it holds no space.
func ValidProviderKey(key string) bool {
	if len(key) == 0 || len(key) > 64 {
		return false
	}
	for i, c := range []byte(key) {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// CheckModelName returns why name cannot be a model name, or nil. Model
// names are the providers' own ("qwen2.5-coder:32b",
// "meta-llama/Llama-3.3-70B"), so only emptiness, surrounding spaces,
// control characters and length are refused.
func CheckModelName(name string) error {
	switch {
	case name == "":
		return errors.New("model is required")
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("model %q has spaces around it", name)
	case len(name) > 200:
		return fmt.Errorf("model name is %d bytes long; the limit is 200", len(name))
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("model %q holds a control character", name)
	}
	return nil
}

// checkProvider returns why p cannot be added to config.json, or nil.
func checkProvider(p Provider) error {
	if p.Key == "" {
		return inputErrorf("key is required")
	}
	if !ValidProviderKey(p.Key) {
		return inputErrorf("key %q is not a provider key: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (no ':', it separates provider from model)", p.Key)
	}
	if p.Type == "" {
		return inputErrorf("type is required: ollama, openai-compatible, openai-response or anthropic")
	}
	if !ValidProviderType(p.Type) {
		return inputErrorf("type %q is not a provider type: want ollama, openai-compatible, openai-response or anthropic", p.Type)
	}
	if p.BaseURL != "" {
		u, err := url.Parse(p.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return inputErrorf("base_url %q is not an http or https URL", p.BaseURL)
		}
	}
	for _, m := range p.Models {
		if err := CheckModelName(m.Model); err != nil {
			return &InputError{Reason: err.Error()}
		}
	}
	return nil
}

// AddProviderOptions say how a provider added to config.json bears on
// the model new sessions use.
type AddProviderOptions struct {
	// Default makes the new provider's first model (or the one nova uses
	// for its type) the default of new sessions: default_model.
	Default bool
	// Getenv is the environment the default is resolved in (the
	// providers it defines, NOVA_MODEL); nil is an empty one.
	Getenv func(string) string
}

// AddProvider adds p to NOVA_HOME/config.json. A key already in the file
// is an *InputError; a key only the environment defines is not, and the
// file's provider then takes its place (Providers). The rest of the file,
// keys nova does not know included, is kept.
//
// Adding a provider never changes which model new sessions use unless
// o.Default says so: the first provider of config.json is the default
// when none is named, so when the new one would take that place the
// default until now is written to default_model with it. A provider that
// would replace the very provider the default uses (an environment one
// of the same key) is an *InputError unless o.Default.
func AddProvider(novaHome string, p Provider, o AddProviderOptions) error {
	if err := checkProvider(p); err != nil {
		return fmt.Errorf("add provider: %w", err)
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return editFile(novaHome, "add provider", func(f *File, providers []json.RawMessage, doc map[string]json.RawMessage) ([]json.RawMessage, error) {
		for _, have := range f.Providers {
			if have.Key == p.Key {
				return nil, inputErrorf("provider %q already exists in %s; pick another key", p.Key, filepath.Join(novaHome, "config.json"))
			}
		}
		raw, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		next := *f
		next.Providers = append(append([]Provider(nil), f.Providers...), p)
		pin, err := keepDefault(f, &next, p, o.Default, getenv)
		if err != nil {
			return nil, err
		}
		if pin != "" {
			if doc["default_model"], err = json.Marshal(pin); err != nil {
				return nil, err
			}
		}
		return append(providers, raw), nil
	})
}

// keepDefault is the default_model to write with p added (before is the
// file without it, after with it): p's own with makeDefault; the model
// new sessions use now when p would take its place; "" when nothing
// changes (or nothing worked before).
func keepDefault(before, after *File, p Provider, makeDefault bool, getenv func(string) string) (string, error) {
	if makeDefault {
		return p.Key + ":" + providerDefault(p).Model.Model, nil
	}
	was, err := Select(Providers(before, getenv), before, "", getenv)
	if err != nil {
		return "", nil // no model worked before: the new provider takes nothing from anyone
	}
	if now, err := Select(Providers(after, getenv), after, "", getenv); err == nil && sameSelection(was, now) {
		return "", nil
	}
	if after.DefaultModel == "" {
		pinned := *after
		pinned.DefaultModel = was.ID()
		if now, err := Select(Providers(&pinned, getenv), &pinned, "", getenv); err == nil && sameSelection(was, now) {
			return was.ID(), nil
		}
	}
	return "", inputErrorf("provider %q would change what new sessions use (%s, from %s): send \"default\": true to mean that, or pick another key", p.Key, was.ID(), was.Provider.Source)
}

// sameSelection reports whether a and b send requests to the same
// endpoint with the same key, for the same model.
func sameSelection(a, b Selection) bool {
	return a.ID() == b.ID() && a.Provider.Type == b.Provider.Type && a.Provider.BaseURL == b.Provider.BaseURL && a.Provider.APIKey == b.Provider.APIKey
}

// AddModel adds m to the provider with key providerKey in
// NOVA_HOME/config.json. A provider that is not in the file (an unknown
// one, or one only the environment defines) and a model the provider
// already lists are *InputErrors.
func AddModel(novaHome, providerKey string, m Model) error {
	if err := CheckModelName(m.Model); err != nil {
		return fmt.Errorf("add model: %w", &InputError{Reason: err.Error()})
	}
	return editFile(novaHome, "add model", func(f *File, providers []json.RawMessage, _ map[string]json.RawMessage) ([]json.RawMessage, error) {
		i := -1
		for j, p := range f.Providers {
			if p.Key == providerKey {
				i = j
				break
			}
		}
		if i < 0 {
			return nil, inputErrorf("provider %q is not in %s", providerKey, filepath.Join(novaHome, "config.json"))
		}
		for _, have := range f.Providers[i].Models {
			if have.Model == m.Model {
				return nil, inputErrorf("provider %q already has model %q", providerKey, m.Model)
			}
		}
		// Only this provider's entry is re-encoded; its other keys stay.
		entry := map[string]json.RawMessage{}
		if err := json.Unmarshal(providers[i], &entry); err != nil {
			return nil, err
		}
		var models []json.RawMessage
		if raw, ok := entry["models"]; ok {
			if err := json.Unmarshal(raw, &models); err != nil {
				return nil, err
			}
		}
		raw, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		if entry["models"], err = json.Marshal(append(models, raw)); err != nil {
			return nil, err
		}
		if providers[i], err = json.Marshal(entry); err != nil {
			return nil, err
		}
		return providers, nil
	})
}

// editFile rewrites the providers list of NOVA_HOME/config.json under the
// file's lock. edit gets the file as LoadFile reads it, the providers as
// written and the whole document (to set another top-level key in), and
// returns the new list. A file that cannot be read or
// does not parse is an error and is left as it is: nova never replaces a
// config it could not understand.
func editFile(novaHome, op string, edit func(*File, []json.RawMessage, map[string]json.RawMessage) ([]json.RawMessage, error)) error {
	if err := os.MkdirAll(novaHome, 0o700); err != nil {
		return fmt.Errorf("%s: create %s: %w", op, novaHome, err)
	}
	path := filepath.Join(novaHome, "config.json")
	lock := flock.New(path + ".lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("%s: lock %s: %w", op, path, err)
	}
	defer lock.Unlock()

	f := &File{}
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("%s: read %s: %w", op, path, err)
	default:
		if f, err = parseFile(path, data); err != nil {
			return fmt.Errorf("%s: %w (fix or move the file aside; nova did not change it)", op, err)
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %s is not a JSON object (fix or move it aside; nova did not change it): %w", op, path, err)
		}
	}
	var providers []json.RawMessage
	if raw, ok := doc["providers"]; ok {
		if err := json.Unmarshal(raw, &providers); err != nil {
			return fmt.Errorf("%s: %s: \"providers\" is not a list: %w", op, path, err)
		}
	}
	if len(providers) != len(f.Providers) {
		return fmt.Errorf("%s: %s: \"providers\" holds %d entries but %d parsed", op, path, len(providers), len(f.Providers))
	}
	providers, err = edit(f, providers, doc)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if doc["providers"], err = json.Marshal(providers); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: encode %s: %w", op, path, err)
	}
	if err := atomicfile.Write(path, append(out, '\n'), 0o600); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
