package remote

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// sharedEnv is a server on live.Shared: the one session of a runtime
// the test drives as the terminal UI would (Session.Run).
type sharedEnv struct {
	*wsEnv
	rt *live.Runtime
}

func newSharedEnv(t *testing.T, turns ...llmtest.Turn) *sharedEnv {
	t.Helper()
	srv := llmtest.New(turns...)
	t.Cleanup(srv.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	o := Options{Host: "127.0.0.1", Token: testToken, NovaHome: filepath.Join(t.TempDir(), ".nova"), Home: t.TempDir(),
		Workdir: t.TempDir(), Getenv: func(k string) string { return env[k] }}
	rt, err := live.Build(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home,
		Getenv: o.Getenv, NoSandbox: true, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	o.Sessions = live.NewShared(func() *live.Runtime { return rt })
	o.Landing = func() string { return "/s/" + rt.Session.ID() }
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
	return &sharedEnv{wsEnv: &wsEnv{testServer: &testServer{t: t, srv: s, url: hs.URL, o: o}, llm: srv}, rt: rt}
}

// The terminal's runs and the browser's are runs of one session: a
// socket that follows it sees the terminal's prompt run, and the run a
// browser's prompt starts is there for the terminal to follow (not
// Local), with its prompt. An ask shown on both sides is answered once:
// the terminal answers, the socket sees it answered and its own approve
// comes too late.
func TestSharedSessionBothWays(t *testing.T) {
	t.Parallel()
	e := newSharedEnv(t,
		llmtest.Turn{Text: "Hello terminal."},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: `{"command":"touch made.txt"}`}}},
		llmtest.Turn{Text: "Made it."})
	sid := e.rt.Session.ID()
	c := e.connect(t)
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":1}`, sid))
	if m := c.next(); !m.is("ok", "1") {
		t.Fatalf("subscribe: %s", m.raw)
	}

	for range e.rt.Live.Run(context.Background(), llm.UserText("hello")) {
	}
	// The terminal's prompt comes first: the page shows it as the
	// person's message.
	if _, text := wantRun(t, wantPrompt(t, c.toDone(sid), "hello"), 1); text != "Hello terminal." {
		t.Errorf("the socket saw %q of the terminal's run", text)
	}
	own := e.rt.Live.LastRun()

	// A prompt for a new session is the shared session's.
	c.send(`{"type":"prompt","session_id":"","text":"make a file","id":2}`)
	if m := c.next(); m.Type != "session" || m.SessionID != sid {
		t.Fatalf("a prompt for a new session: %s, want session %s", m.raw, sid)
	}
	theirs, err := own.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if theirs.Local() || len(theirs.Input().Parts) == 0 || theirs.Input().Parts[0].Text != "make a file" {
		t.Fatalf("the browser's run: local %v, input %+v", theirs.Local(), theirs.Input())
	}
	var ask *agent.PermissionAsk
	for ev := range theirs.Events(context.Background()) {
		if ev.Type == agent.EventPermissionAsk {
			ask = ev.Ask
			break
		}
	}
	if ask == nil || !ask.Answer(agent.PermissionAnswer{Allow: true}) {
		t.Fatal("the terminal could not answer the browser's ask")
	}
	m, _ := c.until(func(m wsMsg) bool { return m.event(sid, agent.EventAnswered) })
	if a := m.Event.Answered; a == nil || a.RequestID != ask.RequestID || !a.Allow {
		t.Errorf("answered frame %s", m.raw)
	}
	c.send(fmt.Sprintf(`{"type":"approve","session_id":%q,"request_id":%q,"approved":false,"id":3}`, sid, ask.RequestID))
	msgs := c.toDone(sid)
	if m, ok := find(msgs, func(m wsMsg) bool { return m.ID != nil && string(m.ID) == "3" }); !ok || m.Type != "error" || !strings.Contains(m.Detail, "not pending") {
		t.Errorf("an approve after the terminal answered: %s", m.raw)
	}
	if res, ok := find(msgs, func(m wsMsg) bool { return m.event(sid, agent.EventToolResult) }); !ok || res.Event.Result.Denied {
		t.Errorf("tool result %s, want the terminal's allow", res.raw)
	}
}

// The shared server lists the terminal's session alone, leaves its
// workspace and its life to the terminal, knows no other session, and
// opening the printed URL lands on the session's page.
func TestSharedSessionEndpoints(t *testing.T) {
	t.Parallel()
	e := newSharedEnv(t)
	sid := e.rt.Session.ID()
	code, body, _ := e.do("GET", "/api/sessions", "")
	if code != 200 || strings.Count(body, `"id"`) != 1 || !strings.Contains(body, sid) {
		t.Errorf("GET /api/sessions: %d %s", code, body)
	}
	if code, body, _ := e.do("GET", "/api/sessions/"+sid+"/messages", ""); code != 200 {
		t.Errorf("messages: %d %s", code, body)
	}
	if code, body, _ := e.do("PATCH", "/api/sessions/"+sid, `{"title":"from the phone"}`); code != 200 || e.rt.Session.Meta().Title != "from the phone" {
		t.Errorf("rename: %d %s, title %q", code, body, e.rt.Session.Meta().Title)
	}
	if code, body, _ := e.do("PUT", "/api/sessions/"+sid+"/workspace", `{"workspace_dir":null}`); code != 403 || !strings.Contains(body, "in the terminal") {
		t.Errorf("workspace: %d %s, want 403", code, body)
	}
	if code, body, _ := e.do("DELETE", "/api/sessions/"+sid, ""); code != 403 {
		t.Errorf("delete: %d %s, want 403", code, body)
	}
	other := "01JZZZZZZZZZZZZZZZZZZZZZZZ"
	if code, body, _ := e.do("GET", "/api/sessions/"+other+"/messages", ""); code != 404 {
		t.Errorf("another session: %d %s, want 404", code, body)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(e.url + "/?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/s/"+sid+"#token="+testToken {
		t.Errorf("an old link: %d to %q, want the session's page", resp.StatusCode, resp.Header.Get("Location"))
	}
	if code, body, _ := e.do("GET", "/api/landing", ""); code != 200 || body != `{"path":"/s/`+sid+`"}`+"\n" {
		t.Errorf("GET /api/landing: %d %s, want the session's page", code, body)
	}
}
