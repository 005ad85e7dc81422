package remote

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
)

// An idle session of nova serve is closed, its MCP servers stopped, and
// the next request opens it again with its history, as if it had never
// closed. A session a WebSocket follows counts as in use.
func TestServeClosesIdleSessions(t *testing.T) {
	t.Parallel()
	var host *live.Host
	ts, model := newWrappedHostServer(t, func(h *live.Host) Host { host = h; return h },
		llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	name := withMCPServer(t, ts)
	id := ts.newSession()
	waitMCPProcs(t, name, 1)
	stop := host.CloseIdle(50 * time.Millisecond)
	defer stop()
	waitMCPProcs(t, name, 0) // closed: its server stopped

	code, body, _ := ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"and again"}`, id))
	if code != 200 || !strings.Contains(body, "two") {
		t.Fatalf("the next turn after the close: %d %s", code, body)
	}
	reqs := model.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, `"hi"`) || !strings.Contains(last, "one") {
		t.Errorf("the reopened session lost its history: %s", last)
	}
	if code, body, _ := ts.do("GET", "/api/sessions/"+id+"/messages", ""); code != 200 || !strings.Contains(body, "and again") {
		t.Errorf("messages after the reopen: %d %s", code, body)
	}
}

// A WebSocket subscription watches the session (live.Session.Watch), so
// an open page keeps it open; unsubscribing lets it go.
func TestWSSubscriptionWatchesTheSession(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, llmtest.Turn{Text: "hello"})
	sid := e.newSession()
	sess, err := e.o.Sessions.Open(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	c := e.connect(t)
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":1}`, sid))
	c.until(func(m wsMsg) bool { return m.is("ok", "1") })
	waitFor(t, "the subscription to watch the session", sess.Watched)
	c.send(fmt.Sprintf(`{"type":"unsubscribe","session_id":%q,"id":2}`, sid))
	c.until(func(m wsMsg) bool { return m.is("ok", "2") })
	if sess.Watched() {
		t.Error("still watched after unsubscribe")
	}
}
