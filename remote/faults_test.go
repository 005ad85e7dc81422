package remote

import (
	"fmt"
	"net/http"
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
