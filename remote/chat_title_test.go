package remote

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
)

// TestEverySessionGetsATitle is issue 25's one title policy: a session
// started by POST /api/chat, POST /api/chat/stream or /ws's prompt is
// named after its first exchange by the server (live's policy: the
// prompt cut short), with no client naming it, so the session list is
// readable whoever started a session; a later prompt does not rename it.
func TestEverySessionGetsATitle(t *testing.T) {
	t.Parallel()
	long := "Fix the login bug where a user who signs in from two tabs at once loses the cart of the first one\nwith the details below"
	e := newWSEnv(t, wsConfig{}, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."}, llmtest.Turn{Text: "Three."}, llmtest.Turn{Text: "Four."})
	title := func(what, id string) string {
		t.Helper()
		it, ok := e.listed(id)
		if !ok {
			t.Fatalf("%s: session %s is not listed", what, id)
		}
		return it.Title
	}

	code, body, _ := e.do("POST", "/api/chat", jsonText(map[string]string{"message": long}))
	if code != 200 {
		t.Fatalf("POST /api/chat: %d %s", code, body)
	}
	id := decode[chatResponse](t, body).SessionID
	want := live.ShortTitle(long)
	if got := title("POST /api/chat", id); got != want || !strings.HasPrefix(got, "Fix the login bug") || strings.Contains(got, "details") {
		t.Errorf("POST /api/chat: title %q, want %q (the first line cut short)", got, want)
	}
	if code, body, _ := e.do("POST", "/api/chat", jsonText(map[string]string{"session_id": id, "message": "Something else"})); code != 200 {
		t.Fatalf("second POST /api/chat: %d %s", code, body)
	}
	if got := title("a second prompt", id); got != want {
		t.Errorf("a second prompt renamed the session to %q", got)
	}

	r := e.openStream(`{"message":"Stream a title"}`)
	sid := sessionOf(t, r)
	r.rest()
	if got := title("POST /api/chat/stream", sid); got != "Stream a title" {
		t.Errorf("POST /api/chat/stream: title %q", got)
	}

	c := e.connect(t)
	c.send(`{"type":"prompt","session_id":"","text":"Named over the socket","id":1}`)
	s := c.next()
	if !s.is("session", "1") || s.SessionID == "" {
		t.Fatalf("/ws prompt: first answer %s, want the new session", s.raw)
	}
	c.toDone(s.SessionID)
	if got := title("/ws prompt", s.SessionID); got != "Named over the socket" {
		t.Errorf("/ws prompt: title %q", got)
	}
}
