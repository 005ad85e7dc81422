package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
)

// betweenHost is a real host that runs between(id) once, after the first
// Open of a session by id and before the server gets the session: what
// another request does in the gap between opening a session and starting
// its turn.
type betweenHost struct {
	*live.Host
	mu      sync.Mutex
	between func(id string)
}

func (h *betweenHost) Open(ctx context.Context, id string) (*live.Session, error) {
	sess, err := h.Host.Open(ctx, id)
	h.mu.Lock()
	f := h.between
	h.between = nil
	h.mu.Unlock()
	if err == nil && f != nil {
		f(id)
	}
	return sess, err
}

// A turn on a session that a workspace change closed after the turn's
// request opened it (PUT .../workspace closes the open session) opens
// the session again and runs in the new workspace: not a 500 "session is
// closed".
func TestTurnReopensSessionClosedByWorkspaceChange(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/api/chat", "/api/chat/stream"} {
		t.Run(path, func(t *testing.T) {
			wh := &betweenHost{}
			ts, srv := newWrappedHostServer(t, func(h *live.Host) Host { wh.Host = h; return wh }, llmtest.Turn{Text: "ok"})
			id := ts.newSession()
			ws, _ := filepath.EvalSymlinks(t.TempDir())
			if err := os.WriteFile(filepath.Join(ws, "marker.txt"), []byte("the new workspace\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			wh.mu.Lock()
			wh.between = func(id string) {
				if err := wh.Host.SetWorkspace(id, ws); err != nil {
					t.Errorf("SetWorkspace: %v", err)
				}
			}
			wh.mu.Unlock()
			srv.Push(
				llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: `{"file_path":"marker.txt"}`}}},
				llmtest.Turn{Text: "read it"},
			)
			body := fmt.Sprintf(`{"session_id":%q,"message":"read marker.txt"}`, id)
			if path == "/api/chat" {
				code, resp, _ := ts.do("POST", path, body)
				if code != 200 || decode[chatResponse](t, resp).Status != "completed" {
					t.Fatalf("turn after the session was closed: %d %s", code, resp)
				}
			} else {
				r := ts.openStream(body)
				if r.resp.StatusCode != 200 {
					t.Fatalf("stream after the session was closed: %d", r.resp.StatusCode)
				}
				r.rest()
				if !r.done {
					t.Fatal("the stream did not end with [DONE]")
				}
			}
			wh.mu.Lock()
			ran := wh.between == nil
			wh.mu.Unlock()
			if !ran {
				t.Fatal("the workspace change did not come between open and start")
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 1 + 2", len(reqs))
			}
			var last struct{ Messages []json.RawMessage }
			if err := json.Unmarshal(reqs[2].Body, &last); err != nil {
				t.Fatal(err)
			}
			if got := string(reqs[2].Body); !strings.Contains(got, "the new workspace") {
				t.Errorf("the Read did not run in the new workspace: %s", got)
			}
			if len(last.Messages) != 5 { // hi, ok, the prompt, the call, its result
				t.Errorf("the reopened session sent %d messages, want its history and the turn's 5", len(last.Messages))
			}
			if it, _ := ts.listed(id); it.WorkspaceDir != ws {
				t.Errorf("workspace_dir = %q, want %q", it.WorkspaceDir, ws)
			}
		})
	}
}

// A session deleted in that gap is gone: 404, as for any unknown session.
func TestTurnOnSessionDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	wh := &betweenHost{}
	ts, srv := newWrappedHostServer(t, func(h *live.Host) Host { wh.Host = h; return wh }, llmtest.Turn{Text: "ok"})
	id := ts.newSession()
	wh.mu.Lock()
	wh.between = func(id string) {
		if err := wh.Host.Delete(id, false); err != nil {
			t.Errorf("Delete: %v", err)
		}
	}
	wh.mu.Unlock()
	code, body, _ := ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"again"}`, id))
	wantError(t, "a turn on a session deleted meanwhile", code, body, 404, "not found")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model requests, want the first turn's only", n)
	}
}
