package remote

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/nova-dev/nova/config"
)

// AgentCreateRequest is the body of POST /api/agents: the agent's
// definition itself. Key must match ^[a-z0-9-]{3,32}$; WorkspaceDir is
// canonicalised like GET /api/fs/list's path and must be a directory
// (null or "" means none); Tools null means every tool.
type AgentCreateRequest = config.Agent

// AgentUpdateRequest is the body of PATCH /api/agents/{key}.
type AgentUpdateRequest struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
}

// AgentListResponse is the answer of GET /api/agents.
type AgentListResponse struct {
	Items []config.Agent `json:"items"`
}

// AgentActionResponse is the answer of DELETE /api/agents/{key}.
type AgentActionResponse struct {
	Status string `json:"status"`
	Key    string `json:"key"`
}

// agents is the agent store of NOVA_HOME.
func (s *Server) agents() *config.AgentStore {
	return config.NewAgentStore(s.o.NovaHome, s.getenv)
}

func (s *Server) handleListAgents(w http.ResponseWriter, r *http.Request) {
	list, err := s.agents().List()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, AgentListResponse{Items: list})
}

func (s *Server) handleGetAgent(w http.ResponseWriter, r *http.Request) {
	a, err := s.agents().Get(r.PathValue("key"))
	if err != nil {
		writeAgentError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// handleCreateAgent is POST /api/agents: 400 for a bad key or a missing
// name, model or provider (or a provider nobody configured, or a
// workspace that is no directory), 409 for a key that is taken; it
// answers with the agent.
func (s *Server) handleCreateAgent(w http.ResponseWriter, r *http.Request) {
	var req AgentCreateRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	a := req
	a.Name, a.WorkspaceDir = strings.TrimSpace(req.Name), nil
	if !config.ValidAgentKey(a.Key) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("key %q is not an agent key: use 3 to 32 lower-case letters, digits or '-' (^[a-z0-9-]{3,32}$)", a.Key))
		return
	}
	for _, f := range []struct{ name, value string }{{"name", a.Name}, {"model", a.Model}, {"provider", a.Provider}} {
		if strings.TrimSpace(f.value) == "" {
			writeError(w, http.StatusBadRequest, f.name+" is required")
			return
		}
	}
	if status, detail := s.checkModel(a.Provider, a.Model); status != 0 {
		writeError(w, status, detail)
		return
	}
	if req.WorkspaceDir != nil && *req.WorkspaceDir != "" {
		dir, err := canonicalPath(*req.WorkspaceDir, s.o.Home)
		if err == nil {
			if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
				err = errors.New("not a directory")
			}
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, "workspace_dir: "+pathDetail(*req.WorkspaceDir, err))
			return
		}
		a.WorkspaceDir = &dir
	}
	created, err := s.agents().Create(a)
	if err != nil {
		writeAgentError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, created)
}

// handleUpdateAgent is PATCH /api/agents/{key}: model and provider are
// both required (400), a missing agent is a 404.
func (s *Server) handleUpdateAgent(w http.ResponseWriter, r *http.Request) {
	var req AgentUpdateRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	if strings.TrimSpace(req.Model) == "" || strings.TrimSpace(req.Provider) == "" {
		writeError(w, http.StatusBadRequest, "model and provider are both required")
		return
	}
	store := s.agents()
	key := r.PathValue("key")
	if _, err := store.Get(key); err != nil {
		writeAgentError(w, err)
		return
	}
	if status, detail := s.checkModel(req.Provider, req.Model); status != 0 {
		writeError(w, status, detail)
		return
	}
	a, err := store.SetModel(key, req.Provider, req.Model)
	if err != nil {
		writeAgentError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// handleDeleteAgent is DELETE /api/agents/{key}: 400 for main, 404 for a
// key no agent has.
func (s *Server) handleDeleteAgent(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	if err := s.agents().Delete(key); err != nil {
		writeAgentError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, AgentActionResponse{Status: "deleted", Key: key})
}

// checkModel says whether an agent may name provider and model: the
// provider must be configured and the model a model name. It returns 0
// when it may, else the status and detail to answer with.
func (s *Server) checkModel(provider, model string) (int, string) {
	if err := config.CheckModelName(model); err != nil {
		return http.StatusBadRequest, err.Error()
	}
	ps, err := s.providers()
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	if _, ok := findProvider(ps, provider); !ok {
		return http.StatusBadRequest, fmt.Sprintf("unknown provider %q (configured: %s)", provider, providerKeys(ps))
	}
	return 0, ""
}

// writeAgentError answers an agent store error with its status.
func writeAgentError(w http.ResponseWriter, err error) {
	var ie *config.InputError
	switch {
	case errors.Is(err, config.ErrAgentNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, config.ErrAgentExists):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, config.ErrMainAgent):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.As(err, &ie):
		writeError(w, http.StatusBadRequest, ie.Reason)
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}
