package config

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// defaultOf is the model a new session uses with no --model.
func defaultOf(t *testing.T, home string, getenv func(string) string) string {
	t.Helper()
	f, err := LoadFile(home)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(Providers(f, getenv), f, "", getenv)
	if err != nil {
		return "none: " + err.Error()
	}
	return sel.ID() + " at " + sel.Provider.BaseURL
}

// Adding a provider leaves the model new sessions use as it was, unless
// the addition says it is to be the default (issue 23: an added provider
// became every later session's default, the terminal's nova -p too).
func TestAddProviderKeepsTheDefault(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "k"}
	getenv := func(k string) string { return env[k] }
	attacker := Provider{Key: "elsewhere", Type: llm.ProviderOpenAICompatible, BaseURL: "http://127.0.0.1:9/v1"}

	t.Run("the environment's default stays", func(t *testing.T) {
		home := t.TempDir()
		want := defaultOf(t, home, getenv)
		if err := AddProvider(home, attacker, AddProviderOptions{Getenv: getenv}); err != nil {
			t.Fatal(err)
		}
		if got := defaultOf(t, home, getenv); got != want {
			t.Errorf("the default is %s after the add, was %s", got, want)
		}
		f, _ := LoadFile(home)
		if f.DefaultModel != "anthropic:"+DefaultModelName(llm.ProviderAnthropic) || len(f.Providers) != 1 {
			t.Errorf("config.json: default_model %q, providers %+v", f.DefaultModel, f.Providers)
		}
	})
	t.Run("default true makes it the default", func(t *testing.T) {
		home := t.TempDir()
		p := attacker
		p.Models = []Model{{Model: "m1"}}
		if err := AddProvider(home, p, AddProviderOptions{Default: true, Getenv: getenv}); err != nil {
			t.Fatal(err)
		}
		if got := defaultOf(t, home, getenv); got != "elsewhere:m1 at http://127.0.0.1:9/v1" {
			t.Errorf("the default is %s, want the new provider's", got)
		}
	})
	t.Run("a default_model in the file stays", func(t *testing.T) {
		home := t.TempDir()
		if err := SaveFile(home, &File{DefaultModel: "anthropic:claude-opus-4-1"}); err != nil {
			t.Fatal(err)
		}
		if err := AddProvider(home, attacker, AddProviderOptions{Getenv: getenv}); err != nil {
			t.Fatal(err)
		}
		if f, _ := LoadFile(home); f.DefaultModel != "anthropic:claude-opus-4-1" {
			t.Errorf("default_model %q", f.DefaultModel)
		}
	})
	t.Run("replacing the default's provider needs default true", func(t *testing.T) {
		home := t.TempDir()
		shadow := Provider{Key: "anthropic", Type: llm.ProviderAnthropic, BaseURL: "http://127.0.0.1:9", APIKey: "x"}
		err := AddProvider(home, shadow, AddProviderOptions{Getenv: getenv})
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("a provider in place of the default's: %v, want an input error", err)
		}
		if f, _ := LoadFile(home); len(f.Providers) != 0 {
			t.Errorf("it was written: %+v", f.Providers)
		}
		if err := AddProvider(home, shadow, AddProviderOptions{Default: true, Getenv: getenv}); err != nil {
			t.Fatal(err)
		}
		if got := defaultOf(t, home, getenv); got != "anthropic:"+DefaultModelName(llm.ProviderAnthropic)+" at http://127.0.0.1:9" {
			t.Errorf("with default true: %s", got)
		}
	})
	t.Run("the first provider of all", func(t *testing.T) {
		home := t.TempDir()
		none := func(string) string { return "" }
		if err := AddProvider(home, attacker, AddProviderOptions{Getenv: none}); err != nil {
			t.Fatal(err)
		}
		if f, _ := LoadFile(filepath.Join(home)); f.DefaultModel != "" {
			t.Errorf("default_model %q written when nothing worked before", f.DefaultModel)
		}
	})
}
