package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestProvidersFromEnvironment(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string // key/type
	}{
		{"nothing", nil, nil},
		{"anthropic", map[string]string{"ANTHROPIC_API_KEY": "k"}, []string{"anthropic/anthropic"}},
		{"openai official", map[string]string{"OPENAI_API_KEY": "k"}, []string{"openai/openai-response"}},
		{"openai compatible", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1234/v1"}, []string{"openai/openai-compatible"}},
		{"openai base on api.openai.com", map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "https://api.openai.com/v1"}, []string{"openai/openai-response"}},
		{"ollama", map[string]string{"OLLAMA_HOST": "127.0.0.1:11434"}, []string{"ollama/ollama"}},
		{"all", map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "OLLAMA_HOST": "h:1"}, []string{"anthropic/anthropic", "openai/openai-response", "ollama/ollama"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Providers(&File{}, envOf(tt.env)) {
				got = append(got, p.Key+"/"+string(p.Type))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	p := Providers(&File{}, envOf(map[string]string{"OLLAMA_HOST": "127.0.0.1:11434"}))[0]
	if p.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Errorf("ollama base URL = %q", p.BaseURL)
	}
}

func TestConfigFileWinsOverEnvironment(t *testing.T) {
	f := &File{Providers: []Provider{{Key: "anthropic", Type: llm.ProviderAnthropic, APIKey: "from-file"}}}
	ps := Providers(f, envOf(map[string]string{"ANTHROPIC_API_KEY": "from-env"}))
	if len(ps) != 1 || ps[0].APIKey != "from-file" {
		t.Errorf("providers = %+v", ps)
	}
}

// TestSecrets: the values nova holds as credentials are the keys of
// config.json and of the environment, and a base URL that carries
// credentials; an ordinary base URL is not one.
func TestSecrets(t *testing.T) {
	f := &File{Providers: []Provider{
		{Key: "work", Type: llm.ProviderOpenAICompatible, APIKey: "sk-config-key", BaseURL: "https://proxy.example/v1"},
		{Key: "gate", Type: llm.ProviderAnthropic, BaseURL: "https://user:pass@gate.example"},
		{Key: "local", Type: llm.ProviderOllama, BaseURL: "http://127.0.0.1:11434/v1"},
	}}
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-env", "OPENAI_BASE_URL": "https://tok@openai-proxy.example/v1"}
	got := Secrets(Providers(f, envOf(env)))
	want := []string{"sk-config-key", "https://user:pass@gate.example", "sk-ant-env", "https://tok@openai-proxy.example/v1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Secrets = %q, want %q", got, want)
	}
	for _, name := range CredentialEnv() {
		if !strings.Contains(strings.Join(ProviderEnv(), " "), name) {
			t.Errorf("credential variable %s is not among the provider variables a teammate is given", name)
		}
	}
}

func TestSelect(t *testing.T) {
	ps := []Provider{
		{Key: "anthropic", Type: llm.ProviderAnthropic},
		{Key: "local", Type: llm.ProviderOpenAICompatible, Models: []Model{{Model: "qwen"}}},
	}
	// The default is what the sonnet alias names: one table for both.
	sonnet, _ := AliasModel(llm.ProviderAnthropic, "sonnet")
	tests := []struct {
		choice, novaModel, def string
		want                   string
		wantErr                string
	}{
		{want: "anthropic:" + sonnet},
		{choice: "local:qwen", want: "local:qwen"},
		{choice: "anthropic:claude-opus-4-1", want: "anthropic:claude-opus-4-1"},
		{choice: "qwen", want: "local:qwen"},
		{choice: "mistral", want: "local:mistral"},
		{choice: "llama3:8b", want: "local:llama3:8b"},
		{novaModel: "local:qwen", want: "local:qwen"},
		{def: "local:qwen", want: "local:qwen"},
		{choice: "anthropic:claude-haiku-4-5", novaModel: "local:qwen", want: "anthropic:claude-haiku-4-5"},
		{choice: "sonnet", want: "anthropic:claude-sonnet-5-5"},
		{choice: "anthropic:opus", want: "anthropic:claude-opus-5-5"},
		{choice: "claude-sonnet-4-5-20250929", want: "anthropic:claude-sonnet-4-5-20250929"},
		{choice: "local:", want: "local:qwen"},
		{choice: "anthropic:", want: "anthropic:" + sonnet},
	}
	for _, tt := range tests {
		sel, err := Select(ps, &File{DefaultModel: tt.def}, tt.choice, envOf(map[string]string{"NOVA_MODEL": tt.novaModel}))
		if err != nil {
			t.Errorf("%+v: %v", tt, err)
			continue
		}
		if sel.ID() != tt.want {
			t.Errorf("%+v: got %s", tt, sel.ID())
		}
	}
	if _, err := Select(ps[:1], &File{}, "nosuch:model", envOf(nil)); err == nil || !strings.Contains(err.Error(), `no provider "nosuch"`) {
		t.Errorf("unknown provider: err = %v", err)
	}
	if _, err := Select(nil, &File{}, "", envOf(nil)); !errors.Is(err, ErrNoProvider) {
		t.Errorf("no providers: err = %v", err)
	}
	sel, _ := Select([]Provider{{Key: "openai", Type: llm.ProviderOpenAICompatible}}, &File{}, "", envOf(nil))
	if sel.Model.Model != "" {
		t.Errorf("compatible server got default model %q; it has none", sel.Model.Model)
	}
}

func TestLoadFile(t *testing.T) {
	home := t.TempDir()
	f, err := LoadFile(home)
	if err != nil || len(f.Providers) != 0 {
		t.Fatalf("missing file: %v %+v", err, f)
	}
	want := &File{DefaultModel: "w:m", Providers: []Provider{{Key: "w", Type: llm.ProviderOllama, Models: []Model{{Model: "m", ContextWindow: 4096}}}}}
	if err := SaveFile(home, want); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(home, "config.json"))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("config.json mode %v, want 0600", st.Mode().Perm())
	}
	got, err := LoadFile(home)
	if err != nil || got.Providers[0].Models[0].ContextWindow != 4096 || got.DefaultModel != "w:m" {
		t.Fatalf("round trip: %v %+v", err, got)
	}

	bad := []struct{ body, want string }{
		{"{\n  \"providers\": [\n    {\"key\": \"x\",}\n  ]\n}", "line 3"},
		{`{"providers":[{"key":"x","type":"gemini"}]}`, `type "gemini"`},
		{`{"providers":[{"type":"ollama"}]}`, "has no key"},
	}
	for _, b := range bad {
		if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(b.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadFile(home); err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), "config.json") {
			t.Errorf("%q: err = %v, want it to name the file and %q", b.body, err, b.want)
		}
	}
}

func TestModelLimitsAndKeyHints(t *testing.T) {
	w, o := Model{Model: "claude-sonnet-4-5"}.Limits()
	if w != 200_000 || o != 16_384 {
		t.Errorf("claude limits = %d/%d", w, o)
	}
	w, o = Model{Model: "x", ContextWindow: 8000, MaxOutput: 1000}.Limits()
	if w != 8000 || o != 1000 {
		t.Errorf("configured limits = %d/%d", w, o)
	}
	cfg := Provider{Key: "work", Source: "/h/config.json"}.ProviderConfig(Timeouts{ConnectMS: 1500})
	if !strings.Contains(cfg.KeyHint, `provider "work"`) || cfg.ConnectTimeout.Milliseconds() != 1500 {
		t.Errorf("config = %+v", cfg)
	}
}

func TestHome(t *testing.T) {
	h, _ := Home(envOf(map[string]string{"NOVA_HOME": "/x/nova"}), "/home/u")
	if h != "/x/nova" {
		t.Errorf("NOVA_HOME: %s", h)
	}
	h, _ = Home(envOf(nil), "/home/u")
	if h != "/home/u/.nova" {
		t.Errorf("default: %s", h)
	}
	// The home directory is what the caller says, never the environment's HOME.
	h, _ = Home(envOf(map[string]string{"HOME": "/elsewhere"}), "/home/u")
	if h != "/home/u/.nova" {
		t.Errorf("HOME in the environment: %s", h)
	}
	if _, err := Home(envOf(nil), ""); err == nil || !strings.Contains(err.Error(), "NOVA_HOME") {
		t.Errorf("no home: %v, want an error naming NOVA_HOME", err)
	}
}
