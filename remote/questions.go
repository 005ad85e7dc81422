package remote

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/nova-dev/nova/live"
)

// AskUserQuestion answered from a remote: POST /api/chat/answer beside
// POST /api/chat/approve, and the WebSocket's "answer" (docs/remote.md).

// answerRequest is POST /api/chat/answer's body and the WebSocket
// answer's fields.
type answerRequest struct {
	QuestionID string   `json:"question_id"`
	Answers    []string `json:"answers"`
	// Declined answers none of the questions: the tool tells the model
	// the person declined.
	Declined bool `json:"declined"`
}

// errNotPending is an answer to a question the session does not wait
// for; other errors of answerQuestion are the request's fault.
var errNotPending = errors.New("not pending")

// answerQuestion answers the pending question of sess, once: one answer
// per question, in order (a multiple choice's labels joined by ", ", or
// the person's own words), or declined.
func answerQuestion(sess *live.Session, req answerRequest) error {
	if req.QuestionID == "" {
		return errors.New("question_id is required: the question event's question.id")
	}
	if req.Declined {
		if len(req.Answers) > 0 {
			return errors.New("send answers or declined, not both")
		}
		if err := sess.AnswerQuestion(req.QuestionID, nil); err != nil {
			return errNotPending
		}
		return nil
	}
	for _, q := range sess.PendingQuestions() {
		if q.ID == req.QuestionID && len(req.Answers) != len(q.Questions) {
			return fmt.Errorf("answers must hold %d answers, one per question in order, not %d (or send declined: true)", len(q.Questions), len(req.Answers))
		}
	}
	if len(req.Answers) == 0 {
		return errors.New("answers is required: one answer per question, in order (or send declined: true)")
	}
	if err := sess.AnswerQuestion(req.QuestionID, req.Answers); err != nil {
		return errNotPending
	}
	return nil
}

// answer is POST /api/chat/answer?session_id=: it answers a pending
// question of that session only; another session's, an unknown or an
// answered one is 404.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var req answerRequest
	if err := readJSON(r, &req); err != nil {
		writeError(w, bodyStatus(err), err.Error())
		return
	}
	id := r.URL.Query().Get("session_id")
	if id == "" {
		writeError(w, http.StatusBadRequest, "session_id (query) is required")
		return
	}
	notFound := func() {
		writeError(w, http.StatusNotFound, "question "+req.QuestionID+" is not pending in session "+id)
	}
	sess, err := s.o.Sessions.Open(r.Context(), id)
	if err != nil {
		notFound()
		return
	}
	switch err := answerQuestion(sess, req); {
	case errors.Is(err, errNotPending):
		notFound()
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
	default:
		writeJSON(w, http.StatusOK, map[string]any{"status": "resolved", "declined": req.Declined})
	}
}

// answer answers a pending question of that session only, as POST
// /api/chat/answer does.
func (wc *wsConn) answer(m wsIn) error {
	id, err := m.sessionID()
	if err != nil {
		return err
	}
	notPending := fmt.Errorf("question %s is not pending in session %s", m.QuestionID, id)
	sess, err := wc.srv.o.Sessions.Open(wc.ctx, id)
	if errors.Is(err, live.ErrNoSession) {
		return notPending
	}
	if err != nil {
		return err
	}
	err = answerQuestion(sess, answerRequest{QuestionID: m.QuestionID, Answers: m.Answers, Declined: m.Declined})
	if errors.Is(err, errNotPending) {
		return notPending
	}
	if err != nil {
		return err
	}
	wc.send(wc.ctx, wsOut{Type: "ok", ID: m.ID, SessionID: id})
	return nil
}
