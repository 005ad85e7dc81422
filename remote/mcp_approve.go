package remote

import (
	"errors"
	"net/http"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
)

// A project's MCP servers (a trusted workspace's .mcp.json) start only
// once a person approves them. The terminal UI asks at start; over the
// API a client lists a session's waiting servers and answers for each
// (docs/server.md, "MCP servers").

// mcpApprover is a Host that can list and approve a session's project
// MCP servers (live.Host). A host without it (the terminal's shared
// session, whose terminal asks) answers 409.
type mcpApprover interface {
	PendingMCP(id string) ([]config.ConfiguredMCP, error)
	ApproveMCP(id, name string, approved bool) error
}

// pendingMCPItem is one server waiting for approval, as a person would
// judge it: what it runs or where it connects, and the file that adds it.
type pendingMCPItem struct {
	Name      string   `json:"name"`
	Source    string   `json:"source"`
	Transport string   `json:"transport"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
}

func (s *Server) mcpHost(w http.ResponseWriter) (mcpApprover, bool) {
	h, ok := s.o.Sessions.(mcpApprover)
	if !ok {
		writeError(w, http.StatusConflict, "this server's session is the terminal's: approve its project MCP servers there (/mcp)")
	}
	return h, ok
}

// pendingMCP is GET /api/sessions/{id}/mcp/pending: {"items": [...]}.
func (s *Server) pendingMCP(w http.ResponseWriter, r *http.Request) {
	h, ok := s.mcpHost(w)
	if !ok {
		return
	}
	id := r.PathValue("session_id")
	list, err := h.PendingMCP(id)
	if err != nil {
		s.sessionError(w, id, err)
		return
	}
	items := make([]pendingMCPItem, 0, len(list))
	for _, p := range list {
		items = append(items, pendingMCPItem{Name: p.Name, Source: p.Source, Transport: p.Server.Transport(),
			Command: p.Server.Command, Args: p.Server.Args, URL: p.Server.URL})
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// approveMCP is POST /api/sessions/{id}/mcp/approve {"name","approved"}.
func (s *Server) approveMCP(w http.ResponseWriter, r *http.Request) {
	h, ok := s.mcpHost(w)
	if !ok {
		return
	}
	var req struct {
		Name     string `json:"name"`
		Approved *bool  `json:"approved"`
	}
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	if req.Name == "" || req.Approved == nil {
		writeError(w, http.StatusBadRequest, "name (the server's) and approved (true or false) are required")
		return
	}
	id := r.PathValue("session_id")
	err := h.ApproveMCP(id, req.Name, *req.Approved)
	switch {
	case errors.Is(err, live.ErrNoPendingMCP):
		writeError(w, http.StatusNotFound, "MCP server "+req.Name+" is not waiting for approval in session "+id)
	case err != nil:
		s.sessionError(w, id, err)
	default:
		writeJSON(w, http.StatusOK, map[string]any{"status": "resolved", "approved": *req.Approved})
	}
}
