package remote

import (
	"errors"
	"math"
	"net/http"

	"github.com/nova-dev/nova/memory"
)

// MemoryListResponse is the answer of GET /api/memories.
type MemoryListResponse struct {
	Items []memory.Memory `json:"items"`
}

// MemoryActionResponse is the answer of DELETE /api/memories/{memory_id}.
type MemoryActionResponse struct {
	Status   string `json:"status"`
	MemoryID string `json:"memory_id"`
}

// handleListMemories is GET /api/memories?session_id=&scope=: with a
// session id every memory tied to that session, without one the newest
// memory.DefaultListLimit (50) of all scopes; scope narrows either to one
// scope (all: any). Newest first.
func (s *Server) handleListMemories(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := memory.Filter{SessionID: q.Get("session_id"), Scope: q.Get("scope")}
	if f.SessionID != "" {
		f.Limit = math.MaxInt
	}
	switch f.Scope {
	case "", memory.ScopeAll, memory.ScopeUser, memory.ScopeProject, memory.ScopeSession, memory.ScopeAgent:
	default:
		writeError(w, http.StatusBadRequest, "unknown scope "+f.Scope+": want user, project, session, agent or all")
		return
	}
	ms, err := memory.NewStore(s.o.NovaHome).List(f)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, MemoryListResponse{Items: ms})
}

// handleDeleteMemory is DELETE /api/memories/{memory_id}: 404 when there
// is no such memory.
func (s *Server) handleDeleteMemory(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("memory_id")
	if err := memory.NewStore(s.o.NovaHome).Delete(id); err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, memory.ErrNotFound) {
			status = http.StatusNotFound
		}
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, MemoryActionResponse{Status: "deleted", MemoryID: id})
}
