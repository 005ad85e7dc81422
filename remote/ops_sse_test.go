package remote

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// The runs of !cmd and /compact started over HTTP are the session's chat
// stream, as a chat's run is: an SSE client that resumes the stream gets
// the command's call and output, then the compaction, not the last
// chat's frames.
func TestSessionOpsOnTheSSEStream(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("SENTINEL-OLD-TURN ", 2000)
	ts, _ := newHostServer(t, llmtest.Turn{Text: long}, llmtest.Turn{Text: long}, llmtest.Turn{Text: long},
		llmtest.Turn{Text: "SENTINEL-SUMMARY of the session"})
	id := ts.newSession()
	ts.chatIn(id, "two")
	ts.chatIn(id, "three")
	resume := func() string {
		t.Helper()
		code, body, _ := ts.do("POST", "/api/chat/stream", fmt.Sprintf(`{"session_id":%q,"resume_from_seq":0}`, id))
		if code != 200 {
			t.Fatalf("resume: %d %s", code, body)
		}
		return body
	}
	if body := resume(); !strings.Contains(body, "SENTINEL-OLD-TURN") {
		t.Fatalf("positive control: the chat's stream lacks its answer: %.300s", body)
	}

	code, body, _ := ts.do("POST", "/api/sessions/"+id+"/shell", `{"command":"echo SENTINEL-SSE-SHELL"}`)
	if code != 200 || !strings.Contains(body, "SENTINEL-SSE-SHELL") {
		t.Fatalf("POST shell: %d %s", code, body)
	}
	stream := resume()
	if !strings.Contains(stream, `"toolName":"Bash"`) || !strings.Contains(stream, "SENTINEL-SSE-SHELL") || strings.Contains(stream, "SENTINEL-OLD-TURN") {
		t.Errorf("the SSE stream after !cmd is not the command's run:\n%.2000s", stream)
	}
	// The command is one of the session's messages at once, before any
	// prompt.
	if code, msgs, _ := ts.do("GET", "/api/sessions/"+id+"/messages", ""); code != 200 || !strings.Contains(msgs, "bash-stdout") || !strings.Contains(msgs, "SENTINEL-SSE-SHELL") {
		t.Errorf("GET messages right after !cmd: %d %.2000s", code, msgs)
	}
	if !strings.Contains(stream, `"type":"finish"`) {
		t.Errorf("the command's stream does not finish:\n%.2000s", stream)
	}

	code, body, _ = ts.do("POST", "/api/sessions/"+id+"/compact", `{}`)
	if code != 200 {
		t.Fatalf("POST compact: %d %s", code, body)
	}
	if stream := resume(); !strings.Contains(stream, "data-nova-compaction") || strings.Contains(stream, "SENTINEL-SSE-SHELL") {
		t.Errorf("the SSE stream after /compact is not the compaction's run:\n%.2000s", stream)
	}
}
