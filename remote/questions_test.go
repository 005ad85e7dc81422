package remote

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

const twoQuestions = `{"questions":[` +
	`{"question":"Which database?","header":"DB","options":[{"label":"Postgres"},{"label":"SQLite"}]},` +
	`{"question":"Which extras?","header":"Extras","multiSelect":true,"options":[{"label":"Cache"},{"label":"Search"}]}]}`

// askTurns are a run that asks two questions, then says what it got.
func askTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_q", Name: "AskUserQuestion", Input: twoQuestions}}},
		{Text: "Noted."},
	}
}

// A question is answered over the WebSocket, by its session only, with
// one answer per question; everyone sees it answered, the model gets the
// answers, and a second answer comes too late.
func TestWSAnswerQuestion(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, append([]llmtest.Turn{{Text: "other"}}, askTurns()...)...)
	other := e.newSession()
	c := e.connect(t)
	c.send(`{"type":"prompt","session_id":"","text":"set it up","id":1}`)
	sid := c.next().SessionID
	m, _ := c.until(func(m wsMsg) bool { return m.event(sid, agent.EventQuestion) })
	q := m.Event.Question
	if q == nil || q.ID == "" || len(q.Questions) != 2 || q.Questions[0].Options[1].Label != "SQLite" {
		t.Fatalf("question %s", m.raw)
	}
	for i, bad := range []struct{ msg, want string }{
		{fmt.Sprintf(`{"type":"answer","session_id":%q,"question_id":%q,"answers":["SQLite","Cache"]}`, other, q.ID), "not pending in session " + other},
		{fmt.Sprintf(`{"type":"answer","session_id":%q,"question_id":"nope","answers":["x"]}`, sid), "not pending"},
		{fmt.Sprintf(`{"type":"answer","session_id":%q,"question_id":%q,"answers":["SQLite"]}`, sid, q.ID), "must hold 2 answers"},
		{fmt.Sprintf(`{"type":"answer","session_id":%q,"question_id":%q}`, sid, q.ID), "must hold 2 answers"},
		{fmt.Sprintf(`{"type":"answer","session_id":%q,"answers":["a","b"]}`, sid), "question_id is required"},
		{fmt.Sprintf(`{"type":"answer","session_id":%q,"question_id":%q,"answers":"SQLite"}`, sid, q.ID), "answers must be a list"},
	} {
		c.send(bad.msg[:len(bad.msg)-1] + fmt.Sprintf(`,"id":%d}`, 10+i))
		if r := c.next(); !r.is("error", fmt.Sprint(10+i)) || !strings.Contains(r.Detail, bad.want) {
			t.Errorf("%s: %s, want an error saying %q", bad.msg, r.raw, bad.want)
		}
	}
	c.send(fmt.Sprintf(`{"type":"answer","session_id":%q,"question_id":%q,"answers":["SQLite","Cache, Search"],"id":2}`, sid, q.ID))
	msgs := c.toDone(sid)
	if _, ok := find(msgs, func(m wsMsg) bool { return m.is("ok", "2") }); !ok {
		t.Error("no ok for the answer")
	}
	if a, ok := find(msgs, func(m wsMsg) bool { return m.event(sid, agent.EventAnswered) }); !ok || a.Event.Answered.ID != q.ID {
		t.Errorf("answered %s", a.raw)
	}
	reqs := e.llm.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "SQLite") || !strings.Contains(last, "Cache, Search") {
		t.Errorf("the model was not given the answers: %s", last)
	}
	c.send(fmt.Sprintf(`{"type":"answer","session_id":%q,"question_id":%q,"answers":["Postgres","Cache"],"id":3}`, sid, q.ID))
	if r := c.next(); !r.is("error", "3") || !strings.Contains(r.Detail, "not pending") {
		t.Errorf("a second answer: %s", r.raw)
	}
}

// POST /api/chat/answer is approve's twin: 404 for a question not pending
// in the session, 400 for a bad answer, and declined tells the model so.
func TestHTTPAnswerQuestion(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, append([]llmtest.Turn{{Text: "other"}}, askTurns()...)...)
	other := e.newSession()
	c := e.connect(t)
	c.send(`{"type":"prompt","session_id":"","text":"set it up"}`)
	sid := c.next().SessionID
	m, _ := c.until(func(m wsMsg) bool { return m.event(sid, agent.EventQuestion) })
	q := m.Event.Question
	for _, k := range []struct {
		query, body string
		code        int
		want        string
	}{
		{"", `{"question_id":"` + q.ID + `","declined":true}`, 400, "session_id (query) is required"},
		{"?session_id=" + other, `{"question_id":"` + q.ID + `","declined":true}`, 404, "not pending in session " + other},
		{"?session_id=nope", `{"question_id":"` + q.ID + `","declined":true}`, 404, "not pending"},
		{"?session_id=" + sid, `{"question_id":"` + q.ID + `","answers":["a"],"declined":true}`, 400, "not both"},
		{"?session_id=" + sid, `{"question_id":"` + q.ID + `","answers":["a"]}`, 400, "must hold 2 answers"},
		{"?session_id=" + sid, `{"question_id":"` + q.ID + `","answers":[1]}`, 400, ""},
	} {
		if code, body, _ := e.do("POST", "/api/chat/answer"+k.query, k.body); code != k.code || !strings.Contains(body, k.want) {
			t.Errorf("%s %s: %d %s, want %d saying %q", k.query, k.body, code, body, k.code, k.want)
		}
	}
	code, body, _ := e.do("POST", "/api/chat/answer?session_id="+sid, `{"question_id":"`+q.ID+`","declined":true}`)
	if code != 200 || !strings.Contains(body, `"resolved"`) {
		t.Fatalf("declining: %d %s", code, body)
	}
	msgs := c.toDone(sid)
	res, ok := find(msgs, func(m wsMsg) bool { return m.event(sid, agent.EventToolResult) })
	if !ok || !res.Event.Result.IsError || !strings.Contains(res.Event.Result.Output, "declined") {
		t.Errorf("the tool's result %s, want the person declined", res.raw)
	}
	if code, body, _ := e.do("POST", "/api/chat/answer?session_id="+sid, `{"question_id":"`+q.ID+`","declined":true}`); code != 404 {
		t.Errorf("a second answer: %d %s", code, body)
	}
}

// A subagent's events reach the socket as they are: the Agent call they
// work for and the subagent, also when an event needs the encoder's
// fallback (a tool input that is not JSON).
func TestWSFrameKeepsSubagent(t *testing.T) {
	t.Parallel()
	ref := &agent.AgentRef{ID: "a1", Type: "Explore", Description: "look"}
	for _, ev := range []agent.Event{
		{Type: agent.EventTextDelta, Text: "sub text", ParentToolUseID: "toolu_agent", Agent: ref},
		{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "Bash", Input: json.RawMessage(`{not json`)},
			ParentToolUseID: "toolu_agent", Agent: ref},
	} {
		b := encodeFrame("s1", "r1", live.Frame[agent.Event]{Seq: 3, Value: ev})
		var m wsMsg
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if m.Event == nil || m.Event.ParentToolUseID != "toolu_agent" || m.Event.Agent == nil || *m.Event.Agent != *ref {
			t.Errorf("frame %s lost the subagent", b)
		}
	}
}
