package remote

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
)

// getenv reads the server's environment (Options.Getenv).
func (s *Server) getenv(key string) string {
	if s.o.Getenv != nil {
		return s.o.Getenv(key)
	}
	return os.Getenv(key)
}

// ModelInfo is one model of GET /api/models.
type ModelInfo struct {
	// ID is "provider_key:model_key".
	ID           string `json:"id"`
	Provider     string `json:"provider"`
	ProviderName string `json:"provider_name"`
	Model        string `json:"model"`
	Label        string `json:"label"`
	// Tools is true when the model's config sets tools or toolCalling
	// to true (config.Model.DeclaresTools).
	Tools bool `json:"tools"`
	// Name is the model as the terminal's /model names it: its label in
	// config.json, else nova's name for a model it knows ("Claude Sonnet
	// 4.5"), else its id (nova's field, beside seed 000's).
	Name string `json:"name"`
	// Alias is the family alias that names the model ("sonnet"), if any.
	Alias string `json:"alias,omitempty"`
	// ContextWindow is the model's context window in tokens.
	ContextWindow int `json:"context_window,omitempty"`
}

// ModelListResponse is the answer of GET /api/models and of the two
// configuration endpoints.
type ModelListResponse struct {
	Items []ModelInfo `json:"items"`
}

// ProviderInfo is one provider of GET /api/providers.
type ProviderInfo struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// ProviderListResponse is the answer of GET /api/providers.
type ProviderListResponse struct {
	Items []ProviderInfo `json:"items"`
}

// ProviderCreateRequest is the body of POST /api/config/providers.
type ProviderCreateRequest struct {
	Key     string `json:"key"`
	Type    string `json:"type"`
	Name    string `json:"name"`
	BaseURL string `json:"base_url"`
	APIKey  string `json:"api_key"`
	// Default makes the provider's model the default of new sessions
	// (config.json's default_model); without it the default stays as it
	// was (nova's own field, beside seed 000's).
	Default bool `json:"default"`
}

// ModelCreateRequest is the body of POST /api/config/models.
type ModelCreateRequest struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Label defaults to Model.
	Label string `json:"label"`
	// Tools defaults to true.
	Tools *bool `json:"tools"`
}

// providers returns the configured providers: config.json's, then the
// environment's (config.Providers).
func (s *Server) providers() ([]config.Provider, error) {
	f, err := config.LoadFile(s.o.NovaHome)
	if err != nil {
		return nil, err
	}
	return config.Providers(f, s.getenv), nil
}

// providerName is a provider's name, its key when it has none.
func providerName(p config.Provider) string {
	if p.Name != "" {
		return p.Name
	}
	return p.Key
}

// modelList is the one model list every frontend offers
// (live.KnownModels: what the terminal's /model and the SDK's initialize
// list): every model of config.json, and the current models nova knows
// of each Anthropic and OpenAI provider, configured or from the
// environment. A provider that hosts whatever it serves (Ollama, other
// OpenAI-compatible servers) shows the models config.json gives it.
func (s *Server) modelList() (ModelListResponse, error) {
	file, err := config.LoadFile(s.o.NovaHome)
	if err != nil {
		return ModelListResponse{}, err
	}
	ps := config.Providers(file, s.getenv)
	byKey := map[string]config.Provider{}
	for _, p := range ps {
		if _, ok := byKey[p.Key]; !ok {
			byKey[p.Key] = p
		}
	}
	// The model a new session would take (NOVA_MODEL, default_model, the
	// first provider's default) is listed when no list has it, as the
	// terminal's /model lists the one in use.
	current := ""
	if sel, err := config.Select(ps, file, "", s.getenv); err == nil {
		current = sel.ID()
	}
	noEnv := func(string) string { return "" }
	out := ModelListResponse{Items: []ModelInfo{}}
	for _, id := range live.KnownModels(s.o.NovaHome, s.getenv, current) {
		key, name, _ := strings.Cut(id, ":")
		p := byKey[key]
		sel, err := config.Select(ps, file, id, noEnv)
		if err != nil {
			// Listed but not selectable: shown as the list names it, so
			// the picker and a switch's 400 agree on what there is.
			sel = config.Selection{Provider: p, Model: config.Model{Model: name}}
		}
		e := config.Describe(file, sel)
		label := sel.Model.Label
		if label == "" {
			label = sel.Model.Model
		}
		out.Items = append(out.Items, ModelInfo{
			ID: id, Provider: key, ProviderName: providerName(p),
			Model: sel.Model.Model, Label: label, Tools: sel.Model.DeclaresTools(),
			Name: e.Name, Alias: e.Alias, ContextWindow: e.ContextWindow,
		})
	}
	return out, nil
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	list, err := s.modelList()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) handleProviders(w http.ResponseWriter, r *http.Request) {
	ps, err := s.providers()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := ProviderListResponse{Items: []ProviderInfo{}}
	for _, p := range ps {
		out.Items = append(out.Items, ProviderInfo{Key: p.Key, Name: providerName(p), Type: string(p.Type)})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleAddProvider(w http.ResponseWriter, r *http.Request) {
	var req ProviderCreateRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	p := config.Provider{Key: req.Key, Type: llm.ProviderType(req.Type), Name: req.Name, BaseURL: req.BaseURL, APIKey: req.APIKey}
	if err := config.AddProvider(s.o.NovaHome, p, config.AddProviderOptions{Default: req.Default, Getenv: s.getenv}); err != nil {
		writeConfigError(w, err)
		return
	}
	s.writeModelList(w)
}

func (s *Server) handleAddModel(w http.ResponseWriter, r *http.Request) {
	var req ModelCreateRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	if req.Provider == "" {
		writeError(w, http.StatusBadRequest, "provider is required")
		return
	}
	if err := config.CheckModelName(req.Model); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	f, err := config.LoadFile(s.o.NovaHome)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if _, inFile := findProvider(f.Providers, req.Provider); !inFile {
		ps := config.Providers(f, s.getenv)
		if p, ok := findProvider(ps, req.Provider); ok {
			// Writing an entry for it would either copy the environment's
			// API key into the file or shadow it with an entry that has none.
			writeError(w, http.StatusBadRequest, fmt.Sprintf("provider %q comes from the environment (%s), not from config.json: add it with POST /api/config/providers first, then add models to it", p.Key, p.Source))
			return
		}
		writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown provider %q (configured: %s)", req.Provider, providerKeys(ps)))
		return
	}
	tools := true
	if req.Tools != nil {
		tools = *req.Tools
	}
	m := config.Model{Model: req.Model, Tools: &tools}
	if req.Label != req.Model {
		m.Label = req.Label // an empty label shows the model key
	}
	if err := config.AddModel(s.o.NovaHome, req.Provider, m); err != nil {
		writeConfigError(w, err)
		return
	}
	s.writeModelList(w)
}

// writeModelList answers with the models as they are now.
func (s *Server) writeModelList(w http.ResponseWriter) {
	list, err := s.modelList()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "saved, but listing the models failed: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// writeConfigError answers an error of a config change: 400 for what was
// asked (config.InputError), 500 for the files.
func writeConfigError(w http.ResponseWriter, err error) {
	var ie *config.InputError
	if errors.As(err, &ie) {
		writeError(w, http.StatusBadRequest, ie.Reason)
		return
	}
	writeError(w, http.StatusInternalServerError, err.Error())
}

func findProvider(ps []config.Provider, key string) (config.Provider, bool) {
	for _, p := range ps {
		if p.Key == key {
			return p, true
		}
	}
	return config.Provider{}, false
}

func providerKeys(ps []config.Provider) string {
	if len(ps) == 0 {
		return "none"
	}
	keys := make([]string, len(ps))
	for i, p := range ps {
		keys[i] = p.Key
	}
	return strings.Join(keys, ", ")
}
