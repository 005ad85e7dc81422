package remote

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
)

// A session's operations over HTTP and /ws: switch model, set mode,
// compact, a person's command, the rules in force. Each is a call of the
// session's live.Controller, the one implementation the terminal calls
// too; this file only translates JSON into those calls and their errors
// into statuses.

// opError is an operation's failure with the status it answers.
type opError struct {
	code   int
	detail string
	// known are the models a switch could have named (a 400 for an
	// unknown one lists them).
	known []string
}

func (e *opError) Error() string { return e.detail }

// opFail turns an operation's error into its status: 404 no session,
// 409 busy (the terminal would wait; a client tries again after the
// run), 403 bypassPermissions, 400 a bad name.
func opFail(id string, err error) *opError {
	var ue *live.UnknownModelError
	switch {
	case errors.As(err, &ue):
		return &opError{code: http.StatusBadRequest, detail: ue.Error(), known: ue.Known}
	case errors.Is(err, live.ErrBypassRefused):
		return &opError{code: http.StatusForbidden, detail: err.Error()}
	case errors.Is(err, agent.ErrNothingToCompact):
		return &opError{code: http.StatusConflict, detail: "session " + id + ": " + err.Error() + ": there is too little history to summarise"}
	case errors.Is(err, live.ErrShared):
		return &opError{code: http.StatusConflict, detail: "this terminal session's operations are the terminal's: " + err.Error()}
	}
	code, detail := sessionStatus(id, err)
	return &opError{code: code, detail: detail}
}

// controller is session id's controller, refused with 409 while a run
// goes on: the operations take the session's run slot, or replace what
// a run is using.
func (s *Server) controller(ctx context.Context, id string) (*live.Controller, *opError) {
	c, err := s.o.Sessions.Controller(ctx, id)
	if err != nil {
		return nil, opFail(id, err)
	}
	if c.Runtime().Live.Busy() {
		return nil, opFail(id, live.ErrBusy)
	}
	return c, nil
}

// opRequest is the body of an operation (and the fields of its /ws
// message).
type opRequest struct {
	Model        string `json:"model"`
	Mode         string `json:"mode"`
	Command      string `json:"command"`
	Instructions string `json:"instructions"`
}

// setModel switches the session's model; the answer names the model now
// in use.
func (s *Server) setModel(ctx context.Context, id string, req opRequest) (map[string]any, *opError) {
	if strings.TrimSpace(req.Model) == "" {
		return nil, &opError{code: http.StatusBadRequest, detail: `model is required: "provider:model" or an alias`}
	}
	c, oe := s.controller(ctx, id)
	if oe != nil {
		return nil, oe
	}
	if err := c.SetModel(req.Model); err != nil {
		return nil, opFail(id, err)
	}
	return map[string]any{"status": "ok", "session_id": id, "model": c.Runtime().Selection.ID()}, nil
}

// setMode sets the permission mode, as a remote caller: never
// bypassPermissions.
func (s *Server) setMode(ctx context.Context, id string, req opRequest) (map[string]any, *opError) {
	if req.Mode == "" {
		return nil, &opError{code: http.StatusBadRequest, detail: `mode is required: "default", "acceptEdits" or "plan"`}
	}
	c, oe := s.controller(ctx, id)
	if oe != nil {
		return nil, oe
	}
	m, err := c.SetMode(req.Mode, true)
	if err != nil {
		if errors.Is(err, live.ErrBypassRefused) {
			return nil, opFail(id, err)
		}
		return nil, &opError{code: http.StatusBadRequest, detail: err.Error()}
	}
	return map[string]any{"status": "ok", "session_id": id, "mode": string(m)}, nil
}

// compact summarises the session's history, answered when it is done;
// its compaction event is on the session's stream.
func (s *Server) compact(ctx context.Context, id string, req opRequest) (map[string]any, *opError) {
	c, oe := s.controller(ctx, id)
	if oe != nil {
		return nil, oe
	}
	before := c.Runtime().Agent.ContextUsage()
	if err := c.CompactWatched(ctx, req.Instructions, s.streamRun); err != nil {
		return nil, opFail(id, err)
	}
	after := c.Runtime().Agent.ContextUsage()
	return map[string]any{"status": "compacted", "session_id": id, "before": before, "after": after}, nil
}

// shell runs the person's command through the session's pipeline; an
// ask is the session's, answered like a model's call's.
func (s *Server) shell(ctx context.Context, id string, req opRequest) (agent.ShellOutcome, *opError) {
	if strings.TrimSpace(req.Command) == "" {
		return agent.ShellOutcome{}, &opError{code: http.StatusBadRequest, detail: "command is required: the shell command to run"}
	}
	c, oe := s.controller(ctx, id)
	if oe != nil {
		return agent.ShellOutcome{}, oe
	}
	out, err := c.ShellWatched(ctx, req.Command, s.streamRun)
	if err != nil {
		return out, opFail(id, err)
	}
	return out, nil
}

// streamRun keeps an operation's run as the session's chat stream, as a
// chat's run is kept: an SSE client (stream status, resume) sees its
// events and asks, not only /ws.
func (s *Server) streamRun(sess *live.Session, sub *live.Sub[agent.Event], replay []live.Frame[agent.Event]) {
	s.streams.begin(sess, sub, replay, "msg_"+newSuffix())
}

// ruleItem is one rule of GET .../rules.
type ruleItem struct {
	Rule     string `json:"rule"`
	Behavior string `json:"behavior"`
	Source   string `json:"source"`
	Layer    string `json:"layer,omitempty"`
}

// sessionRules is GET /api/sessions/{id}/rules: the rules the session's
// checker enforces, each with the file (or flag, or answer) it comes
// from. Reading them does not wait for a run.
func (s *Server) sessionRules(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	c, err := s.o.Sessions.Controller(r.Context(), id)
	if err != nil {
		oe := opFail(id, err)
		writeError(w, oe.code, oe.detail)
		return
	}
	items := []ruleItem{}
	for _, rule := range c.Rules() {
		items = append(items, ruleItem{Rule: rule.Rule, Behavior: string(rule.Behavior), Source: rule.Source, Layer: rule.Layer})
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

// opHandler is an HTTP route of an operation: the body decoded, the
// operation run, its answer or error written.
func opHandler[T any](op func(s *Server, ctx context.Context, id string, req opRequest) (T, *opError)) func(*Server) http.HandlerFunc {
	return func(s *Server) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var req opRequest
			if err := readJSON(r, &req); err != nil {
				writeError(w, bodyStatus(err), err.Error())
				return
			}
			out, oe := op(s, r.Context(), r.PathValue("session_id"), req)
			if oe != nil {
				writeOpError(w, oe)
				return
			}
			writeJSON(w, http.StatusOK, out)
		}
	}
}

// writeOpError answers with seed 000's error shape, and the known
// models when a switch named none of them.
func writeOpError(w http.ResponseWriter, oe *opError) {
	if oe.known != nil {
		writeJSON(w, oe.code, map[string]any{"detail": oe.detail, "known": oe.known})
		return
	}
	writeError(w, oe.code, oe.detail)
}

// wsOp runs an operation of a /ws message on its own goroutine (a
// command may wait on an ask the client answers on this connection),
// answering ok with its result, or error, both with the message's id.
func (wc *wsConn) wsOp(m wsIn, op func(ctx context.Context, id string, req opRequest) (any, *opError)) error {
	id, err := m.sessionID()
	if err != nil {
		return err
	}
	req := opRequest{Model: m.Model, Mode: m.Mode, Command: m.Command, Instructions: m.Instructions}
	go func() {
		res, oe := op(wc.ctx, id, req)
		if oe != nil {
			wc.send(wc.ctx, wsOut{Type: "error", ID: m.ID, SessionID: id, Detail: oe.detail, Known: oe.known})
			return
		}
		wc.send(wc.ctx, wsOut{Type: "ok", ID: m.ID, SessionID: id, Result: res})
	}()
	return nil
}

// wsOps are the /ws message types of the session's operations.
func (wc *wsConn) wsOpFor(typ string) (func(ctx context.Context, id string, req opRequest) (any, *opError), bool) {
	s := wc.srv
	switch typ {
	case "set_model":
		return func(ctx context.Context, id string, req opRequest) (any, *opError) { return s.setModel(ctx, id, req) }, true
	case "set_mode":
		return func(ctx context.Context, id string, req opRequest) (any, *opError) { return s.setMode(ctx, id, req) }, true
	case "compact":
		return func(ctx context.Context, id string, req opRequest) (any, *opError) { return s.compact(ctx, id, req) }, true
	case "shell":
		return func(ctx context.Context, id string, req opRequest) (any, *opError) { return s.shell(ctx, id, req) }, true
	}
	return nil, false
}

// wsTypes lists the message types /ws reads, for an error about one.
const wsTypes = `"subscribe", "unsubscribe", "prompt", "approve", "answer", "interrupt", "set_model", "set_mode", "compact" or "shell"`
