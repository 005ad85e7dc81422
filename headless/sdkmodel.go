package headless

import (
	"context"
	"encoding/json"
)

// modelSwitch is a set_model request being carried out apart from
// Serve's loop: switching replaces the runtime, whose closing and
// building may call the SDK (a SessionEnd hook callback, the in-process
// MCP servers' new handshakes), which only the loop can carry.
type modelSwitch struct {
	requestID string
	err       error
	// warnings are what WaitMCP said of the new runtime's servers.
	warnings []string
}

// setModel starts a set_model request (the SDK's query.setModel): the
// session carries on with the model named, or the default one when none
// is. No turn starts until it is done (modelSwitched), so the next
// request is the new model's and its in-process MCP tools are offered
// again.
func (s *server) setModel(ctx context.Context, m *inMessage) {
	var r setModelRequest
	if err := json.Unmarshal(m.Request, &r); err != nil {
		s.w.json(controlError(m.RequestID, "the set_model request does not decode: "+err.Error()))
		return
	}
	if s.o.SetModel == nil {
		s.w.json(controlError(m.RequestID, "this session's model cannot be changed"))
		return
	}
	if s.running || s.modelSet != nil {
		// The controller replaces the runtime only between turns: the
		// switch waits for the running turn, or the switch before it, and
		// goes before the queued turns (startHeldModel).
		s.modelHeld = append(s.modelHeld, m)
		return
	}
	ch := make(chan modelSwitch, 1)
	s.modelSet = ch
	set, wait := s.o.SetModel, s.o.WaitMCP
	go func() {
		_, err := set(r.Model)
		res := modelSwitch{requestID: m.RequestID, err: err}
		if wait != nil {
			// The new runtime's MCP servers, the SDK's among them, connect
			// through the loop, which goes on meanwhile.
			res.warnings = wait(ctx)
		}
		ch <- res
	}()
}

// startHeldModel starts the set_model requests that waited for a turn
// or another switch, now that neither runs.
func (s *server) startHeldModel() {
	for !s.running && s.modelSet == nil && len(s.modelHeld) > 0 {
		m := s.modelHeld[0]
		s.modelHeld = s.modelHeld[1:]
		s.setModel(s.ctx, m)
	}
}

// modelSwitched answers the set_model request res is the end of.
func (s *server) modelSwitched(res modelSwitch) {
	s.modelSet = nil
	if s.o.CurrentSession != nil {
		// The runtime, maybe the session, changed: later messages name them.
		*s.o.Session = *s.o.CurrentSession()
		s.o.HookEvents.setSession(s.o.Session.SessionID)
	}
	s.o.Warnings = append(s.o.Warnings, res.warnings...)
	if res.err != nil {
		s.w.json(controlError(res.requestID, res.err.Error()))
		return
	}
	// Claude Code answers with an empty success; the SDK reads nothing of it.
	s.w.json(controlSuccess(res.requestID, emptyResponse{}))
}
