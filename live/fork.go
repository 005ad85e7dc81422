package live

import (
	"fmt"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/session"
)

// forkSession starts a new session that carries on from the history of
// session id, which it leaves as it was (Claude Code's --fork-session):
// the history the next request would carry is copied into the new
// transcript, so the fork resumes on its own later.
func (rt *Runtime) forkSession(store *session.Store, id string, o Options, sel config.Selection) ([]llm.Message, error) {
	// Read without the lock: the session may be open elsewhere, and a
	// fork never writes to it.
	t, warns, err := store.Load(id)
	if err != nil {
		return nil, configErr("fork %s: %w", id, err)
	}
	for _, w := range warns {
		rt.Warnings = append(rt.Warnings, w.String())
	}
	key := o.AgentKey
	if key == "" {
		key = t.Meta.AgentKey
	}
	sess, err := store.Create(session.Meta{ID: o.SessionID, WorkspaceDir: rt.Workdir, AgentKey: key, Model: sel.ID()})
	if err != nil {
		return nil, createErr(o.SessionID, rt.NovaHome, err)
	}
	rt.Session, rt.noPersist = sess, o.NoPersistence
	history := t.Messages()
	for _, m := range history {
		if err := sess.AppendMessage(m); err != nil {
			return nil, fmt.Errorf("fork %s: copy its history: %w", id, err)
		}
	}
	if t.Meta.Title != "" {
		_ = sess.SetTitle(t.Meta.Title + " (fork)")
	}
	return history, nil
}
