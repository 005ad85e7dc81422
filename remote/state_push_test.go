package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
)

// stateMsg reads a state message's model and mode.
func stateMsg(t *testing.T, m wsMsg) (model, mode string) {
	t.Helper()
	var st struct {
		Model          string `json:"model"`
		PermissionMode string `json:"permission_mode"`
	}
	if err := json.Unmarshal([]byte(m.raw), &st); err != nil {
		t.Fatal(err)
	}
	return st.Model, st.PermissionMode
}

// A page following a session over /ws is told when its mode or model
// changes through another client (here the HTTP routes), without asking.
func TestWSToldOfModeAndModelChanges(t *testing.T) {
	t.Parallel()
	ts, _ := hostServer(t, llmtest.Turn{Text: "hello"})
	e := &wsEnv{testServer: ts}
	id := ts.newSession()
	c := e.connect(t)
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":1}`, id))
	if m, _ := c.until(func(m wsMsg) bool { return m.Type == "ok" || m.Type == "error" }); m.Type != "ok" {
		t.Fatalf("subscribe: %s", m.raw)
	}
	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/mode", `{"mode":"plan"}`); code != 200 {
		t.Fatalf("POST mode: %d %s", code, body)
	}
	m, _ := c.until(func(m wsMsg) bool { return m.Type == "state" })
	if _, mode := stateMsg(t, m); m.SessionID != id || mode != "plan" {
		t.Fatalf("state after the mode switch: %s", m.raw)
	}
	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/model", `{"model":"haiku"}`); code != 200 {
		t.Fatalf("POST model: %d %s", code, body)
	}
	// A switch on a server reopens the session with the new runtime: the
	// page is told to follow it again, and the changes it is told of then
	// are the new runtime's.
	c.until(func(m wsMsg) bool { return m.Type == "unsubscribed" && m.SessionID == id })
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":2}`, id))
	if m, _ := c.until(func(m wsMsg) bool { return m.Type == "ok" || m.Type == "error" }); m.Type != "ok" {
		t.Fatalf("subscribe again: %s", m.raw)
	}
	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/mode", `{"mode":"acceptEdits"}`); code != 200 {
		t.Fatalf("POST mode: %d %s", code, body)
	}
	m, _ = c.until(func(m wsMsg) bool { return m.Type == "state" })
	if model, mode := stateMsg(t, m); model != "anthropic:claude-haiku-5-5" || mode != "acceptEdits" {
		t.Fatalf("state after the switches: %s", m.raw)
	}
}

// The browser a terminal session is shared to is told of the terminal's
// shift+tab at once.
func TestWSToldOfTerminalsModeSwitch(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Turn{Text: "hello"})
	t.Cleanup(srv.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	o := Options{Host: "127.0.0.1", Token: testToken, NovaHome: filepath.Join(t.TempDir(), ".nova"), Home: t.TempDir(),
		Workdir: t.TempDir(), Getenv: func(k string) string { return env[k] }}
	ctl, err := live.NewController(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home,
		Getenv: o.Getenv, NoSandbox: true, Interactive: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctl.Close("other") })
	o.Sessions = live.NewSharedController(ctl)
	o.Share = true
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.ws.shutdown()
		s.ws.wg.Wait()
		hs.Close()
	})
	e := &wsEnv{testServer: &testServer{t: t, srv: s, url: hs.URL, o: o}, llm: srv}
	id := ctl.Runtime().Session.ID()
	c := e.connect(t)
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":1}`, id))
	if m, _ := c.until(func(m wsMsg) bool { return m.Type == "ok" || m.Type == "error" }); m.Type != "ok" {
		t.Fatalf("subscribe: %s", m.raw)
	}
	if got := ctl.CycleMode(); got != "acceptEdits" { // the terminal's shift+tab
		t.Fatalf("shift+tab went to %s", got)
	}
	m, _ := c.until(func(m wsMsg) bool { return m.Type == "state" })
	if _, mode := stateMsg(t, m); m.SessionID != id || mode != "acceptEdits" {
		t.Fatalf("state after shift+tab: %s", m.raw)
	}
}
