package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/atomicfile"
)

// MainAgentKey is the key of the agent that always exists.
const MainAgentKey = "main"

// MainAgentName is the main agent's name.
const MainAgentName = "Nova"

// mainAgentDescription is the main agent's description.
const mainAgentDescription = "The default agent: nova with every tool, in the session's workspace."

// Errors of the agent store.
var (
	// ErrAgentNotFound is returned for a key no agent has.
	ErrAgentNotFound = errors.New("agent not found")
	// ErrAgentExists is returned when creating an agent whose key is taken.
	ErrAgentExists = errors.New("agent already exists")
	// ErrMainAgent is returned when deleting the main agent.
	ErrMainAgent = errors.New("the main agent cannot be deleted")
)

// ValidAgentKey reports whether key has the shape of an agent key: 3 to 32
// lower-case letters, digits and hyphens. A valid key is also a safe
// directory name under NOVA_HOME/agents.
// (Spelled out rather than as a regexp: a counted repeat compiles to a
// program of its count's size, at every start.)
func ValidAgentKey(key string) bool {
	if len(key) < 3 || len(key) > 32 {
		return false
	}
	for _, c := range []byte(key) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Agent is one agent definition, NOVA_HOME/agents/<key>/agent.json, in the
// shape seed 000's agent endpoints show.
type Agent struct {
	Key         string `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Model and Provider are the model the agent runs by default: a model
	// key of the provider with key Provider.
	Model    string `json:"model"`
	Provider string `json:"provider"`
	// Tools names the tools the agent may use; nil means every tool.
	Tools []string `json:"tools"`
	// WorkspaceDir is where the agent's sessions work unless a request
	// names another; nil means the server's workspace.
	WorkspaceDir *string `json:"workspace_dir"`
	// ParentIDs are the keys of the agents this one was derived from.
	ParentIDs []string `json:"parent_ids"`
}

// AgentStore keeps agent definitions in NOVA_HOME/agents, one directory
// per agent. Changes are made under NOVA_HOME/agents/.lock and each file
// is written atomically, so several nova processes can share the store.
// It holds no state of its own beyond where things are.
type AgentStore struct {
	novaHome string
	getenv   func(string) string
}

// NewAgentStore returns the store of novaHome. getenv (os.Getenv in the
// product) is what the main agent's default model is resolved with, as
// nova resolves it when no --model is given (Select).
func NewAgentStore(novaHome string, getenv func(string) string) *AgentStore {
	return &AgentStore{novaHome: novaHome, getenv: getenv}
}

// Dir is the directory of the agent with key.
func (s *AgentStore) Dir(key string) string { return filepath.Join(s.novaHome, "agents", key) }

func (s *AgentStore) file(key string) string { return filepath.Join(s.Dir(key), "agent.json") }

// List returns every agent: main first, then the others by key.
func (s *AgentStore) List() ([]Agent, error) {
	main, err := s.Get(MainAgentKey)
	if err != nil {
		return nil, err
	}
	others, err := s.Others()
	if err != nil {
		return nil, err
	}
	return append([]Agent{main}, others...), nil
}

// Others returns the agents other than main, by key: the ones derived
// from it, which are the Agent tool's types too. It resolves no model,
// so it reads nothing but the store.
func (s *AgentStore) Others() ([]Agent, error) {
	var out []Agent
	entries, err := os.ReadDir(filepath.Join(s.novaHome, "agents"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	var keys []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != MainAgentKey && ValidAgentKey(e.Name()) {
			keys = append(keys, e.Name())
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		a, err := s.read(k)
		if errors.Is(err, ErrAgentNotFound) {
			continue // a directory without agent.json is no agent
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// Get returns the agent with key, or ErrAgentNotFound. The main agent
// always exists: its model and provider are those stored for it (PATCH),
// else the default selection of config.json and the environment, else
// empty when no provider is configured.
func (s *AgentStore) Get(key string) (Agent, error) {
	if !ValidAgentKey(key) {
		return Agent{}, fmt.Errorf("agent %q: %w", key, ErrAgentNotFound)
	}
	a, err := s.read(key)
	if key != MainAgentKey || err == nil {
		return a, err
	}
	if !errors.Is(err, ErrAgentNotFound) {
		return Agent{}, err
	}
	return s.defaultMain()
}

// defaultMain is the main agent when nothing is stored for it.
func (s *AgentStore) defaultMain() (Agent, error) {
	a := Agent{Key: MainAgentKey, Name: MainAgentName, Description: mainAgentDescription}
	f, err := LoadFile(s.novaHome)
	if err != nil {
		return Agent{}, fmt.Errorf("main agent: %w", err)
	}
	sel, err := Select(Providers(f, s.getenv), f, "", s.getenv)
	if errors.Is(err, ErrNoProvider) {
		return a, nil
	}
	if err != nil {
		return Agent{}, fmt.Errorf("main agent: %w", err)
	}
	a.Provider, a.Model = sel.Provider.Key, sel.Model.Model
	return a, nil
}

// read loads agent.json of key; a missing one is ErrAgentNotFound.
func (s *AgentStore) read(key string) (Agent, error) {
	path := s.file(key)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Agent{}, fmt.Errorf("agent %q: %w", key, ErrAgentNotFound)
	}
	if err != nil {
		return Agent{}, fmt.Errorf("read agent %q: %w", key, err)
	}
	var a Agent
	if err := json.Unmarshal(data, &a); err != nil {
		return Agent{}, fmt.Errorf("agent file %s: %s (fix or remove it)", path, describeJSONError(data, err))
	}
	a.Key = key // the directory names the agent
	if key == MainAgentKey {
		a.Name = MainAgentName
		if a.Description == "" {
			a.Description = mainAgentDescription
		}
	}
	return a, nil
}

// Create saves a new agent and its directory. The key must be valid and
// free (the main agent's included: ErrAgentExists); name, model and
// provider are required.
func (s *AgentStore) Create(a Agent) (Agent, error) {
	if err := checkAgent(a); err != nil {
		return Agent{}, fmt.Errorf("create agent: %w", err)
	}
	if a.Key == MainAgentKey {
		return Agent{}, fmt.Errorf("create agent %q: %w", a.Key, ErrAgentExists)
	}
	err := s.locked(func() error {
		if _, err := s.read(a.Key); err == nil {
			return fmt.Errorf("agent %q: %w", a.Key, ErrAgentExists)
		} else if !errors.Is(err, ErrAgentNotFound) {
			return err
		}
		if err := os.MkdirAll(s.Dir(a.Key), 0o700); err != nil {
			return err
		}
		return s.write(a)
	})
	if err != nil {
		return Agent{}, fmt.Errorf("create agent: %w", err)
	}
	return a, nil
}

// SetModel changes the model and provider of the agent with key, or
// returns ErrAgentNotFound. Setting the main agent's stores it, so it no
// longer follows the configured default.
func (s *AgentStore) SetModel(key, provider, model string) (Agent, error) {
	if strings.TrimSpace(provider) == "" || strings.TrimSpace(model) == "" {
		return Agent{}, fmt.Errorf("set model of agent %q: %w", key, &InputError{Reason: "model and provider are both required"})
	}
	var a Agent
	err := s.locked(func() error {
		var err error
		if a, err = s.Get(key); err != nil {
			return err
		}
		a.Provider, a.Model = provider, model
		if err := os.MkdirAll(s.Dir(key), 0o700); err != nil {
			return err
		}
		return s.write(a)
	})
	if err != nil {
		return Agent{}, fmt.Errorf("set model of agent %q: %w", key, err)
	}
	return a, nil
}

// Delete removes the agent with key and its directory: ErrMainAgent for
// the main agent, ErrAgentNotFound for a key no agent has.
func (s *AgentStore) Delete(key string) error {
	if key == MainAgentKey {
		return fmt.Errorf("delete agent: %w", ErrMainAgent)
	}
	if !ValidAgentKey(key) {
		return fmt.Errorf("delete agent %q: %w", key, ErrAgentNotFound)
	}
	err := s.locked(func() error {
		// Only agent.json's existence counts: an agent whose file no
		// longer parses can still be deleted.
		if _, err := os.Lstat(s.file(key)); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("agent %q: %w", key, ErrAgentNotFound)
		} else if err != nil {
			return err
		}
		return os.RemoveAll(s.Dir(key))
	})
	if err != nil {
		return fmt.Errorf("delete agent %q: %w", key, err)
	}
	return nil
}

// checkAgent returns why a cannot be created, or nil.
func checkAgent(a Agent) error {
	switch {
	case !ValidAgentKey(a.Key):
		return &InputError{Reason: fmt.Sprintf("key %q is not an agent key: use 3 to 32 lower-case letters, digits or '-' (^[a-z0-9-]{3,32}$)", a.Key)}
	case strings.TrimSpace(a.Name) == "":
		return &InputError{Reason: "name is required"}
	case strings.TrimSpace(a.Model) == "":
		return &InputError{Reason: "model is required"}
	case strings.TrimSpace(a.Provider) == "":
		return &InputError{Reason: "provider is required"}
	}
	return nil
}

// write saves a as agent.json in its directory, atomically.
func (s *AgentStore) write(a Agent) error {
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("encode agent %q: %w", a.Key, err)
	}
	return atomicfile.Write(s.file(a.Key), append(data, '\n'), 0o600)
}

// locked runs fn under the store's lock.
func (s *AgentStore) locked(fn func() error) error {
	dir := filepath.Join(s.novaHome, "agents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	lock := flock.New(filepath.Join(dir, ".lock"))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", dir, err)
	}
	defer lock.Unlock()
	return fn()
}
