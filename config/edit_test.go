package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

func TestAddProviderAndModel(t *testing.T) {
	home := t.TempDir()
	if err := AddProvider(home, Provider{Key: "local", Type: llm.ProviderOllama, Name: "Ollama (local)", BaseURL: "http://127.0.0.1:11434/v1"}, AddProviderOptions{}); err != nil {
		t.Fatal(err)
	}
	yes := true
	if err := AddModel(home, "local", Model{Model: "qwen2.5-coder:32b", Label: "Qwen", Tools: &yes}); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFile(home)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Providers[0]
	if len(f.Providers) != 1 || p.Key != "local" || p.Name != "Ollama (local)" || len(p.Models) != 1 || p.Models[0].Label != "Qwen" || !p.Models[0].DeclaresTools() {
		t.Errorf("config = %+v", f)
	}
	st, _ := os.Stat(filepath.Join(home, "config.json"))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("config.json mode %v, want 0600", st.Mode().Perm())
	}

	var ie *InputError
	for name, err := range map[string]error{
		"duplicate provider": AddProvider(home, Provider{Key: "local", Type: llm.ProviderOllama}, AddProviderOptions{}),
		"bad key":            AddProvider(home, Provider{Key: "a:b", Type: llm.ProviderOllama}, AddProviderOptions{}),
		"empty key":          AddProvider(home, Provider{Type: llm.ProviderOllama}, AddProviderOptions{}),
		"bad type":           AddProvider(home, Provider{Key: "g", Type: "gemini"}, AddProviderOptions{}),
		"bad base_url":       AddProvider(home, Provider{Key: "g", Type: llm.ProviderOllama, BaseURL: "localhost:11434"}, AddProviderOptions{}),
		"unknown provider":   AddModel(home, "nope", Model{Model: "m"}),
		"duplicate model":    AddModel(home, "local", Model{Model: "qwen2.5-coder:32b"}),
		"empty model":        AddModel(home, "local", Model{}),
		"model with spaces":  AddModel(home, "local", Model{Model: " m"}),
	} {
		if !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an InputError", name, err)
		}
	}
}

func TestAddKeepsWhatNovaDoesNotKnow(t *testing.T) {
	home := t.TempDir()
	orig := `{
  "default_model": "w:m",
  "theme": {"dark": true},
  "providers": [
    {"key": "w", "type": "ollama", "x-note": "mine", "models": [{"model": "m", "x-extra": 1}]}
  ]
}`
	os.WriteFile(filepath.Join(home, "config.json"), []byte(orig), 0o600)
	if err := AddModel(home, "w", Model{Model: "n"}); err != nil {
		t.Fatal(err)
	}
	if err := AddProvider(home, Provider{Key: "z", Type: llm.ProviderAnthropic}, AddProviderOptions{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(home, "config.json"))
	var doc struct {
		DefaultModel string         `json:"default_model"`
		Theme        map[string]any `json:"theme"`
		Providers    []map[string]any
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.DefaultModel != "w:m" || doc.Theme["dark"] != true || len(doc.Providers) != 2 || doc.Providers[0]["x-note"] != "mine" {
		t.Errorf("config.json = %s", data)
	}
	models := doc.Providers[0]["models"].([]any)
	if len(models) != 2 || models[0].(map[string]any)["x-extra"] != 1.0 {
		t.Errorf("models = %v", models)
	}
}

func TestAddLeavesABrokenFileAlone(t *testing.T) {
	for _, body := range []string{"{", `{"providers": [{"key": "x", "type": "gemini"}]}`, `[]`, ``} {
		home := t.TempDir()
		path := filepath.Join(home, "config.json")
		os.WriteFile(path, []byte(body), 0o600)
		err := AddProvider(home, Provider{Key: "ok", Type: llm.ProviderOllama}, AddProviderOptions{})
		var ie *InputError
		if err == nil || errors.As(err, &ie) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: err = %v, want a file error naming %s", body, err, path)
		}
		if data, _ := os.ReadFile(path); string(data) != body {
			t.Errorf("%q: file rewritten to %q", body, data)
		}
	}
}

func TestAddConcurrent(t *testing.T) {
	home := t.TempDir()
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- AddProvider(home, Provider{Key: fmt.Sprintf("p%d", i), Type: llm.ProviderOllama}, AddProviderOptions{})
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		go func() {
			errs <- AddModel(home, "p0", Model{Model: fmt.Sprintf("m%d", i)})
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	f, err := LoadFile(home)
	if err != nil || len(f.Providers) != n {
		t.Fatalf("after %d concurrent adds: %v, %d providers", n, err, len(f.Providers))
	}
	for _, p := range f.Providers {
		if want := map[bool]int{true: n, false: 0}[p.Key == "p0"]; len(p.Models) != want {
			t.Errorf("provider %s has %d models, want %d", p.Key, len(p.Models), want)
		}
	}
}

func TestDeclaresTools(t *testing.T) {
	yes, no := true, false
	for _, tt := range []struct {
		m        Model
		declares bool
		canUse   bool
	}{
		{Model{}, false, true},
		{Model{Tools: &yes}, true, true},
		{Model{ToolCalling: &yes}, true, true},
		{Model{Tools: &no}, false, false},
		{Model{Tools: &no, ToolCalling: &yes}, true, false},
	} {
		if tt.m.DeclaresTools() != tt.declares || tt.m.CanUseTools() != tt.canUse {
			t.Errorf("%+v: DeclaresTools %v CanUseTools %v", tt.m, tt.m.DeclaresTools(), tt.m.CanUseTools())
		}
	}
}
