package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
)

// session opens the request's session, or creates one when it names none.
// A session that cannot be opened answers as the session endpoints do
// (sessionStatus): 404 unknown, 409 open in another nova process.
func (s *Server) session(ctx context.Context, req *chatRequest) (*live.Session, int, error) {
	if req.SessionID != nil && *req.SessionID != "" {
		return s.open(ctx, *req.SessionID)
	}
	ws := req.WorkspaceDir
	if ws != "" && !s.o.Share { // a share's session works where the terminal does
		dir, err := canonicalDir(ws, s.o.Home)
		if err != nil {
			return nil, http.StatusBadRequest, err
		}
		ws = dir
	}
	sess, err := s.o.Sessions.Create(ctx, live.Spec{AgentKey: req.AgentKey, Provider: req.Provider, Model: req.Model, Workspace: ws})
	if errors.Is(err, live.ErrTooManySessions) {
		return nil, http.StatusTooManyRequests, errors.New(tooManyDetail(err))
	}
	if err != nil {
		return nil, http.StatusBadRequest, err
	}
	return sess, 0, nil
}

func (s *Server) open(ctx context.Context, id string) (*live.Session, int, error) {
	sess, err := s.o.Sessions.Open(ctx, id)
	if err != nil {
		code, detail := sessionStatus(id, err)
		return nil, code, errors.New(detail)
	}
	return sess, 0, nil
}

// reopenTries bounds how often a turn opens its session again after
// finding it closed, so workspace changes in a loop cannot hold a
// request forever.
const reopenTries = 3

// startTurn opens the request's session and starts input on it (relay:
// as a relay, see live.Session.StartRelay). A session found closed was
// closed since it was opened by a workspace change (PUT .../workspace
// closes the open session, to rebuild it in the new directory): it is
// opened again, so the turn runs in the new workspace rather than fail.
// A deleted one is then a 404.
func (s *Server) startTurn(ctx context.Context, req *chatRequest, input llm.Message, relay bool) (*live.Session, *live.Sub[agent.Event], int, error) {
	sess, code, err := s.session(ctx, req)
	if err != nil {
		return nil, nil, code, err
	}
	for tries := 0; ; tries++ {
		var sub *live.Sub[agent.Event]
		if relay {
			sub, err = sess.StartRelay(input)
		} else {
			sub, err = sess.Start(input)
		}
		switch {
		case err == nil:
			return sess, sub, 0, nil
		case errors.Is(err, live.ErrBusy):
			return sess, nil, http.StatusConflict, err
		case !errors.Is(err, live.ErrClosed):
			return sess, nil, http.StatusInternalServerError, err
		case tries == reopenTries:
			return sess, nil, http.StatusConflict, errors.New("session " + sess.ID() + " was closed again and again as the turn started (its workspace keeps changing); try again")
		}
		if sess, code, err = s.open(ctx, sess.ID()); err != nil {
			return nil, nil, code, err
		}
	}
}

// chatStream is POST /api/chat/stream: a new turn streamed as a UI
// message stream, or, with resume_from_seq, the session's stream resumed
// after that frame (D2–D4).
func (s *Server) chatStream(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	if req.ResumeFromSeq != nil {
		if req.SessionID == nil || *req.SessionID == "" {
			writeError(w, http.StatusBadRequest, "resume_from_seq needs session_id")
			return
		}
		cs := s.streams.get(*req.SessionID)
		if cs == nil {
			writeError(w, http.StatusNotFound, "session "+*req.SessionID+" has no stream to resume")
			return
		}
		writeSSE(w, r, cs, *req.ResumeFromSeq, *req.SessionID)
		return
	}
	input, err := req.prompt()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	sess, sub, code, err := s.startTurn(r.Context(), &req, input, true)
	if errors.Is(err, live.ErrBusy) {
		writeError(w, http.StatusConflict, busyDetail(sess.ID())+"; resume its stream (resume_from_seq), wait, or interrupt it")
		return
	}
	if err != nil {
		writeError(w, code, err.Error())
		return
	}
	cs, cursor := s.streams.begin(sess, sub, nil, "msg_"+newSuffix())
	writeSSE(w, r, cs, cursor, sess.ID())
}

// chatResponse is seed 000's ChatResponse.
type chatResponse struct {
	SessionID string `json:"session_id"`
	Status    string `json:"status"` // completed, cancelled, input_required, error
	Message   string `json:"message"`
}

// chat is POST /api/chat: the turn run to its end, or until it waits for
// an approval (input_required: answer with /api/chat/approve; the run
// goes on detached, its stream resumable).
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	input, err := req.prompt()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	sess, own, code, err := s.startTurn(r.Context(), &req, input, false)
	if errors.Is(err, live.ErrBusy) {
		writeError(w, http.StatusConflict, busyDetail(sess.ID()))
		return
	}
	if err != nil {
		writeError(w, code, err.Error())
		return
	}
	defer own.Close()
	// The chat stream is kept for this run too, so a client can follow it
	// after input_required.
	if sub, replay, _, ok := sess.Follow(0); ok {
		s.streams.begin(sess, sub, replay, "msg_"+newSuffix())
	}
	resp := chatResponse{SessionID: sess.ID(), Status: "completed"}
	var text strings.Builder
	for f := range own.C() {
		ev := f.Value
		if ev.ParentToolUseID != "" && ev.Type != agent.EventPermissionAsk {
			// A subagent's work is not the answer; its asks wait for
			// the caller like the run's own.
			continue
		}
		switch ev.Type {
		case agent.EventTurnStart:
			text.Reset()
		case agent.EventTextDelta:
			text.WriteString(ev.Text)
		case agent.EventPermissionAsk:
			resp.Status = "input_required"
			if ev.Ask != nil {
				resp.Message = "approval " + ev.Ask.RequestID + " needed for " + ev.Ask.Tool + ": " + ev.Ask.Decision.Reason
			}
			writeJSON(w, http.StatusOK, resp)
			return
		case agent.EventDone:
			d := ev.Done
			resp.Message = text.String()
			switch {
			case d == nil:
			case d.Subtype == agent.SubtypeInterrupted:
				resp.Status = "cancelled"
			case d.IsError:
				resp.Status, resp.Message = "error", d.Error
			default:
				resp.Message = d.Result
			}
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

// interrupt is POST /api/chat/interrupt: the active or detached run
// stops; the slot is free when it answers.
func (s *Server) interrupt(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SessionID string `json:"session_id"`
	}
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	if req.SessionID == "" {
		writeError(w, http.StatusBadRequest, "session_id is required")
		return
	}
	interrupted := false
	if sess, err := s.o.Sessions.Open(r.Context(), req.SessionID); err == nil {
		interrupted = sess.Interrupt()
	} else if !errors.Is(err, live.ErrNoSession) {
		s.sessionError(w, req.SessionID, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"session_id": req.SessionID, "interrupted": interrupted})
}

// approve is POST /api/chat/approve?session_id=: an approval of that
// session answered once; unknown, used or another session's is a 404.
func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RequestID string `json:"request_id"`
		Approved  bool   `json:"approved"`
		Remember  bool   `json:"remember"`
	}
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	id := r.URL.Query().Get("session_id")
	notFound := func() {
		writeError(w, http.StatusNotFound, "approval "+req.RequestID+" is not pending in session "+id)
	}
	if id == "" || req.RequestID == "" {
		writeError(w, http.StatusBadRequest, "session_id (query) and request_id are required")
		return
	}
	sess, err := s.o.Sessions.Open(r.Context(), id)
	if err != nil {
		notFound()
		return
	}
	if err := answerApproval(sess, req.RequestID, req.Approved, req.Remember); err != nil {
		notFound()
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "resolved", "approved": req.Approved})
}

// answerApproval answers the pending ask requestID of sess, once (the
// HTTP approve and the WebSocket's approve). remember, with approved,
// allows always by the ask's first suggested rule, as "always" does in
// the terminal UI. An id that is not pending in sess is live.ErrNoAsk.
func answerApproval(sess *live.Session, requestID string, approved, remember bool) error {
	ans := agent.PermissionAnswer{Allow: approved}
	if !approved {
		ans.Message = "denied from the remote"
	}
	if approved && remember {
		for _, a := range sess.Pending() {
			if a.RequestID == requestID && len(a.Suggestions) > 0 {
				ans.Always, ans.Rule = true, a.Suggestions[0]
			}
		}
	}
	return sess.Answer(requestID, ans)
}

// busyDetail is the words of a refused turn on a busy session (D1), the
// HTTP 409's and the WebSocket's error alike.
func busyDetail(id string) string {
	return "Session is busy: " + id + " is already running a turn"
}

// streamStatus is GET /api/chat/stream/status?session_id=.
func (s *Server) streamStatus(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("session_id")
	if id == "" {
		writeError(w, http.StatusBadRequest, "session_id is required")
		return
	}
	sess, err := s.o.Sessions.Open(r.Context(), id)
	if err != nil {
		writeError(w, http.StatusNotFound, "session "+id+" has no stream")
		return
	}
	state, last, ok := s.streams.status(sess)
	if !ok || state == live.StateNone {
		writeError(w, http.StatusNotFound, "session "+id+" has no stream")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": string(state), "last_seq": last})
}

// newSuffix is a random id suffix.
func newSuffix() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "0"
	}
	return hex.EncodeToString(b[:])
}
