package remote

import (
	"net/http"
	"strings"
)

// Every route, with what it reaches. A server that shares one terminal
// session (Options.Share, /remote) lets its link do what that session
// needs and nothing that outlives it or reaches beyond it: the guard
// below refuses every route whose scope a share may not use, so a route
// added here without thought is refused to shares, not open to them
// (docs/remote.md, "What a shared link can do").

// scope is what a route reaches.
type scope int

const (
	// scopePublic needs no token: the health check and the web UI's own
	// files (which hold no secret; the page asks for the token itself).
	scopePublic scope = iota
	// scopeSession reads or drives the session the request names, or the
	// sessions the host has (on a share, its one session): history,
	// turns, approvals, answers, interrupts, the stream, the title.
	scopeSession
	// scopeRead reads nova's configuration that every session shares
	// (models, providers, agents, memories), as the UI's pickers show it.
	scopeRead
	// scopeWrite changes what lies outside one session's run: config.json
	// (providers, models: the default model of every later session, the
	// terminal's included), agents, memories, where a session works or
	// whether it exists, a workspace's remembered MCP approvals.
	scopeWrite
	// scopeMachine reads the machine beyond the session: the directory
	// picker lists any directory nova may read.
	scopeMachine
)

// shareMay reports whether a share's link may use a route of scope sc.
func (sc scope) shareMay() bool {
	return sc == scopePublic || sc == scopeSession || sc == scopeRead
}

// route is one pattern of the server's mux.
type route struct {
	pattern string
	scope   scope
	handler http.HandlerFunc
}

// routeTable is every route the server answers, in one list: the mux is
// built from it and the share tests walk it.
func (s *Server) routeTable() []route {
	return []route{
		{"GET /health", scopePublic, s.health},
		// The UI's files; any other /api/ path is a 404 (after the token).
		{"/", scopePublic, s.fallback},
		{"GET /ws", scopeSession, s.serveWS},
		{"GET /api/landing", scopeRead, s.landing},

		{"GET /api/sessions", scopeSession, s.listSessions},
		{"GET /api/sessions/{session_id}", scopeSession, s.getSession},
		{"GET /api/sessions/{session_id}/messages", scopeSession, s.sessionMessages},
		{"GET /api/sessions/{session_id}/context", scopeSession, s.sessionContext},
		{"PATCH /api/sessions/{session_id}", scopeSession, s.renameSession},
		{"PUT /api/sessions/{session_id}/workspace", scopeWrite, s.sessionWorkspace},
		{"DELETE /api/sessions/{session_id}", scopeWrite, s.deleteSession},
		// The session's operations (ops.go): what the terminal's /model,
		// shift+tab, /compact, !cmd and /permissions do.
		{"POST /api/sessions/{session_id}/model", scopeSession, opHandler((*Server).setModel)(s)},
		{"POST /api/sessions/{session_id}/mode", scopeSession, opHandler((*Server).setMode)(s)},
		{"POST /api/sessions/{session_id}/compact", scopeSession, opHandler((*Server).compact)(s)},
		{"POST /api/sessions/{session_id}/shell", scopeSession, opHandler((*Server).shell)(s)},
		{"GET /api/sessions/{session_id}/rules", scopeSession, s.sessionRules},

		{"POST /api/chat/stream", scopeSession, s.chatStream},
		{"POST /api/chat", scopeSession, s.chat},
		{"POST /api/chat/interrupt", scopeSession, s.interrupt},
		{"POST /api/chat/approve", scopeSession, s.approve},
		{"POST /api/chat/answer", scopeSession, s.answer},
		{"GET /api/chat/stream/status", scopeSession, s.streamStatus},

		{"GET /api/sessions/{session_id}/mcp/pending", scopeSession, s.pendingMCP},
		{"POST /api/sessions/{session_id}/mcp/approve", scopeWrite, s.approveMCP},

		{"GET /api/fs/list", scopeMachine, s.handleFSList},

		{"GET /api/models", scopeRead, s.handleModels},
		{"GET /api/providers", scopeRead, s.handleProviders},
		{"POST /api/config/providers", scopeWrite, s.handleAddProvider},
		{"POST /api/config/models", scopeWrite, s.handleAddModel},

		{"GET /api/agents", scopeRead, s.handleListAgents},
		{"POST /api/agents", scopeWrite, s.handleCreateAgent},
		{"GET /api/agents/{key}", scopeRead, s.handleGetAgent},
		{"PATCH /api/agents/{key}", scopeWrite, s.handleUpdateAgent},
		{"DELETE /api/agents/{key}", scopeWrite, s.handleDeleteAgent},

		{"GET /api/memories", scopeRead, s.handleListMemories},
		{"DELETE /api/memories/{memory_id}", scopeWrite, s.handleDeleteMemory},
	}
}

// routes builds the mux from the route table, each handler behind the
// share guard.
func (s *Server) routes() {
	s.table = s.routeTable()
	for _, rt := range s.table {
		s.mux.Handle(rt.pattern, s.guard(rt))
	}
}

// guard refuses, on a share, a route its link may not use: 403, saying
// why and where to do it instead.
func (s *Server) guard(rt route) http.Handler {
	if rt.scope.shareMay() {
		return rt.handler
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.o.Share {
			rt.handler(w, r)
			return
		}
		what := "it changes what lies outside this session (nova's configuration, agents, memories, where the session works or whether it exists)"
		if rt.scope == scopeMachine {
			what = "it reads this machine's directories beyond the session"
		}
		writeError(w, http.StatusForbidden, "a shared session's link cannot do this: "+r.Method+" "+r.URL.Path+": "+what+"; do it in the terminal that shares the session")
	})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "service": "nova", "mode": "server"})
}

// fallback is every path no other route has: the UI, or a 404 for an
// unknown endpoint.
func (s *Server) fallback(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/"):
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		s.frontend(w, r)
	default:
		writeError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path)
	}
}

// landing is GET /api/landing: {"path"}, the page the printed URL leads
// to once the UI has the token (a share's session page, else "/").
func (s *Server) landing(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"path": s.landingPath()})
}

// landingPath is where the printed URL leads: Options.Landing, else "/".
func (s *Server) landingPath() string {
	if s.o.Landing != nil {
		return s.o.Landing()
	}
	return "/"
}
