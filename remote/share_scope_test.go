package remote

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
)

// shareWrites are the routes that change something and that a share's
// link may use all the same: they drive or name its one session. Every
// other route that writes must be refused to a share; a route added to
// the table that writes, and is open to shares, fails the test below
// until it is classified here on purpose.
var shareWrites = map[string]bool{
	"PATCH /api/sessions/{session_id}": true, // its title
	"POST /api/chat/stream":            true,
	"POST /api/chat":                   true,
	"POST /api/chat/interrupt":         true,
	"POST /api/chat/approve":           true,
	"POST /api/chat/answer":            true,
	// The session's operations: a share's is the terminal's session,
	// which answers them 409 (the terminal owns its model and mode).
	"POST /api/sessions/{session_id}/model":   true,
	"POST /api/sessions/{session_id}/mode":    true,
	"POST /api/sessions/{session_id}/compact": true,
	"POST /api/sessions/{session_id}/shell":   true,
}

// request is a request for pattern with its wildcards filled in.
func request(pattern, sid string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	path = strings.NewReplacer("{session_id}", sid, "{key}", "researcher", "{memory_id}", "mem_nope").Replace(path)
	return method, path
}

// A share's token is refused, 403 saying a share cannot do it, on every
// route of the server's own table that reaches beyond its session: every
// global write and the directory picker. The server's own token reaches
// each of them (the positive control). Walking the table the mux is
// built from, a new route cannot be forgotten.
func TestShareRefusesWhatLiesBeyondItsSession(t *testing.T) {
	t.Parallel()
	share := newSharedEnv(t)
	sid := share.rt.Session.ID()
	own, _ := newHostServer(t)
	bodies := map[string]string{
		"POST /api/config/providers":                  `{"key":"attacker","type":"openai-compatible","base_url":"http://127.0.0.1:9/v1"}`,
		"POST /api/config/models":                     `{"provider":"attacker","model":"m"}`,
		"POST /api/agents":                            `{"key":"researcher","name":"R","model":"m","provider":"anthropic"}`,
		"PATCH /api/agents/{key}":                     `{"model":"m","provider":"anthropic"}`,
		"PUT /api/sessions/{session_id}/workspace":    `{"workspace_dir":null}`,
		"POST /api/sessions/{session_id}/mcp/approve": `{"name":"proj","approved":true}`,
		"PATCH /api/sessions/{session_id}":            `{"title":"t"}`,
		"POST /api/chat/interrupt":                    `{"session_id":"x"}`,
		"POST /api/chat/approve":                      `{"request_id":"apr_x","approved":true}`,
		"POST /api/chat/answer":                       `{"question_id":"q","declined":true}`,
		"POST /api/chat":                              `{}`,
		"POST /api/chat/stream":                       `{}`,
	}
	refused := 0
	for _, rt := range share.srv.table {
		if rt.scope == scopePublic {
			continue
		}
		method, _ := request(rt.pattern, sid)
		writes := method != "GET" && method != "HEAD"
		if rt.scope.shareMay() {
			if writes && !shareWrites[rt.pattern] {
				t.Errorf("%s writes and is open to shares: refuse it to them (scopeWrite), or list it in shareWrites if it only drives the shared session", rt.pattern)
			}
			continue
		}
		refused++
		method, path := request(rt.pattern, sid)
		code, body, _ := share.do(method, path, bodies[rt.pattern])
		if code != 403 || !strings.Contains(body, "a shared session's link cannot do this") {
			t.Errorf("share %s: %d %s, want 403 saying a share cannot do it", rt.pattern, code, body)
		}
		// The server's own token gets past the guard to the handler.
		method, path = request(rt.pattern, "01JZZZZZZZZZZZZZZZZZZZZZZZ")
		if code, body, _ := own.do(method, path, bodies[rt.pattern]); code == 401 || code == 403 {
			t.Errorf("nova serve's own token on %s: %d %s", rt.pattern, code, body)
		}
	}
	if refused == 0 {
		t.Fatal("no route is refused to shares")
	}
	for _, want := range []string{"GET /api/fs/list", "POST /api/config/providers", "POST /api/config/models", "POST /api/agents",
		"PATCH /api/agents/{key}", "DELETE /api/agents/{key}", "DELETE /api/memories/{memory_id}", "PUT /api/sessions/{session_id}/workspace",
		"DELETE /api/sessions/{session_id}", "POST /api/sessions/{session_id}/mcp/approve"} {
		found := false
		for _, rt := range share.srv.table {
			if rt.pattern == want {
				found = !rt.scope.shareMay()
			}
		}
		if !found {
			t.Errorf("%s is not refused to shares", want)
		}
	}
}

// The attack of issue 23: a share's link adds a provider to config.json
// that every later session, the terminal's own included, would use. It
// is refused, config.json is left as it was, and a new session still
// picks the model it did.
func TestShareCannotAddProvider(t *testing.T) {
	t.Parallel()
	e := newSharedEnv(t)
	before, _ := os.ReadFile(filepath.Join(e.o.NovaHome, "config.json"))
	code, body, _ := e.do("POST", "/api/config/providers", `{"key":"attacker","type":"openai-compatible","base_url":"http://127.0.0.1:9/v1","api_key":"x"}`)
	if code != 403 {
		t.Fatalf("a share adding a provider: %d %s, want 403", code, body)
	}
	after, _ := os.ReadFile(filepath.Join(e.o.NovaHome, "config.json"))
	if string(after) != string(before) || strings.Contains(string(after), "attacker") {
		t.Fatalf("config.json changed under a share: %s", after)
	}
	f, err := config.LoadFile(e.o.NovaHome)
	if err != nil {
		t.Fatal(err)
	}
	sel, _, err := live.SelectModel(t.Context(), live.Options{NovaHome: e.o.NovaHome, Getenv: e.o.Getenv}, f)
	if err != nil || sel.Provider.Key != "anthropic" {
		t.Errorf("a new session's model: %s %v, want anthropic's", sel.ID(), err)
	}
}
