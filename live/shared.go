package live

import (
	"context"
	"errors"
	"fmt"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/session"
)

// ErrShared is returned for what a shared session does not allow its
// remote: to move it to another workspace, or delete it, under the
// terminal that drives it.
var ErrShared = errors.New("this is the terminal's session, shared with the browser: change or end it in the terminal")

// Shared is the host of a server that serves one session a frontend of
// this process drives: the terminal UI's, shared with browsers (the
// Host nova serve's server takes; docs/remote.md, "Sharing a terminal
// session"). The terminal and the server are two consumers of the one
// live session, so a prompt or an answer from either is seen by both.
//
// Shared opens and builds nothing: every call goes to the runtime
// current returns, so when the terminal replaces its runtime (/clear,
// /resume, /model) the server serves the new one at once. No other
// session is there (ErrNoSession).
type Shared struct {
	current func() *Runtime
	// ctl is the terminal's controller, when it gave it.
	ctl *Controller
}

// NewShared returns the host of the runtime current returns, which is
// called at each request.
func NewShared(current func() *Runtime) *Shared { return &Shared{current: current} }

// runtime is the current runtime when id is its session.
func (h *Shared) runtime(id string) (*Runtime, error) {
	rt := h.current()
	if rt.Session.ID() != id {
		return nil, fmt.Errorf("session %s is not the one this terminal shares (%s): %w", id, rt.Session.ID(), ErrNoSession)
	}
	return rt, nil
}

// Open returns the shared session when id is it.
func (h *Shared) Open(_ context.Context, id string) (*Session, error) {
	rt, err := h.runtime(id)
	if err != nil {
		return nil, err
	}
	return rt.Live, nil
}

// Create returns the shared session: it is the only one there is, so a
// prompt for a new session (the web UI's first) goes to it. The spec's
// agent, model and workspace are the terminal's to choose.
func (h *Shared) Create(context.Context, Spec) (*Session, error) {
	return h.current().Live, nil
}

// List lists the shared session, if it is agentKey's ("" for any).
func (h *Shared) List(agentKey string) ([]session.Meta, error) {
	m := h.current().Session.Meta()
	key := m.AgentKey
	if key == "" {
		key = "main"
	}
	if agentKey != "" && agentKey != key {
		return []session.Meta{}, nil
	}
	return []session.Meta{m}, nil
}

// Load reads the shared session's transcript.
func (h *Shared) Load(id string) (*session.Transcript, error) {
	rt, err := h.runtime(id)
	if err != nil {
		return nil, err
	}
	tr, _, err := session.NewStore(rt.NovaHome).Load(id)
	if err != nil {
		return nil, noSession(id, err)
	}
	return tr, nil
}

// Context is the shared session's context usage by its own model, as
// Host.Context.
func (h *Shared) Context(_ context.Context, id, _, _ string) (agent.ContextUsage, error) {
	rt, err := h.runtime(id)
	if err != nil {
		return agent.ContextUsage{}, err
	}
	return rt.Agent.ContextUsage(), nil
}

// Rename sets the shared session's title; the terminal's /resume list
// shows it.
func (h *Shared) Rename(id, title string) error {
	rt, err := h.runtime(id)
	if err != nil {
		return err
	}
	return rt.Session.SetTitle(title)
}

// SetWorkspace refuses (ErrShared): the session works in the terminal's
// directory.
func (h *Shared) SetWorkspace(id, _ string) error {
	if _, err := h.runtime(id); err != nil {
		return err
	}
	return ErrShared
}

// Delete refuses (ErrShared): the terminal holds the session open.
func (h *Shared) Delete(id string, _ bool) error {
	if _, err := h.runtime(id); err != nil {
		return err
	}
	return ErrShared
}
