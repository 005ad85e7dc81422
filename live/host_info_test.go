package live

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
)

// A session's state reads the open runtime (a mode set on it shows at
// once); closed, it reads what the session would open with: the model
// its transcript records and the settings' defaultMode, a project's only
// in a trusted workspace.
func TestHostStates(t *testing.T) {
	h, _ := newTestHost(t, llmtest.Turn{Text: "ok"})
	writeTestFile(t, filepath.Join(h.base.NovaHome, "settings.json"), `{"permissions": {"defaultMode": "plan"}}`)
	sess, err := h.Create(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	for range sess.Run(context.Background(), llm.UserText("hi")) {
	}
	c, err := h.Controller(context.Background(), sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetMode("acceptEdits", true); err != nil {
		t.Fatal(err)
	}
	if err := c.SetModel("haiku"); err != nil {
		t.Fatal(err)
	}
	metas, err := h.List("")
	if err != nil || len(metas) != 1 {
		t.Fatalf("List = %v, %v", metas, err)
	}
	if st := h.States(metas)[0]; st != (SessionState{Model: "anthropic:claude-haiku-5-5", PermissionMode: "acceptEdits", Open: true}) {
		t.Errorf("open session's state = %+v", st)
	}

	h.Close()
	h2 := NewHost(context.Background(), h.base)
	t.Cleanup(h2.Close)
	if st := h2.States(metas)[0]; st != (SessionState{Model: "anthropic:claude-haiku-5-5", PermissionMode: "plan"}) {
		t.Errorf("closed session's state = %+v, want the recorded model and the user's defaultMode", st)
	}

	// A repository's committed defaultMode applies once the workspace is
	// trusted, as it does when the session opens.
	ws := t.TempDir()
	writeTestFile(t, filepath.Join(ws, ".nova", "settings.json"), `{"permissions": {"defaultMode": "acceptEdits"}}`)
	other := []session.Meta{{ID: "elsewhere", WorkspaceDir: ws}}
	if st := h2.States(other)[0]; st.PermissionMode != "plan" {
		t.Errorf("untrusted workspace: mode %q, want the user's plan", st.PermissionMode)
	}
	if _, _, err := config.NewTrustStore(h.base.NovaHome).Trust(ws); err != nil {
		t.Fatal(err)
	}
	if st := h2.States(other)[0]; st.PermissionMode != "acceptEdits" {
		t.Errorf("trusted workspace: mode %q, want the project's acceptEdits", st.PermissionMode)
	}

	// --permission-mode wins over the settings.
	o := h.base
	o.PermissionMode = "default"
	h3 := NewHost(context.Background(), o)
	t.Cleanup(h3.Close)
	if st := h3.States(metas)[0]; st.PermissionMode != "default" {
		t.Errorf("--permission-mode default: mode %q", st.PermissionMode)
	}
}

// The shared session's state is the terminal's runtime's, changed by the
// terminal's shift+tab; another session has only its recorded model.
func TestSharedStates(t *testing.T) {
	e := newTestController(t, "", Options{})
	h := NewShared(e.c.Runtime)
	metas := []session.Meta{e.c.Runtime().Session.Meta(), {ID: "other", Model: "anthropic:claude-opus-5-5"}}
	if _, err := e.c.SetMode("plan", false); err != nil {
		t.Fatal(err)
	}
	st := h.States(metas)
	if st[0].PermissionMode != "plan" || st[0].Model != e.c.Runtime().Selection.ID() || !st[0].Open {
		t.Errorf("shared session's state = %+v", st[0])
	}
	if st[1] != (SessionState{Model: "anthropic:claude-opus-5-5"}) {
		t.Errorf("another session's state = %+v", st[1])
	}
}
