package remote

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
)

// savedSession writes a session as a nova serve killed before would have
// left it: a transcript of msgs in the server's NOVA_HOME, open nowhere.
func savedSession(t *testing.T, o Options, msgs ...llm.Message) string {
	t.Helper()
	s, err := session.NewStore(o.NovaHome).Create(session.Meta{WorkspaceDir: o.Workdir, AgentKey: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

// refused is a provider turn that fails for good (not retried): the run
// fails with the provider's words.
var refused = llmtest.Turn{Status: http.StatusBadRequest, ErrorType: "invalid_request_error", ErrorMessage: "prompt is too odd"}

// A failed run says so once on a chat stream: one error part (then
// finish), not one for the error event and another for the done.
func TestSSEFailedRunOneError(t *testing.T) {
	t.Parallel()
	ts, _ := newHostServer(t, refused)
	r := ts.openStream(`{"message":"hi"}`)
	var types []string
	errors := 0
	for {
		f, ok := r.next()
		if !ok {
			break
		}
		types = append(types, f.Type)
		if f.Type == "error" {
			errors++
			if txt, _ := f.Raw["errorText"].(string); !strings.Contains(txt, "prompt is too odd") {
				t.Errorf("the error part says %q, not the provider's words", txt)
			}
		}
	}
	if !r.done {
		t.Fatalf("the stream ended without [DONE]: %v", types)
	}
	if errors != 1 || types[len(types)-1] != "finish" {
		t.Errorf("%d error parts, want 1, then finish: %v", errors, types)
	}
}

// On /ws a failed run has one error event and a done that says the run
// failed; the error is not repeated.
func TestWSFailedRunOneError(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, refused)
	c := e.connect(t)
	c.send(`{"type":"prompt","session_id":"","text":"hi","id":1}`)
	sid := c.next().SessionID
	msgs := c.toDone(sid)
	errors := 0
	var types []string
	for _, m := range msgs {
		typ := m.Type
		if m.Event != nil {
			typ = string(m.Event.Type)
		}
		types = append(types, typ)
		if typ == "error" {
			errors++
		}
	}
	d := msgs[len(msgs)-1].Event.Done
	if errors != 1 || d == nil || !d.IsError || d.Subtype != agent.SubtypeError || !strings.Contains(d.Error, "prompt is too odd") {
		t.Errorf("%d error messages, want 1, and a failed done (%+v): %s", errors, d, strings.Join(types, " "))
	}
	if t.Failed() {
		for _, m := range msgs {
			fmt.Println(m.raw)
		}
	}
}

// After a restart the session's numbers start again, so a client holding
// a run and a cursor of the old server is told resync before the ok of
// its subscribe (docs/remote.md), and nothing else comes first.
func TestWSResyncBeforeOKAfterRestart(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{})
	sid := savedSession(t, e.o, llm.UserText("hi"), llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("hello")}})
	c := e.connect(t)
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"run":"01J00000000000000000000000","after_seq":42,"id":1}`, sid))
	r := c.next()
	ok := c.next()
	if r.Type != "resync" || r.SessionID != sid || r.FromSeq != 1 || r.Run != "" {
		t.Errorf("first message %s, want a resync from 1", r.raw)
	}
	if !ok.is("ok", "1") || ok.SessionID != sid {
		t.Errorf("second message %s, want the ok", ok.raw)
	}
	// The control: a client with nothing yet gets the ok alone.
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"after_seq":0,"id":2}`, sid))
	if m := c.next(); !m.is("ok", "2") {
		t.Errorf("a fresh subscribe got %s first, want its ok", m.raw)
	}
	c.send(`{"type":"unsubscribe","session_id":"` + sid + `","id":3}`)
	if m := c.next(); !m.is("ok", "3") {
		t.Errorf("after the fresh subscribe came %s, want only the unsubscribe's ok", m.raw)
	}
}

// killedMidTool is the history a nova killed while a tool ran leaves: the
// model's call, recorded, and no result.
func killedMidTool() []llm.Message {
	return []llm.Message{
		llm.UserText("count the files"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("I'll count them."),
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_killed", Name: "Bash", Input: json.RawMessage(`{"command":"ls | wc -l"}`)}}}},
	}
}

// shownMessages is GET /api/sessions/{id}/messages: each record's role,
// calls and the call it answers.
func shownMessages(t *testing.T, ts *testServer, id string) []messageRecord {
	t.Helper()
	code, body, _ := ts.do("GET", "/api/sessions/"+id+"/messages", "")
	if code != 200 {
		t.Fatalf("GET messages: %d %s", code, body)
	}
	return decode[struct {
		Items []messageRecord `json:"items"`
	}](t, body).Items
}

// unanswered lists the calls of records that no later tool record answers.
func unanswered(items []messageRecord) []string {
	answered := map[string]bool{}
	for _, m := range items {
		if m.Role == "tool" && m.ToolCallID != nil {
			answered[*m.ToolCallID] = true
		}
	}
	var out []string
	for _, m := range items {
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				out = append(out, c.ID)
			}
		}
	}
	return out
}

// anthropicUnanswered checks a Messages request the way the provider does
// for results: every tool_use is answered by a tool_result in the message
// right after it, once.
func anthropicUnanswered(t *testing.T, body []byte) (missing []string, results map[string]int) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	results = map[string]int{}
	for i, m := range req.Messages {
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				results[b.ToolUseID]++
			}
			if b.Type != "tool_use" {
				continue
			}
			found := false
			if i+1 < len(req.Messages) {
				for _, n := range req.Messages[i+1].Content {
					found = found || (n.Type == "tool_result" && n.ToolUseID == b.ID)
				}
			}
			if !found {
				missing = append(missing, b.ID)
			}
		}
	}
	return missing, results
}

// After a SIGKILL mid-tool and a restart, GET /messages shows the call
// answered (no call without a result), without writing the file; opening
// the session answers it in the file, once, and the next request is one
// the provider accepts.
func TestMessagesAfterKillMidTool(t *testing.T) {
	t.Parallel()
	ts, prov := newHostServer(t, llmtest.Turn{Text: "there are 3"})
	id := savedSession(t, ts.o, killedMidTool()...)
	file := filepath.Join(ts.o.NovaHome, "sessions", id, "transcript.jsonl")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	items := shownMessages(t, ts, id)
	if miss := unanswered(items); len(miss) > 0 || len(items) != 3 {
		t.Errorf("GET messages shows calls without results %v (%d records, want 3)", miss, len(items))
	}
	if last := items[len(items)-1]; last.Role != "tool" || !strings.Contains(last.Content, session.NoResultText) {
		t.Errorf("last record %+v, want the call's answer saying it has no result", last)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Errorf("GET messages rewrote the transcript:\n%s", after)
	}

	// Opening the session (here for its context figure) answers the call
	// in the file, before any run.
	if code, body, _ := ts.do("GET", "/api/sessions/"+id+"/context", ""); code != 200 {
		t.Fatalf("GET context: %d %s", code, body)
	}
	if after, _ := os.ReadFile(file); !strings.Contains(string(after), session.NoResultText) {
		t.Errorf("opening the session left the call unanswered in the file:\n%s", after)
	}

	code, body, _ := ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"go on"}`, id))
	if code != 200 {
		t.Fatalf("POST /api/chat: %d %s", code, body)
	}
	reqs := prov.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	missing, results := anthropicUnanswered(t, reqs[0].Body)
	if len(missing) > 0 || results["toolu_killed"] != 1 {
		t.Errorf("the next request leaves %v unanswered and answers toolu_killed %d times, want once:\n%s", missing, results["toolu_killed"], reqs[0].Body)
	}
	tr, _, err := session.NewStore(ts.o.NovaHome).Load(id)
	if err != nil {
		t.Fatal(err)
	}
	n, next := 0, -1
	all := tr.AllMessages()
	for i, m := range all {
		for _, p := range m.Parts {
			if p.ToolResult != nil && p.ToolResult.CallID == "toolu_killed" {
				n, next = n+1, i
			}
		}
	}
	if n != 1 || next != 2 {
		t.Errorf("the transcript answers the call %d times, in message %d; want once, right after the call", n, next)
	}
	if miss := unanswered(shownMessages(t, ts, id)); len(miss) > 0 {
		t.Errorf("after the run GET messages shows %v without results", miss)
	}
}

// While another process holds the session (its call may still be
// running), GET /messages shows the call as it is and the file is not
// touched.
func TestMessagesOfHeldSessionUntouched(t *testing.T) {
	t.Parallel()
	ts, _ := newHostServer(t)
	id := savedSession(t, ts.o, killedMidTool()...)
	held, _, err := session.NewStore(ts.o.NovaHome).Open(id) // a lock of its own, as another nova's
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	file := filepath.Join(ts.o.NovaHome, "sessions", id, "transcript.jsonl")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	items := shownMessages(t, ts, id)
	if miss := unanswered(items); len(items) != 2 || len(miss) != 1 || miss[0] != "toolu_killed" {
		t.Errorf("GET messages of a held session: %d records, unanswered %v; want the running call shown as it is", len(items), miss)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Errorf("GET messages rewrote a transcript another process holds:\n%s", after)
	}
	// The control: let go, the same session is shown answered.
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	if miss := unanswered(shownMessages(t, ts, id)); len(miss) > 0 {
		t.Errorf("released, GET messages still shows %v without results", miss)
	}
}
