package remote

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func newChatServer(t *testing.T) (*testServer, *fakeHost) {
	h := newFakeHost(t)
	ts := newTestServer(t, func(o *Options) { o.Sessions = h })
	return ts, h
}

func sessionOf(t *testing.T, r *sseReader) string {
	t.Helper()
	id := r.resp.Header.Get("x-nova-session-id")
	if id == "" {
		t.Fatal("no x-nova-session-id header")
	}
	return id
}

func TestChatStreamTextAnswer(t *testing.T) {
	t.Parallel()
	ts, h := newChatServer(t)
	h.script.push(say("Hello there."))
	r := ts.openStream(`{"message":"hi"}`)
	if r.resp.StatusCode != 200 {
		t.Fatalf("status %d", r.resp.StatusCode)
	}
	for k, v := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "x-vercel-ai-ui-message-stream": "v1"} {
		if got := r.resp.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	id := sessionOf(t, r)
	frames := r.rest()
	if !r.done {
		t.Error("the stream did not end with data: [DONE]")
	}
	var types []string
	for i, f := range frames {
		types = append(types, f.Type)
		if f.ID != int64(i+1) {
			t.Errorf("frame %d has id %d", i, f.ID)
		}
	}
	want := "start data-nova-session start-step text-start text-delta data-nova-context text-end finish-step finish"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("parts:\n got %s\nwant %s", got, want)
	}
	if d, _ := frames[1].Raw["data"].(map[string]any); d["sessionId"] != id {
		t.Errorf("data-nova-session = %v, header %s", frames[1].Raw, id)
	}
	if frames[0].Raw["messageId"] == "" || frames[4].Raw["delta"] != "Hello there." {
		t.Errorf("frames %v %v", frames[0].Raw, frames[4].Raw)
	}
}

// D1: a second turn on a busy session is refused; another session is not
// held up.
func TestChatStreamBusy(t *testing.T) {
	t.Parallel()
	ts, h := newChatServer(t)
	release := make(chan struct{})
	h.script.push(hold("working", release))
	r := ts.openStream(`{"message":"long job"}`)
	id := sessionOf(t, r)
	r.until("text-delta")
	code, body, _ := ts.do("POST", "/api/chat/stream", fmt.Sprintf(`{"session_id":%q,"message":"again"}`, id))
	if code != 409 || !strings.Contains(body, "Session is busy") {
		t.Errorf("second turn: %d %s", code, body)
	}
	h.script.push(say("other"))
	other := ts.openStream(`{"message":"another session"}`)
	if got := other.until("text-delta").Raw["delta"]; got != "other" {
		t.Errorf("the other session got %v", got)
	}
	close(release)
	r.rest()
	if code, body, _ := ts.do("POST", "/api/chat/stream", fmt.Sprintf(`{"session_id":%q,"message":"now"}`, id)); code != 200 {
		t.Errorf("after the run: %d %s", code, body)
	}
}

// D2–D4: the client goes away mid-run; the run goes on detached; the
// status says so; a resume from the last frame seen replays exactly what
// was missed and goes on live; an unknown cursor replays all with resync.
func TestChatStreamDetachAndResume(t *testing.T) {
	t.Parallel()
	ts, h := newChatServer(t)
	release := make(chan struct{})
	h.script.push(hold("part one", release))
	r := ts.openStream(`{"message":"job"}`)
	id := sessionOf(t, r)
	seen := r.until("text-delta")
	r.resp.Body.Close() // the client drops
	status := func() (string, int64) {
		code, body, _ := ts.do("GET", "/api/chat/stream/status?session_id="+id, "")
		var st struct {
			Status  string `json:"status"`
			LastSeq int64  `json:"last_seq"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &st) != nil {
			t.Fatalf("status: %d %s", code, body)
		}
		return st.Status, st.LastSeq
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if st, _ := status(); st == "detached" {
			break
		}
		if time.Now().After(deadline) {
			st, _ := status()
			t.Fatalf("status %q after the client left, want detached", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release) // the run goes on with nobody watching, and ends
	for {
		if st, _ := status(); st == "done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the detached run did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, last := status()

	back := ts.openStream(fmt.Sprintf(`{"session_id":%q,"resume_from_seq":%d}`, id, seen.ID))
	if back.resp.Header.Get("x-nova-stream-resync") != "" {
		t.Error("an exact resume says resync")
	}
	frames := back.rest()
	if len(frames) == 0 || frames[0].ID != seen.ID+1 || frames[len(frames)-1].ID != last || !back.done {
		t.Fatalf("resume replayed %d frames from %v to %v (last %d), done %v", len(frames), first(frames), lastOf(frames), last, back.done)
	}
	if frames[0].Type != "text-delta" || frames[0].Raw["delta"] != " released" {
		t.Errorf("the first missed frame is %s", frames[0].Data)
	}
	for _, cursor := range []int64{last + 100, -1} {
		rs := ts.openStream(fmt.Sprintf(`{"session_id":%q,"resume_from_seq":%d}`, id, cursor))
		all := rs.rest()
		if rs.resp.Header.Get("x-nova-stream-resync") != "true" || len(all) == 0 || all[0].ID != 1 || all[0].Type != "start" {
			t.Errorf("cursor %d: resync %q, %d frames from %v", cursor, rs.resp.Header.Get("x-nova-stream-resync"), len(all), first(all))
		}
	}
	if code, _, _ := ts.do("GET", "/api/chat/stream/status?session_id=nope", ""); code != 404 {
		t.Errorf("status of an unknown session: %d", code)
	}
}

func first(fs []sseFrameRead) any {
	if len(fs) == 0 {
		return nil
	}
	return fs[0].ID
}

func lastOf(fs []sseFrameRead) any {
	if len(fs) == 0 {
		return nil
	}
	return fs[len(fs)-1].ID
}

func TestChatInterrupt(t *testing.T) {
	t.Parallel()
	for _, detached := range []bool{false, true} {
		t.Run(fmt.Sprintf("detached=%v", detached), func(t *testing.T) {
			ts, h := newChatServer(t)
			h.script.push(hold("working", make(chan struct{})))
			r := ts.openStream(`{"message":"job"}`)
			id := sessionOf(t, r)
			r.until("text-delta")
			if detached {
				r.resp.Body.Close()
			}
			code, body, _ := ts.do("POST", "/api/chat/interrupt", fmt.Sprintf(`{"session_id":%q}`, id))
			if code != 200 || !strings.Contains(body, `"interrupted":true`) {
				t.Fatalf("interrupt: %d %s", code, body)
			}
			if !detached {
				if f := r.until("abort"); f.Type != "abort" {
					t.Errorf("last frame %v", f.Raw)
				}
			}
			// The slot is free at once.
			h.script.push(say("fresh"))
			if code, body, _ := ts.do("POST", "/api/chat/stream", fmt.Sprintf(`{"session_id":%q,"message":"again"}`, id)); code != 200 {
				t.Errorf("after interrupt: %d %s", code, body)
			}
			if code, body, _ := ts.do("POST", "/api/chat/interrupt", fmt.Sprintf(`{"session_id":%q}`, id)); code != 200 || !strings.Contains(body, `"interrupted":false`) {
				t.Errorf("interrupt with nothing running: %d %s", code, body)
			}
		})
	}
}

func TestChatApproval(t *testing.T) {
	t.Parallel()
	ts, h := newChatServer(t)
	h.script.push(callTool("call_1", "Deploy", `{}`), say("Deployed."))
	r := ts.openStream(`{"message":"deploy"}`)
	id := sessionOf(t, r)
	ask := r.until("data-nova-approval-required")
	data, _ := ask.Raw["data"].(map[string]any)
	req, _ := data["requestId"].(string)
	if !strings.HasPrefix(req, "apr_") || data["toolCallId"] != "call_1" || data["toolName"] != "Deploy" {
		t.Fatalf("approval data %v", data)
	}
	// Another session, a wrong id: 404; the session's own: resolved; again: 404.
	h.script.push(say("x"))
	other := ts.openStream(`{"message":"other"}`)
	otherID := sessionOf(t, other)
	other.rest()
	body := fmt.Sprintf(`{"request_id":%q,"approved":true}`, req)
	if code, _, _ := ts.do("POST", "/api/chat/approve?session_id="+otherID, body); code != 404 {
		t.Errorf("cross-session approve: %d", code)
	}
	if code, _, _ := ts.do("POST", "/api/chat/approve?session_id="+id, `{"request_id":"apr_nope","approved":true}`); code != 404 {
		t.Errorf("unknown request id: %d", code)
	}
	if code, b, _ := ts.do("POST", "/api/chat/approve?session_id="+id, body); code != 200 || !strings.Contains(b, `"status":"resolved"`) || !strings.Contains(b, `"approved":true`) {
		t.Fatalf("approve: %d %s", code, b)
	}
	select {
	case <-h.ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the approved tool did not run")
	}
	if f := r.until("tool-output-available"); f.Raw["toolCallId"] != "call_1" {
		t.Errorf("output frame %v", f.Raw)
	}
	if code, _, _ := ts.do("POST", "/api/chat/approve?session_id="+id, body); code != 404 {
		t.Errorf("double approve: %d", code)
	}
	r.rest()
}

func TestChatNonStream(t *testing.T) {
	t.Parallel()
	ts, h := newChatServer(t)
	h.script.push(say("All done."))
	code, body, _ := ts.do("POST", "/api/chat", `{"message":"hi"}`)
	var resp chatResponse
	if code != 200 || json.Unmarshal([]byte(body), &resp) != nil || resp.Status != "completed" || resp.Message != "All done." || resp.SessionID == "" {
		t.Fatalf("chat: %d %s", code, body)
	}
	// An ask waits for approve: input_required, and the run goes on.
	h.script.push(callTool("call_9", "Deploy", `{}`), say("Deployed."))
	code, body, _ = ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"deploy"}`, resp.SessionID))
	var waiting chatResponse
	if code != 200 || json.Unmarshal([]byte(body), &waiting) != nil || waiting.Status != "input_required" || !strings.Contains(waiting.Message, "apr_") {
		t.Fatalf("chat with an ask: %d %s", code, body)
	}
	req := waiting.Message[strings.Index(waiting.Message, "apr_"):]
	req = req[:strings.IndexByte(req, ' ')]
	if code, b, _ := ts.do("POST", "/api/chat/approve?session_id="+resp.SessionID, fmt.Sprintf(`{"request_id":%q,"approved":true}`, req)); code != 200 {
		t.Fatalf("approve: %d %s", code, b)
	}
	select {
	case <-h.ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the approved tool did not run")
	}
	if code, _, _ := ts.do("POST", "/api/chat", `{"message":""}`); code != 400 {
		t.Errorf("an empty message: %d", code)
	}
	if code, _, _ := ts.do("POST", "/api/chat", `{"session_id":"nope","message":"x"}`); code != 404 {
		t.Errorf("an unknown session: %d", code)
	}
}

// The body useChat sends: the prompt is the last user message's text.
func TestChatStreamUseChatBody(t *testing.T) {
	t.Parallel()
	ts, h := newChatServer(t)
	h.script.push(say("ok"))
	r := ts.openStream(`{"id":"chat-1","trigger":"submit-message","messages":[{"id":"m1","role":"user","parts":[{"type":"text","text":"first"}]},{"id":"m2","role":"assistant","parts":[{"type":"text","text":"ans"}]},{"id":"m3","role":"user","parts":[{"type":"text","text":"second "},{"type":"text","text":"question"}]}]}`)
	if r.resp.StatusCode != 200 {
		t.Fatalf("status %d", r.resp.StatusCode)
	}
	r.rest()
}

func TestDeleteSessionCancelsRun(t *testing.T) {
	t.Parallel()
	ts, h := newChatServer(t)
	h.script.push(hold("working", make(chan struct{})))
	r := ts.openStream(`{"message":"job"}`)
	id := sessionOf(t, r)
	r.until("text-delta")
	r.resp.Body.Close()
	if code, body, _ := ts.do("DELETE", "/api/sessions/"+id, ""); code != 200 || !strings.Contains(body, `"status":"deleted"`) {
		t.Fatalf("delete: %d %s", code, body)
	}
	if code, _, _ := ts.do("GET", "/api/chat/stream/status?session_id="+id, ""); code != 404 {
		t.Errorf("the stream outlived the session: %d", code)
	}
	if code, _, _ := ts.do("DELETE", "/api/sessions/"+id, ""); code != 404 {
		t.Errorf("delete again: %d", code)
	}
}
