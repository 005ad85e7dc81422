package live

import (
	"cmp"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/session"
)

// SessionState is what a frontend shows of a session beside its title:
// the model and the permission mode it runs with, so a page opened late
// (a fresh tab, a phone) shows the session as it is, not as it was when
// that page last set them.
type SessionState struct {
	// Model is "provider:model": the open runtime's, else the one the
	// transcript records (recordModel), which is the one it opens with.
	Model string
	// PermissionMode is the open checker's mode (a /mode, shift+tab or
	// POST .../mode changes it), else the mode the session opens in
	// (--permission-mode, else its workspace's settings' defaultMode,
	// else default); "" when that cannot be read.
	PermissionMode string
	// Open says the session's runtime is open in this process.
	Open bool
}

// stateOf is an open runtime's state.
func stateOf(rt *Runtime) SessionState {
	return SessionState{Model: rt.Selection.ID(), PermissionMode: string(rt.Checker.Mode()), Open: true}
}

// States is the state of each session of metas (as List gives them), in
// the same order. Reading them opens nothing: a session not open is
// described from its transcript and its workspace's settings, each
// workspace's read once.
func (h *Host) States(metas []session.Meta) []SessionState {
	out := make([]SessionState, len(metas))
	modes := map[string]string{}
	for i, m := range metas {
		h.mu.Lock()
		rt := h.open[m.ID]
		h.mu.Unlock()
		if rt != nil {
			out[i] = stateOf(rt)
			continue
		}
		ws := cmp.Or(m.WorkspaceDir, h.base.Workdir)
		mode, ok := modes[ws]
		if !ok {
			mode = openingMode(h.base, ws)
			modes[ws] = mode
		}
		out[i] = SessionState{Model: m.Model, PermissionMode: mode}
	}
	return out
}

// States is the shared session's state (the terminal's runtime's: its
// /model and shift+tab show here at once); another session has none.
func (h *Shared) States(metas []session.Meta) []SessionState {
	out := make([]SessionState, len(metas))
	rt := h.current()
	for i, m := range metas {
		if m.ID == rt.Session.ID() {
			out[i] = stateOf(rt)
		} else {
			out[i] = SessionState{Model: m.Model}
		}
	}
	return out
}

// openingMode is the permission mode a session of base opened in workdir
// starts in, as LoadSetup decides it, or "" when the settings cannot be
// read (the open itself then says why).
func openingMode(base Options, workdir string) string {
	if base.PermissionMode != "" {
		return base.PermissionMode
	}
	o := base
	o.Workdir = workdir
	ts, err := ResolveTrust(o.NovaHome, o.projectDir(), o.Trust)
	if err != nil {
		return ""
	}
	st, _, err := config.LoadSettingsLayers(o.NovaHome, o.projectDir(), o.Home, ts.Trusted, o.layers())
	if err != nil {
		return ""
	}
	cfg, err := st.PermissionConfig(config.PermissionOptions{Workspace: o.Workdir, Home: o.Home, NovaHome: o.NovaHome, AddDirs: o.AddDirs})
	if err != nil {
		return ""
	}
	return string(cfg.Mode)
}
