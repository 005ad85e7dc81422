package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/session"
)

// sessionItem is one entry of GET /api/sessions, and the answer of GET
// /api/sessions/{id}.
type sessionItem struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	UpdatedAt    int64  `json:"updated_at"` // ms
	AgentKey     string `json:"agent_key"`
	WorkspaceDir string `json:"workspace_dir"`
	// Model ("provider:model") and PermissionMode are what the session
	// runs with now (nova's fields, beside seed 000's): a page opened
	// after the terminal or another page changed them shows them as they
	// are (live.SessionState). Either is "" when it cannot be told.
	Model          string `json:"model"`
	PermissionMode string `json:"permission_mode"`
}

// sessionItems describes metas with their states.
func (s *Server) sessionItems(metas []session.Meta) []sessionItem {
	states := s.o.Sessions.States(metas)
	items := make([]sessionItem, 0, len(metas))
	for i, m := range metas {
		key := m.AgentKey
		if key == "" {
			key = "main"
		}
		it := sessionItem{ID: m.ID, Title: m.Title, UpdatedAt: m.UpdatedAt.UnixMilli(), AgentKey: key, WorkspaceDir: m.WorkspaceDir, Model: m.Model}
		if i < len(states) {
			if states[i].Model != "" {
				it.Model = states[i].Model
			}
			it.PermissionMode = states[i].PermissionMode
		}
		items = append(items, it)
	}
	return items
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	metas, err := s.o.Sessions.List(r.URL.Query().Get("agent_key"))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": s.sessionItems(metas)})
}

// getSession is GET /api/sessions/{id}: the session as the list shows
// it, read without opening it.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	tr, err := s.o.Sessions.Load(id)
	if err != nil {
		s.sessionError(w, id, err)
		return
	}
	meta := tr.Meta
	meta.ID = id
	writeJSON(w, http.StatusOK, s.sessionItems([]session.Meta{meta})[0])
}

// messageRecord is seed 000's MessageRecord.
type messageRecord struct {
	ID                 string           `json:"id"`
	SessionID          string           `json:"session_id"`
	Role               string           `json:"role"` // user, assistant, tool
	Content            string           `json:"content"`
	ToolCallID         *string          `json:"tool_call_id"`
	ToolCalls          []recordToolCall `json:"tool_calls"`
	TimeCreated        int64            `json:"time_created"` // ms
	Images             []string         `json:"images"`       // data URLs, or null
	ReasoningContent   *string          `json:"reasoning_content"`
	ReasoningElapsedMS *int64           `json:"reasoning_elapsed_ms"`
	GroupID            *string          `json:"group_id"`
}

// recordToolCall is one tool call of an assistant message.
type recordToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// sessionMessages is the user-visible history: every message of the
// transcript as the person sent or got it. A compaction's summary, and the
// context nova puts ahead of the first prompt, nobody typed: they are not
// shown.
func (s *Server) sessionMessages(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	tr, err := s.o.Sessions.Load(id)
	if err != nil {
		s.sessionError(w, id, err)
		return
	}
	items := []messageRecord{}
	n := 0
	first := true
	for _, rec := range tr.Records {
		if rec.Type != session.RecordMessage || rec.Message == nil {
			continue
		}
		msg := *rec.Message
		if first {
			msg, first = session.WithoutContext(msg), false
		}
		for _, m := range messageRecords(id, msg, rec.Time.UnixMilli()) {
			n++
			m.ID = fmt.Sprintf("msg_%s_%d", id, n)
			items = append(items, m)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// messageRecords turns one transcript message into records: a user or
// assistant record, and one tool record per tool result.
func messageRecords(sessionID string, m llm.Message, at int64) []messageRecord {
	base := messageRecord{SessionID: sessionID, TimeCreated: at, ToolCalls: []recordToolCall{}}
	var out []messageRecord
	main := base
	main.Role = string(m.Role)
	var text, thinking strings.Builder
	hasMain := false
	for _, p := range m.Parts {
		switch p.Type {
		case llm.PartText:
			text.WriteString(p.Text)
			hasMain = true
		case llm.PartThinking:
			thinking.WriteString(p.Text)
		case llm.PartImage:
			main.Images = append(main.Images, "data:"+p.MediaType+";base64,"+encodeBase64(p.Data))
			hasMain = true
		case llm.PartToolCall:
			if p.ToolCall != nil {
				main.ToolCalls = append(main.ToolCalls, recordToolCall{ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: llm.SafeInput(p.ToolCall.Input)})
				hasMain = true
			}
		case llm.PartToolResult:
			if p.ToolResult == nil {
				continue
			}
			t := base
			t.Role = "tool"
			callID := p.ToolResult.CallID
			t.ToolCallID = &callID
			var b strings.Builder
			for _, c := range p.ToolResult.Content {
				b.WriteString(c.Text)
			}
			t.Content = b.String()
			out = append(out, t)
		}
	}
	if thinking.Len() > 0 {
		r := thinking.String()
		main.ReasoningContent = &r
		hasMain = true
	}
	main.Content = text.String()
	if hasMain {
		out = append([]messageRecord{main}, out...)
	}
	return out
}

func (s *Server) sessionContext(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	q := r.URL.Query()
	u, err := s.o.Sessions.Context(r.Context(), id, q.Get("provider"), q.Get("model"))
	if err != nil {
		s.sessionError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}

func (s *Server) renameSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	var req struct {
		Title *string `json:"title"`
	}
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	if req.Title == nil {
		writeError(w, http.StatusUnprocessableEntity, "title is required")
		return
	}
	if n := utf8.RuneCountInString(*req.Title); n < 1 || n > 200 {
		writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("title must be 1 to 200 characters, not %d", n))
		return
	}
	if err := s.o.Sessions.Rename(id, *req.Title); err != nil {
		s.sessionError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "renamed", "session_id": id})
}

// sessionWorkspace sets or clears the session's workspace. workspace_dir
// must be there: null or "" clears it, so a body that forgot it (or is
// null) does not clear it by accident.
func (s *Server) sessionWorkspace(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	var req map[string]json.RawMessage
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	raw, ok := req["workspace_dir"]
	if !ok {
		writeError(w, http.StatusBadRequest, `workspace_dir is required: a directory, or null or "" to clear it`)
		return
	}
	var ws *string
	if err := json.Unmarshal(raw, &ws); err != nil {
		writeError(w, http.StatusBadRequest, "workspace_dir must be a string or null, not "+string(raw))
		return
	}
	dir := ""
	if ws != nil && *ws != "" {
		d, err := canonicalDir(*ws, s.o.Home)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		dir = d
	}
	if err := s.o.Sessions.SetWorkspace(id, dir); err != nil {
		s.sessionError(w, id, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "workspace_updated", "session_id": id})
}

// deleteSession cancels any run of the session, active or detached,
// drops its stream's replay buffer and removes it (and, asked, its
// memories).
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	memories := false
	if v := r.URL.Query().Get("delete_memories"); v != "" {
		switch strings.ToLower(v) {
		case "true", "1", "yes":
			memories = true
		case "false", "0", "no":
		default:
			writeError(w, http.StatusUnprocessableEntity, "delete_memories must be true or false")
			return
		}
	}
	if err := s.o.Sessions.Delete(id, memories); err != nil {
		s.sessionError(w, id, err)
		return
	}
	s.streams.drop(id)
	writeJSON(w, http.StatusOK, map[string]string{"status": "deleted", "session_id": id})
}

// sessionError answers for a session call that failed: 404 for a session
// that does not exist, 409 for one whose run is going on (the change it
// asked for waits for the run to end), that another nova process has
// open (it is that process's to write until it lets it go), or that a
// terminal shares (it is the terminal's to move or delete).
func (s *Server) sessionError(w http.ResponseWriter, id string, err error) {
	code, detail := sessionStatus(id, err)
	writeError(w, code, detail)
}

// sessionStatus is the status and detail sessionError answers with, for
// the endpoints that answer otherwise on success (chat).
func sessionStatus(id string, err error) (int, string) {
	var locked *session.LockedError
	switch {
	case errors.Is(err, live.ErrNoSession):
		return http.StatusNotFound, "session " + id + " not found"
	case errors.Is(err, live.ErrBusy):
		return http.StatusConflict, "Session is busy: " + id + " is running a turn; wait for it to end, or interrupt it (POST /api/chat/interrupt), then try again"
	case errors.As(err, &locked):
		return http.StatusConflict, locked.Error() + ": close it there, then try again"
	case errors.Is(err, live.ErrShared):
		return http.StatusConflict, err.Error()
	case errors.Is(err, live.ErrTooManySessions):
		return http.StatusTooManyRequests, tooManyDetail(err)
	}
	return http.StatusInternalServerError, err.Error()
}

// tooManyDetail says why a session was not opened: the server's bound
// (nova serve --max-sessions), and how to get under it.
func tooManyDetail(err error) string {
	return "nova serve has " + strings.TrimPrefix(err.Error(), live.ErrTooManySessions.Error()+": ") +
		" sessions open (--max-sessions): wait for idle ones to close (--idle-timeout), delete some, or restart nova serve with a higher --max-sessions"
}
