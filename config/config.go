// Package config reads nova's configuration: where NOVA_HOME is, the model
// providers of NOVA_HOME/config.json and the environment, and the layered
// settings files (user, project, local) that hold permission rules.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/llm"
)

// Home returns NOVA_HOME from getenv, defaulting to .nova in home, the
// user's home directory ("" when there is none).
func Home(getenv func(string) string, home string) (string, error) {
	if h := getenv("NOVA_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if home == "" {
		return "", errors.New("no home directory to keep ~/.nova in: set HOME, or NOVA_HOME to the directory nova should use")
	}
	return filepath.Join(home, ".nova"), nil
}

// File is the content of NOVA_HOME/config.json.
type File struct {
	Providers []Provider `json:"providers"`
	// DefaultModel is "provider:model", used when --model is not given.
	DefaultModel string `json:"default_model,omitempty"`
	// Timeouts bound waits on every provider; zero fields keep the defaults.
	Timeouts Timeouts `json:"timeouts,omitempty"`
	// Prices override nova's price table, keyed by "provider:model" or a
	// model's name (see PriceOf).
	Prices map[string]Price `json:"prices,omitempty"`
}

// Timeouts of provider connections, in milliseconds.
type Timeouts struct {
	ConnectMS   int `json:"connect_ms,omitempty"`
	FirstByteMS int `json:"first_byte_ms,omitempty"`
	IdleMS      int `json:"idle_ms,omitempty"`
}

// Provider is one configured model provider (seed 000's ProviderCreateRequest
// plus its models).
type Provider struct {
	Key     string           `json:"key"`
	Type    llm.ProviderType `json:"type"`
	Name    string           `json:"name,omitempty"`
	BaseURL string           `json:"base_url,omitempty"`
	APIKey  string           `json:"api_key,omitempty"`
	Models  []Model          `json:"models,omitempty"`
	// Source says where the provider came from ("config.json", "ANTHROPIC_API_KEY").
	Source string `json:"-"`
}

// Model is one model of a provider (seed 000's ModelCreateRequest).
type Model struct {
	Model string `json:"model"`
	Label string `json:"label,omitempty"`
	// Tools says whether the model can call tools; nil means true.
	Tools *bool `json:"tools,omitempty"`
	// ToolCalling is accepted as a synonym of Tools (seed 000).
	ToolCalling *bool `json:"toolCalling,omitempty"`
	// ContextWindow and MaxOutput are in tokens; 0 means a default for the model.
	ContextWindow int `json:"context_window,omitempty"`
	MaxOutput     int `json:"max_output,omitempty"`
	// ThinkingBudget turns on extended thinking with that many tokens for
	// models that support it; 0 means off (MAX_THINKING_TOKENS overrides).
	ThinkingBudget int `json:"thinking_budget,omitempty"`
	// Price is what the model costs; nil leaves it to the file's prices
	// and nova's table (see PriceOf).
	Price *Price `json:"price,omitempty"`
}

// CanUseTools reports whether the model calls tools.
func (m Model) CanUseTools() bool {
	if m.Tools != nil {
		return *m.Tools
	}
	if m.ToolCalling != nil {
		return *m.ToolCalling
	}
	return true
}

// DeclaresTools reports whether the model's config sets tools or
// toolCalling to true: seed 000's rule for the tools field of GET
// /api/models. It differs from CanUseTools, which also says true when
// neither is set (the agent gives such a model its tools).
func (m Model) DeclaresTools() bool {
	return (m.Tools != nil && *m.Tools) || (m.ToolCalling != nil && *m.ToolCalling)
}

// ValidProviderType reports whether t is one of the four provider types.
func ValidProviderType(t llm.ProviderType) bool {
	switch t {
	case llm.ProviderAnthropic, llm.ProviderOpenAIResponse, llm.ProviderOpenAICompatible, llm.ProviderOllama:
		return true
	}
	return false
}

// LoadFile reads NOVA_HOME/config.json; a missing file is an empty config.
func LoadFile(novaHome string) (*File, error) {
	path := filepath.Join(novaHome, "config.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return parseFile(path, data)
}

// parseFile decodes and checks the config.json read from path.
func parseFile(path string, data []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("parse %s: %s", path, describeJSONError(data, err))
	}
	for i, p := range f.Providers {
		if p.Key == "" {
			return nil, fmt.Errorf("%s: provider %d has no key", path, i+1)
		}
		if !ValidProviderType(p.Type) {
			return nil, fmt.Errorf("%s: provider %q has type %q; want anthropic, openai-response, openai-compatible or ollama", path, p.Key, p.Type)
		}
		f.Providers[i].Source = path
	}
	return &f, nil
}

// SaveFile writes f to NOVA_HOME/config.json atomically, readable only by
// the user since it may hold API keys.
func SaveFile(novaHome string, f *File) error {
	if err := os.MkdirAll(novaHome, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", novaHome, err)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	return atomicfile.Write(filepath.Join(novaHome, "config.json"), append(data, '\n'), 0o600)
}

// describeJSONError turns a json error into "line L, column C: reason".
func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err.Error()
	}
	line, col := LineCol(data, off)
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

// LineCol converts a byte offset of data into a 1-based line and column.
func LineCol(data []byte, off int64) (int, int) {
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// Providers merges the providers of config.json with those the environment
// defines. A config.json provider wins over an environment one of the same
// key. config.json's come first, in file order, then the environment's.
func Providers(f *File, getenv func(string) string) []Provider {
	out := append([]Provider(nil), f.Providers...)
	have := map[string]bool{}
	for _, p := range out {
		have[p.Key] = true
	}
	var env []Provider
	if key := getenv("ANTHROPIC_API_KEY"); key != "" || getenv("ANTHROPIC_BASE_URL") != "" {
		env = append(env, Provider{Key: "anthropic", Type: llm.ProviderAnthropic, Name: "Anthropic", APIKey: key, BaseURL: getenv("ANTHROPIC_BASE_URL"), Source: "ANTHROPIC_API_KEY"})
	}
	if key, base := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL"); key != "" || base != "" {
		p := Provider{Key: "openai", Type: llm.ProviderOpenAIResponse, Name: "OpenAI", APIKey: key, BaseURL: base, Source: "OPENAI_API_KEY"}
		if base != "" && !strings.Contains(base, "api.openai.com") {
			// Any other server speaks chat completions; few implement Responses.
			p.Type, p.Name, p.Source = llm.ProviderOpenAICompatible, "OpenAI-compatible ("+base+")", "OPENAI_BASE_URL"
		}
		env = append(env, p)
	}
	if host := getenv("OLLAMA_HOST"); host != "" {
		env = append(env, Provider{Key: "ollama", Type: llm.ProviderOllama, Name: "Ollama", BaseURL: ollamaURL(host), Source: "OLLAMA_HOST"})
	}
	for _, p := range env {
		if !have[p.Key] {
			out = append(out, p)
		}
	}
	return out
}

// ProviderEnv are the environment variables Providers reads: what a nova
// that nova starts (a teammate) needs to reach the same providers.
func ProviderEnv() []string {
	return []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST"}
}

// CredentialEnv are the variables of ProviderEnv that hold keys: nova's
// own credentials, which no command it starts inherits (tools.EnvPolicy).
func CredentialEnv() []string { return []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"} }

// Secrets are the credentials provs hold, as values: each key, and each
// base URL that carries credentials (https://user:token@host). A variable
// holding one of them is nova's credential whatever its name.
func Secrets(provs []Provider) []string {
	var out []string
	for _, p := range provs {
		if p.APIKey != "" {
			out = append(out, p.APIKey)
		}
		if u, err := url.Parse(p.BaseURL); err == nil && u.User != nil {
			out = append(out, p.BaseURL)
		}
	}
	return out
}

// ollamaURL turns OLLAMA_HOST ("127.0.0.1:11434", "http://host:port") into
// the base URL of its OpenAI-compatible API.
func ollamaURL(host string) string {
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	return strings.TrimSuffix(host, "/") + "/v1"
}

// ClaudeHome is Claude Code's own directory of the user: CLAUDE_CONFIG_DIR
// from getenv when set (Claude Code moves its settings.json, CLAUDE.md,
// skills, commands, agents, rules, plugins and .claude.json there), else
// .claude in home; "" when there is neither. It is the one place that
// reads CLAUDE_CONFIG_DIR, so every reader of Claude Code's files agrees
// on where they are.
func ClaudeHome(getenv func(string) string, home string) string {
	if getenv != nil {
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			if abs, err := filepath.Abs(expandDir(d, "", home)); err == nil {
				return abs
			}
			return d
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}
