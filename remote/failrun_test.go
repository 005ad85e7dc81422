package remote

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm/llmtest"
)

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
