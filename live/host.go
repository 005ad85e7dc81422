package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/session"
)

// Host keeps the sessions a server runs: each open one is a Runtime of
// its own (its workspace, settings, sandbox and agent), built on demand
// and kept open — holding the session's lock — until it is deleted or
// the host closes.
//
// A session is built outside the host's lock (a build may wait on a
// model list or MCP servers for seconds): opening one session never
// holds up another. Opens of the same session while it is being built
// wait for that one build.
type Host struct {
	ctx  context.Context
	base Options
	// build makes a runtime (Build; tests step in).
	build func(context.Context, Options) (*Runtime, error)

	mu   sync.Mutex
	open map[string]*Runtime
	// ctls are the controllers of open sessions (host_ops.go).
	ctls map[string]*Controller
	// building holds the sessions being opened from their transcript,
	// each done when its build has ended (see runtime).
	building map[string]*hostBuild
	// creating counts new sessions being built (Create).
	creating int
	// max bounds how many sessions may be open or being built at once;
	// 0 is no bound (SetMaxSessions).
	max int
	// closed is set by Close: a build that ends after it is let go.
	closed bool
	// mcpMu guards the open runtimes' MCPPending (host_mcp.go).
	mcpMu sync.Mutex
	// used is when each open session was last used (host_idle.go).
	used map[string]time.Time
	// closing holds the sessions taken out of open whose runtime is still
	// closing; each channel closes when its runtime has (see detachLocked).
	closing map[string]chan struct{}
}

// hostBuild is one session being opened: done closes when the build has
// ended, with err its failure.
type hostBuild struct {
	done chan struct{}
	err  error
}

// ErrTooManySessions is returned when opening or creating a session
// would take the host over its bound (SetMaxSessions).
var ErrTooManySessions = errors.New("too many sessions open")

// NewHost returns a host whose sessions are built from base (NovaHome,
// Home, Getenv, the permission flags); base.Workdir is the workspace of a
// session that names none. Runs end when ctx does.
func NewHost(ctx context.Context, base Options) *Host {
	base.Interactive = true // a remote person answers asks
	base.Resume, base.Continue = "", false
	return &Host{ctx: ctx, base: base, build: Build, open: map[string]*Runtime{}, building: map[string]*hostBuild{}}
}

// SetMaxSessions bounds how many sessions the host keeps open (or is
// building) at once; n <= 0 is no bound. Each open session holds its
// runtime and MCP servers until it is idle for the idle timeout
// (CloseIdle), deleted or the host closes: past n, opening or creating
// another is ErrTooManySessions. Call it before the host serves.
func (h *Host) SetMaxSessions(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.max = max(n, 0)
}

// roomLocked is ErrTooManySessions when one more session would take the
// host over its bound; h.mu is held.
func (h *Host) roomLocked() error {
	if h.max == 0 {
		return nil
	}
	if n := len(h.open) + len(h.building) + h.creating; n >= h.max {
		return fmt.Errorf("%w: %d of at most %d", ErrTooManySessions, n, h.max)
	}
	return nil
}

func (h *Host) store() *session.Store { return session.NewStore(h.base.NovaHome) }

// Create builds a new session from spec, for its agent definition
// (NOVA_HOME/agents): the agent's model, workspace and tools unless the
// spec names its own model or workspace.
func (h *Host) Create(_ context.Context, spec Spec) (*Session, error) {
	o := h.base
	key := spec.AgentKey
	if key == "" {
		key = config.MainAgentKey
	}
	def, err := config.NewAgentStore(o.NovaHome, o.Getenv).Get(key)
	if errors.Is(err, config.ErrAgentNotFound) {
		return nil, configErr("agent %q does not exist: create it with POST /api/agents, or leave agent_key out for main", key)
	}
	if err != nil {
		return nil, err
	}
	if spec.Model == "" && spec.Provider == "" && def.Model != "" {
		spec.Provider, spec.Model = def.Provider, def.Model
	}
	if spec.Workspace == "" && def.WorkspaceDir != nil && *def.WorkspaceDir != "" {
		spec.Workspace = *def.WorkspaceDir
	}
	if spec.Workspace != "" {
		o.Workdir = spec.Workspace
	}
	switch {
	case spec.Provider != "" && spec.Model != "":
		o.Model = spec.Provider + ":" + spec.Model
	case spec.Model != "":
		o.Model = spec.Model
	case spec.Provider != "":
		o.Model = spec.Provider + ":"
	}
	o.AgentKey = key
	h.mu.Lock()
	if err := h.roomLocked(); err != nil {
		h.mu.Unlock()
		return nil, err
	}
	h.creating++
	h.mu.Unlock()
	rt, err := h.make(h.ctx, o)
	h.mu.Lock()
	h.creating--
	h.mu.Unlock()
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = rt.Close()
		return nil, ErrClosed
	}
	h.open[rt.Session.ID()] = rt
	h.touchLocked(rt.Session.ID())
	h.mu.Unlock()
	return rt.Live, nil
}

// Open returns the open session id, building it from its transcript (in
// its recorded workspace) when it is not open yet.
func (h *Host) Open(_ context.Context, id string) (*Session, error) {
	rt, err := h.runtime(id)
	if err != nil {
		return nil, err
	}
	return rt.Live, nil
}

// runtime is the open runtime of session id, built when needed. The
// build runs outside h.mu; a second call for id meanwhile waits for it
// rather than build the session twice.
func (h *Host) runtime(id string) (*Runtime, error) {
	h.mu.Lock()
	for {
		h.waitClosedLocked(id)
		if rt := h.open[id]; rt != nil {
			h.touchLocked(id)
			h.mu.Unlock()
			return rt, nil
		}
		b := h.building[id]
		if b == nil {
			break
		}
		h.mu.Unlock()
		<-b.done
		if b.err != nil {
			return nil, b.err
		}
		// Built: it is open now, unless it was closed (deleted, moved,
		// idle) in between; look again.
		h.mu.Lock()
	}
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	if err := h.roomLocked(); err != nil {
		h.mu.Unlock()
		return nil, err
	}
	b := &hostBuild{done: make(chan struct{})}
	h.building[id] = b
	h.mu.Unlock()

	rt, err := h.buildSaved(id)

	h.mu.Lock()
	delete(h.building, id)
	late := err == nil && h.closed // the host closed during the build
	if late {
		err = ErrClosed
	}
	if err == nil {
		h.open[id] = rt
		h.touchLocked(id)
	}
	b.err = err
	close(b.done)
	h.mu.Unlock()
	if late {
		_ = rt.Close()
		return nil, err
	}
	return rt, err
}

// buildSaved builds the runtime of session id from its transcript, in
// its recorded workspace and with its recorded model.
func (h *Host) buildSaved(id string) (*Runtime, error) {
	tr, _, err := h.store().Load(id)
	if err != nil {
		return nil, noSession(id, err)
	}
	o := h.base
	o.Resume = id
	if ws := tr.Meta.WorkspaceDir; ws != "" {
		o.Workdir = ws
	}
	if tr.Meta.Model != "" && o.Model == "" {
		o.Model = tr.Meta.Model
	}
	rt, err := h.make(h.ctx, o)
	if err != nil {
		return nil, err
	}
	// This process holds the session now, so a call its transcript leaves
	// without a result (a nova killed mid-tool) is not running anywhere:
	// answered now, the history every frontend reads from the file is one
	// a provider accepts, not only the next run's request.
	if err := rt.Agent.CloseDanglingCalls(); err != nil {
		rt.Warnings = append(rt.Warnings, err.Error())
	}
	return rt, nil
}

// make builds a runtime from o and holds it to its agent definition's
// tools: every runtime of a session is made here (created, opened from
// its transcript, rebuilt by a model switch), so none of them has tools
// its agent was not given.
func (h *Host) make(ctx context.Context, o Options) (*Runtime, error) {
	rt, err := h.build(ctx, o)
	if err != nil {
		return nil, err
	}
	key := cmp.Or(rt.Session.Meta().AgentKey, o.AgentKey, config.MainAgentKey)
	def, err := config.NewAgentStore(o.NovaHome, o.Getenv).Get(key)
	if err != nil && !errors.Is(err, config.ErrAgentNotFound) {
		_ = rt.Close()
		return nil, fmt.Errorf("session %s: read its agent %q: %w", rt.Session.ID(), key, err)
	}
	if err == nil && def.Tools != nil {
		// The agent may use the tools it names, and no others.
		allowed := map[string]bool{}
		for _, t := range def.Tools {
			allowed[t] = true
		}
		for _, name := range rt.Registry.Names() {
			if !allowed[name] {
				rt.Registry.SetEnabled(name, false)
			}
		}
	}
	return rt, nil
}

// settleLocked waits, h.mu held (and let go while waiting), until session
// id is neither closing nor being built, so a change to it (a delete, a
// new workspace) does not race a build that holds its transcript.
func (h *Host) settleLocked(id string) {
	for {
		h.waitClosedLocked(id)
		b := h.building[id]
		if b == nil {
			return
		}
		h.mu.Unlock()
		<-b.done
		h.mu.Lock()
	}
}

// List lists the sessions, newest first; agentKey keeps that agent's only
// (a session recorded without one is the main agent's).
func (h *Host) List(agentKey string) ([]session.Meta, error) {
	all, err := h.store().List(session.Filter{})
	if err != nil || agentKey == "" {
		return all, err
	}
	var out []session.Meta
	for _, m := range all {
		key := m.AgentKey
		if key == "" {
			key = "main"
		}
		if key == agentKey {
			out = append(out, m)
		}
	}
	return out, nil
}

// Load reads a session's transcript, open or not. A session no process
// holds open whose last tool calls have no results (its nova was killed
// mid-tool) is shown with them answered, as opening it will answer them
// in the file; the file is not written here. In a session that is open
// the calls may still be running, and are shown as they are.
func (h *Host) Load(id string) (*session.Transcript, error) {
	st := h.store()
	tr, _, err := st.Load(id)
	if err != nil {
		return nil, noSession(id, err)
	}
	if busy, err := st.InUse(id); err == nil && !busy {
		tr.CloseDanglingCalls()
	}
	return tr, nil
}

// Context is the session's context usage by its own model; provider and
// model are accepted (seed 000) but the figure is the session's: it is
// the one the session compacts by.
func (h *Host) Context(_ context.Context, id, _, _ string) (agent.ContextUsage, error) {
	rt, err := h.runtime(id)
	if err != nil {
		return agent.ContextUsage{}, err
	}
	return rt.Agent.ContextUsage(), nil
}

// Rename sets the session's title.
func (h *Host) Rename(id, title string) error {
	return h.withSession(id, func(s *session.Session) error { return s.SetTitle(title) })
}

// SetWorkspace sets the session's workspace ("" back to the host's). An
// open session is closed, to be rebuilt in it before its next run; one
// that is running refuses (ErrBusy) and its run goes on. A run started
// on the closed session after that (by a caller that had opened it
// before) gets ErrClosed rather than being cut short: that caller opens
// the session again (Open) to run in the new workspace.
func (h *Host) SetWorkspace(id, dir string) error {
	h.mu.Lock()
	h.settleLocked(id)
	rt := h.open[id]
	if rt != nil {
		if !rt.Live.closeIdle() {
			h.mu.Unlock()
			return ErrBusy
		}
	}
	var closed func()
	if rt != nil {
		closed = h.detachLocked(id)
	}
	h.mu.Unlock()
	if rt != nil {
		defer closed()
		if err := rt.Session.SetWorkspace(dir); err != nil {
			rt.Close()
			return err
		}
		return rt.Close()
	}
	return h.withSession(id, func(s *session.Session) error { return s.SetWorkspace(dir) })
}

// withSession runs fn on the session's transcript: the open one's, or
// the session opened (and locked) for the call.
func (h *Host) withSession(id string, fn func(*session.Session) error) error {
	h.mu.Lock()
	h.settleLocked(id)
	if rt := h.open[id]; rt != nil {
		h.mu.Unlock()
		return fn(rt.Session)
	}
	h.mu.Unlock()
	s, _, err := h.store().Open(id)
	if err != nil {
		return noSession(id, err)
	}
	err = fn(s)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// Delete ends any run of the session, closes it and removes it; with
// memories, the memories linked to it go too.
func (h *Host) Delete(id string, memories bool) error {
	h.mu.Lock()
	h.settleLocked(id)
	rt := h.open[id]
	delete(h.open, id)
	delete(h.used, id)
	h.mu.Unlock()
	if rt != nil {
		_ = rt.Close()
	}
	if err := h.store().Delete(id); err != nil {
		return noSession(id, err)
	}
	if memories {
		if _, err := memory.NewStore(h.base.NovaHome).DeleteBySession(id); err != nil {
			return fmt.Errorf("session %s deleted, but its memories were not: %w", id, err)
		}
	}
	return nil
}

// Close ends every run and closes every open session.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	open := h.open
	h.open = map[string]*Runtime{}
	h.mu.Unlock()
	for _, rt := range open {
		_ = rt.Close()
	}
}

// noSession turns the store's not-found into ErrNoSession.
func noSession(id string, err error) error {
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("session %s: %w", id, ErrNoSession)
	}
	return err
}
