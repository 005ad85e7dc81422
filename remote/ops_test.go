package remote

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// lastModel is the model the provider's last request named.
func lastModel(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the provider saw no request")
	}
	var body struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Model
}

// chatIn runs one turn of session id through POST /api/chat.
func (ts *testServer) chatIn(id, message string) string {
	ts.t.Helper()
	code, body, _ := ts.do("POST", "/api/chat", `{"session_id":"`+id+`","message":"`+message+`"}`)
	if code != 200 {
		ts.t.Fatalf("POST /api/chat: %d %s", code, body)
	}
	return body
}

// The session's operations over HTTP, each checked where a user sees it:
// the model the next request names, a Write plan mode stops (the file on
// disk), bypassPermissions refused, a command's output and exit code and
// the model told of it, the rules with their sources, a compaction that
// shortens the next request.
func TestSessionOpsOverHTTP(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("SENTINEL-OLD-TURN ", 2000)
	ts, srv := newHostServer(t,
		llmtest.Turn{Text: long},
		llmtest.Turn{Text: "on haiku"},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "Write", Input: `{"file_path": "planned.txt", "content": "x"}`}}},
		llmtest.Turn{Text: "stopped"},
		llmtest.Turn{Text: "SENTINEL-SUMMARY of the session"},
		llmtest.Turn{Text: "after compaction"},
	)
	id := ts.newSession()
	before := len(srv.Requests()[0].Body)

	// An unknown model: 400 listing the known ones; the session keeps its own.
	code, body, _ := ts.do("POST", "/api/sessions/"+id+"/model", `{"model":"nope-9"}`)
	if code != 400 || !strings.Contains(body, `"known"`) || !strings.Contains(body, "claude-haiku-5-5") {
		t.Errorf("unknown model: %d %s", code, body)
	}
	code, body, _ = ts.do("POST", "/api/sessions/"+id+"/model", `{"model":"haiku"}`)
	if code != 200 || !strings.Contains(body, "claude-haiku-5-5") {
		t.Fatalf("POST model haiku: %d %s", code, body)
	}
	ts.chatIn(id, "which model")
	if got := lastModel(t, srv); got != "claude-haiku-5-5" {
		t.Errorf("after the switch the request named %q", got)
	}

	// bypassPermissions is refused remotely; plan stops a Write.
	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/mode", `{"mode":"bypassPermissions"}`); code != 403 {
		t.Errorf("bypassPermissions over HTTP: %d %s", code, body)
	}
	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/mode", `{"mode":"plan"}`); code != 200 || !strings.Contains(body, `"plan"`) {
		t.Fatalf("POST mode plan: %d %s", code, body)
	}
	ts.chatIn(id, "write planned.txt")
	if _, err := os.Stat(filepath.Join(ts.o.Workdir, "planned.txt")); err == nil {
		t.Error("plan mode set over HTTP let a Write make its file")
	}
	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/mode", `{"mode":"default"}`); code != 200 {
		t.Fatalf("POST mode default: %d %s", code, body)
	}

	// A person's command: its output and exit code.
	code, body, _ = ts.do("POST", "/api/sessions/"+id+"/shell", `{"command":"echo SENTINEL-SHELL; exit 3"}`)
	if code != 200 {
		t.Fatalf("POST shell: %d %s", code, body)
	}
	var out struct {
		Output   string `json:"output"`
		ExitCode int    `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || !strings.Contains(out.Output, "SENTINEL-SHELL") || out.ExitCode != 3 {
		t.Errorf("POST shell answered %s (%v)", body, err)
	}
	if code, _, _ := ts.do("POST", "/api/sessions/"+id+"/shell", `{"command":"  "}`); code != 400 {
		t.Errorf("an empty command: %d, want 400", code)
	}

	// The rules in force, each with where it comes from.
	code, body, _ = ts.do("GET", "/api/sessions/"+id+"/rules", "")
	if code != 200 || !strings.Contains(body, `"items"`) {
		t.Errorf("GET rules: %d %s", code, body)
	}
	var rules struct {
		Items []ruleItem `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &rules); err != nil {
		t.Fatal(err)
	}
	for _, r := range rules.Items {
		if r.Rule == "" || r.Behavior == "" || r.Source == "" {
			t.Errorf("a rule without its rule, behaviour or source: %+v", r)
		}
	}

	// Compaction: answered when done, and the next request is shorter
	// and carries the summary instead of the old turn.
	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/compact", `{}`); code != 200 || !strings.Contains(body, "compacted") {
		t.Fatalf("POST compact: %d %s", code, body)
	}
	ts.chatIn(id, "go on")
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if len(last) >= before+len(long) || strings.Contains(last, "SENTINEL-OLD-TURN") || !strings.Contains(last, "SENTINEL-SUMMARY") {
		t.Errorf("the request after POST compact does not carry the summary in place of the old turn (%d bytes):\n%.300s", len(last), last)
	}

	// An unknown session: 404.
	if code, _, _ := ts.do("POST", "/api/sessions/nope/mode", `{"mode":"plan"}`); code != 404 {
		t.Errorf("an unknown session: %d, want 404", code)
	}
}

// The same operations over /ws: the message's id comes back in its ok or
// error, the ok carries the HTTP route's answer.
func TestSessionOpsOverWS(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, llmtest.Turn{Text: "first"}, llmtest.Turn{Text: "second"})
	id := e.newSession()
	c := e.connect(t)

	c.send(`{"type":"set_model","session_id":"` + id + `","model":"nope-9","id":1}`)
	m, _ := c.until(func(m wsMsg) bool { return string(m.ID) == "1" })
	if m.Type != "error" || !strings.Contains(m.raw, "claude-haiku-5-5") {
		t.Errorf("set_model to an unknown model: %s", m.raw)
	}
	c.send(`{"type":"set_model","session_id":"` + id + `","model":"haiku","id":2}`)
	if m, _ := c.until(func(m wsMsg) bool { return string(m.ID) == "2" }); !m.is("ok", "2") || !strings.Contains(m.raw, "claude-haiku-5-5") {
		t.Errorf("set_model haiku: %s", m.raw)
	}
	c.send(`{"type":"set_mode","session_id":"` + id + `","mode":"bypassPermissions","id":3}`)
	if m, _ := c.until(func(m wsMsg) bool { return string(m.ID) == "3" }); m.Type != "error" {
		t.Errorf("set_mode bypassPermissions over /ws: %s", m.raw)
	}
	c.send(`{"type":"shell","session_id":"` + id + `","command":"echo SENTINEL-WS","id":4}`)
	if m, _ := c.until(func(m wsMsg) bool { return string(m.ID) == "4" }); !m.is("ok", "4") || !strings.Contains(m.raw, "SENTINEL-WS") {
		t.Errorf("shell over /ws: %s", m.raw)
	}
	e.chatIn(id, "and now")
	if got := lastModel(t, e.llm); got != "claude-haiku-5-5" {
		t.Errorf("after set_model over /ws the request named %q", got)
	}
}
