package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/session"
)

// newHostServer is a test server on a real live.Host: sessions on disk in
// the test's NOVA_HOME, their model the fake provider llmtest, scripted
// with turns.
func newHostServer(t *testing.T, turns ...llmtest.Turn) (*testServer, *llmtest.Server) {
	t.Helper()
	return newWrappedHostServer(t, nil, turns...)
}

// newWrappedHostServer is newHostServer with the server's Host wrap(host)
// (nil: the host itself), for a test that steps in between the server and
// the real host.
func newWrappedHostServer(t *testing.T, wrap func(*live.Host) Host, turns ...llmtest.Turn) (*testServer, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(turns...)
	t.Cleanup(srv.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	var host *live.Host
	ts := newConfigServer(t, env, func(o *Options) {
		host = live.NewHost(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home,
			Getenv: o.Getenv, NoSandbox: true})
		o.Sessions = host
		if wrap != nil {
			o.Sessions = wrap(host)
		}
	})
	t.Cleanup(host.Close)
	return ts, srv
}

// newSession runs one turn through POST /api/chat (the script must have
// one for it) and returns the new session's id.
func (ts *testServer) newSession() string {
	ts.t.Helper()
	code, body, _ := ts.do("POST", "/api/chat", `{"message":"hi"}`)
	if code != 200 {
		ts.t.Fatalf("POST /api/chat: %d %s", code, body)
	}
	resp := decode[chatResponse](ts.t, body)
	if resp.Status != "completed" || resp.SessionID == "" {
		ts.t.Fatalf("POST /api/chat: %s", body)
	}
	return resp.SessionID
}

// listed is the session's item in GET /api/sessions; ok is false when it
// is not there.
func (ts *testServer) listed(id string) (item sessionItem, ok bool) {
	ts.t.Helper()
	code, body, _ := ts.do("GET", "/api/sessions", "")
	if code != 200 {
		ts.t.Fatalf("GET /api/sessions: %d %s", code, body)
	}
	for _, it := range decode[struct{ Items []sessionItem }](ts.t, body).Items {
		if it.ID == id {
			return it, true
		}
	}
	return sessionItem{}, false
}

// wantAction checks a SessionActionResponse.
func wantAction(t *testing.T, what string, code int, body, status, id string) {
	t.Helper()
	if code != 200 {
		t.Errorf("%s: %d %s, want 200", what, code, body)
		return
	}
	got := decode[map[string]string](t, body)
	if len(got) != 2 || got["status"] != status || got["session_id"] != id {
		t.Errorf("%s: %s, want {\"status\":%q,\"session_id\":%q}", what, body, status, id)
	}
}

// waitStatus polls the stream status until it is want.
func (ts *testServer) waitStatus(id, want string) {
	ts.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body, _ := ts.do("GET", "/api/chat/stream/status?session_id="+id, "")
		if code == 200 && decode[map[string]any](ts.t, body)["status"] == want {
			return
		}
		if time.Now().After(deadline) {
			ts.t.Fatalf("stream status %d %s, want %s", code, body, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A well-formed session id no session has, and ids that are not ids at all.
var unknownSessions = []string{"01ARZ3NDEKTSV4RRFFQ69G5FAV", "nope", url.PathEscape("../../etc")}

// Every session endpoint answers 404 {"detail"} for a session that does
// not exist.
func TestSessionEndpointsUnknownSession(t *testing.T) {
	t.Parallel()
	ts, _ := newHostServer(t)
	dir := t.TempDir()
	for _, id := range unknownSessions {
		for _, c := range []struct{ method, path, body string }{
			{"GET", "/api/sessions/" + id + "/messages", ""},
			{"GET", "/api/sessions/" + id + "/context", ""},
			{"GET", "/api/sessions/" + id + "/context?provider=anthropic&model=claude-sonnet-4-5", ""},
			{"PATCH", "/api/sessions/" + id, `{"title":"New title"}`},
			{"PUT", "/api/sessions/" + id + "/workspace", fmt.Sprintf(`{"workspace_dir":%q}`, dir)},
			{"PUT", "/api/sessions/" + id + "/workspace", `{"workspace_dir":null}`},
			{"PUT", "/api/sessions/" + id + "/workspace", `{"workspace_dir":""}`},
			{"DELETE", "/api/sessions/" + id, ""},
			{"DELETE", "/api/sessions/" + id + "?delete_memories=true", ""},
		} {
			code, body, _ := ts.do(c.method, c.path, c.body)
			wantError(t, c.method+" "+c.path+" "+c.body, code, body, 404, "not found")
		}
	}
	if code, body, _ := ts.do("GET", "/api/sessions?agent_key=ghost", ""); code != 200 || strings.TrimSpace(body) != `{"items":[]}` {
		t.Errorf("list of an agent with no sessions: %d %s", code, body)
	}
}

func TestSessionListAndMessages(t *testing.T) {
	t.Parallel()
	ts, _ := newHostServer(t, llmtest.Turn{Text: "hello back"})
	id := ts.newSession()
	it, ok := ts.listed(id)
	if !ok || it.AgentKey != "main" || it.WorkspaceDir != ts.o.Workdir || it.UpdatedAt < 1_000_000_000_000 {
		t.Errorf("listed %+v (%v)", it, ok)
	}
	for _, key := range []string{"main", "ghost"} {
		code, body, _ := ts.do("GET", "/api/sessions?agent_key="+key, "")
		if has := strings.Contains(body, id); code != 200 || has != (key == "main") {
			t.Errorf("agent_key=%s: %d %s", key, code, body)
		}
	}
	code, body, _ := ts.do("GET", "/api/sessions/"+id+"/messages", "")
	if code != 200 {
		t.Fatalf("messages: %d %s", code, body)
	}
	msgs := decode[struct{ Items []messageRecord }](t, body).Items
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[0].Content != "hi" || msgs[1].Role != "assistant" || msgs[1].Content != "hello back" {
		t.Errorf("messages = %s", body)
	}
}

// The history is what the person sees: the first message is their words,
// not the context nova puts ahead of them for the model (environment,
// instruction files, memory), which the model still gets.
func TestSessionMessagesLeaveOutContext(t *testing.T) {
	t.Parallel()
	ts, srv := newHostServer(t, llmtest.Turn{Text: "first answer"}, llmtest.Turn{Text: "second answer"})
	os.WriteFile(filepath.Join(ts.o.Workdir, "AGENTS.md"), []byte("Always answer in haiku.\n"), 0o644)
	code, body, _ := ts.do("POST", "/api/chat", `{"message":"what is here?","attachments":[{"id":"a1","type":"document","name":"notes.txt","content_type":"text/plain","content":"some notes"}]}`)
	if code != 200 {
		t.Fatalf("POST /api/chat: %d %s", code, body)
	}
	id := decode[chatResponse](t, body).SessionID
	code, body, _ = ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"and now?"}`, id))
	if code != 200 {
		t.Fatalf("second turn: %d %s", code, body)
	}
	if first := string(srv.Requests()[0].Body); !strings.Contains(first, "Working directory:") || !strings.Contains(first, "Always answer in haiku.") {
		t.Fatalf("the model was not sent the context: %.300s", first)
	}
	code, body, _ = ts.do("GET", "/api/sessions/"+id+"/messages", "")
	if code != 200 {
		t.Fatalf("messages: %d %s", code, body)
	}
	msgs := decode[struct{ Items []messageRecord }](t, body).Items
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{
		"user: <document name=\"notes.txt\">\nsome notes\n</document>what is here?",
		"assistant: first answer",
		"user: and now?",
		"assistant: second answer",
	}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
	}
	for _, leak := range []string{"<environment>", "Working directory", "haiku"} {
		if strings.Contains(body, leak) {
			t.Errorf("the history shows nova's context (%q): %s", leak, body)
		}
	}
}

func TestSessionContext(t *testing.T) {
	t.Parallel()
	ts, _ := newHostServer(t, llmtest.Turn{Text: "ok", InputTokens: 1200, OutputTokens: 30})
	id := ts.newSession()
	for _, q := range []string{"", "?provider=anthropic&model=claude-sonnet-4-5"} {
		code, body, _ := ts.do("GET", "/api/sessions/"+id+"/context"+q, "")
		if code != 200 {
			t.Fatalf("context%s: %d %s", q, code, body)
		}
		u := decode[map[string]int](t, body)
		if len(u) != 4 || u["used"] < 1200 || u["limit"] <= u["used"] || u["percent"] != u["used"]*100/u["limit"] || u["message_count"] != 2 {
			t.Errorf("context%s = %s", q, body)
		}
	}
}

// A session that cannot be built (no provider is configured any more) is
// the server's fault, and the detail says what is missing.
func TestSessionContextCannotBuild(t *testing.T) {
	t.Parallel()
	var host *live.Host
	ts := newConfigServer(t, nil, func(o *Options) {
		host = live.NewHost(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home,
			Getenv: o.Getenv, NoSandbox: true})
		o.Sessions = host
	})
	t.Cleanup(host.Close)
	s, err := session.NewStore(ts.o.NovaHome).Create(session.Meta{WorkspaceDir: ts.o.Workdir, AgentKey: "main"})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, body, _ := ts.do("GET", "/api/sessions/"+s.ID()+"/context", "")
	wantError(t, "context without a provider", code, body, 500, "provider")
}

func TestSessionRename(t *testing.T) {
	t.Parallel()
	ts, _ := newHostServer(t, llmtest.Turn{Text: "ok"})
	id := ts.newSession()
	path := "/api/sessions/" + id
	code, body, _ := ts.do("PATCH", path, `{"title":"Fix login bug"}`)
	wantAction(t, "rename", code, body, "renamed", id)
	if it, _ := ts.listed(id); it.Title != "Fix login bug" {
		t.Errorf("title after rename = %q", it.Title)
	}
	// 1 to 200 characters, counted as characters, not bytes.
	long := strings.Repeat("é", 200)
	code, body, _ = ts.do("PATCH", path, fmt.Sprintf(`{"title":%q}`, long))
	wantAction(t, "a 200-character title", code, body, "renamed", id)
	if it, _ := ts.listed(id); it.Title != long {
		t.Errorf("title after rename = %q", it.Title)
	}
	for _, c := range []struct{ what, body string }{
		{"an empty title", `{"title":""}`},
		{"a 201-character title", fmt.Sprintf(`{"title":%q}`, long+"x")},
		{"no title", `{}`},
		{"a null title", `{"title":null}`},
		{"a null body", `null`},
	} {
		code, body, _ := ts.do("PATCH", path, c.body)
		wantError(t, c.what, code, body, 422, "title")
		// Validation comes before the session is looked up.
		code, body, _ = ts.do("PATCH", "/api/sessions/"+unknownSessions[0], c.body)
		wantError(t, c.what+" of an unknown session", code, body, 422, "title")
	}
	for _, c := range []struct{ what, body string }{
		{"a body that is not JSON", `{"title":`},
		{"a title that is not a string", `{"title":5}`},
		{"an array", `["title"]`},
	} {
		code, body, _ := ts.do("PATCH", path, c.body)
		wantError(t, c.what, code, body, 400)
	}
	code, body, _ = ts.do("PATCH", path, "")
	wantError(t, "no body", code, body, 400, "empty")
	if it, _ := ts.listed(id); it.Title != long {
		t.Errorf("a refused rename changed the title to %q", it.Title)
	}
}

func TestSessionWorkspace(t *testing.T) {
	t.Parallel()
	ts, _ := newHostServer(t, llmtest.Turn{Text: "ok"})
	id := ts.newSession()
	path := "/api/sessions/" + id + "/workspace"
	put := func(what, body string) (int, string) {
		t.Helper()
		code, resp, _ := ts.do("PUT", path, body)
		return code, resp
	}
	wantWorkspace := func(what, want string) {
		t.Helper()
		if it, _ := ts.listed(id); it.WorkspaceDir != want {
			t.Errorf("%s: workspace_dir = %q, want %q", what, it.WorkspaceDir, want)
		}
	}

	dir, _ := filepath.EvalSymlinks(t.TempDir())
	code, body := put("a directory", fmt.Sprintf(`{"workspace_dir":%q}`, dir))
	wantAction(t, "a directory", code, body, "workspace_updated", id)
	wantWorkspace("a directory", dir)

	// ~ and symlinks are resolved.
	sub := filepath.Join(ts.o.Home, "project-a")
	os.Mkdir(sub, 0o755)
	code, body = put("~", `{"workspace_dir":"~/project-a"}`)
	wantAction(t, "~/project-a", code, body, "workspace_updated", id)
	wantWorkspace("~/project-a", sub)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	code, body = put("a symlink", fmt.Sprintf(`{"workspace_dir":%q}`, link))
	wantAction(t, "a symlink", code, body, "workspace_updated", id)
	wantWorkspace("a symlink", dir)

	// null and "" clear it: the session works in the server's workspace.
	for _, clear := range []string{`{"workspace_dir":null}`, `{"workspace_dir":""}`} {
		put("set", fmt.Sprintf(`{"workspace_dir":%q}`, dir))
		code, body = put(clear, clear)
		wantAction(t, clear, code, body, "workspace_updated", id)
		wantWorkspace(clear, "")
	}

	put("set", fmt.Sprintf(`{"workspace_dir":%q}`, dir))
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct{ what, body, has string }{
		{"a relative path", `{"workspace_dir":"src"}`, "absolute"},
		{"a dot path", `{"workspace_dir":"."}`, "absolute"},
		{"~user", `{"workspace_dir":"~root/x"}`, "absolute"},
		{"a missing directory", fmt.Sprintf(`{"workspace_dir":%q}`, filepath.Join(dir, "missing")), "no such file"},
		{"a file", fmt.Sprintf(`{"workspace_dir":%q}`, file), "not a directory"},
		{"a path through a file", fmt.Sprintf(`{"workspace_dir":%q}`, filepath.Join(file, "x")), "not a directory"},
		{"a body that is not JSON", `{"workspace_dir":`, "JSON"},
		{"a number", `{"workspace_dir":5}`, "workspace_dir"},
		{"an array", `["/tmp"]`, "JSON"},
		{"no workspace_dir", `{}`, "workspace_dir is required"},
		{"a null body", `null`, "workspace_dir is required"},
		{"no body", ``, "empty"},
	} {
		code, body := put(c.what, c.body)
		wantError(t, c.what, code, body, 400, c.has)
	}
	// The path is checked before the session is looked up.
	code, body, _ = ts.do("PUT", "/api/sessions/"+unknownSessions[0]+"/workspace", `{"workspace_dir":"src"}`)
	wantError(t, "a relative path for an unknown session", code, body, 400)
	wantWorkspace("after the refusals", dir)
}

// A session whose run is going on, watched or detached, keeps its
// workspace: 409, and the run is not disturbed. Once it ends, the change
// goes through.
func TestSessionWorkspaceBusy(t *testing.T) {
	t.Parallel()
	for _, detached := range []bool{false, true} {
		t.Run(fmt.Sprintf("detached=%v", detached), func(t *testing.T) {
			ts, srv := newHostServer(t, llmtest.Turn{Text: "ok"})
			id := ts.newSession()
			srv.Push(llmtest.Turn{Text: "slow answer", ChunkDelay: 100 * time.Millisecond})
			r := ts.openStream(fmt.Sprintf(`{"session_id":%q,"message":"long job"}`, id))
			if r.resp.StatusCode != 200 {
				t.Fatalf("stream: %d", r.resp.StatusCode)
			}
			if detached {
				r.resp.Body.Close()
				ts.waitStatus(id, "detached")
			} else {
				r.until("start-step")
			}
			dir := t.TempDir()
			for _, body := range []string{fmt.Sprintf(`{"workspace_dir":%q}`, dir), `{"workspace_dir":null}`} {
				code, resp, _ := ts.do("PUT", "/api/sessions/"+id+"/workspace", body)
				wantError(t, "a busy session "+body, code, resp, 409, "Session is busy", id)
			}
			// A rename does not wait for the run.
			code, resp, _ := ts.do("PATCH", "/api/sessions/"+id, `{"title":"During the run"}`)
			wantAction(t, "rename during the run", code, resp, "renamed", id)
			if !detached {
				// The run was not cut: it streams to its end.
				var text strings.Builder
				for _, f := range r.rest() {
					if f.Type == "text-delta" {
						text.WriteString(fmt.Sprint(f.Raw["delta"]))
					}
				}
				if text.String() != "slow answer" || !r.done {
					t.Errorf("the run streamed %q, done %v", text.String(), r.done)
				}
			}
			ts.waitStatus(id, "done")
			if it, _ := ts.listed(id); it.Title != "During the run" {
				t.Errorf("title after the run = %q", it.Title)
			}
			code, resp, _ = ts.do("PUT", "/api/sessions/"+id+"/workspace", fmt.Sprintf(`{"workspace_dir":%q}`, dir))
			wantAction(t, "after the run", code, resp, "workspace_updated", id)
		})
	}
}

// DELETE ends the session's run: its stream ends, the stream and the
// session are gone. delete_memories says whether the memories linked to
// it go too.
func TestSessionDelete(t *testing.T) {
	t.Parallel()
	ts, srv := newHostServer(t, llmtest.Turn{Text: "ok"})
	id := ts.newSession()
	srv.Push(llmtest.Turn{Hang: true}) // the model never answers
	r := ts.openStream(fmt.Sprintf(`{"session_id":%q,"message":"long job"}`, id))
	r.until("start-step")
	ts.waitStatus(id, "active")
	for deadline := time.Now().Add(10 * time.Second); len(srv.Requests()) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the run did not reach the model")
		}
	}

	code, body, _ := ts.do("DELETE", "/api/sessions/"+id+"?delete_memories=maybe", "")
	wantError(t, "delete_memories=maybe", code, body, 422, "delete_memories")
	if _, ok := ts.listed(id); !ok {
		t.Fatal("a refused delete removed the session")
	}

	start := time.Now()
	code, body, _ = ts.do("DELETE", "/api/sessions/"+id, "")
	wantAction(t, "delete", code, body, "deleted", id)
	ended := make(chan []sseFrameRead)
	go func() { ended <- r.rest() }()
	select {
	case frames := <-ended:
		// The run ends as an interrupt does: abort, then [DONE].
		last := ""
		if len(frames) > 0 {
			last = frames[len(frames)-1].Data
		}
		if !strings.Contains(last, `"type":"abort"`) || !r.done {
			t.Errorf("the stream ended with %s, done %v; want abort then [DONE]", last, r.done)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run's stream did not end when its session was deleted")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("delete took %v", d)
	}
	if _, ok := ts.listed(id); ok {
		t.Error("the deleted session is still listed")
	}
	code, body, _ = ts.do("GET", "/api/chat/stream/status?session_id="+id, "")
	wantError(t, "stream status after delete", code, body, 404)
	code, body, _ = ts.do("POST", "/api/chat/stream", fmt.Sprintf(`{"session_id":%q,"resume_from_seq":0}`, id))
	wantError(t, "resume after delete", code, body, 404)
	code, body, _ = ts.do("GET", "/api/sessions/"+id+"/messages", "")
	wantError(t, "messages after delete", code, body, 404, "not found")
	code, body, _ = ts.do("DELETE", "/api/sessions/"+id, "")
	wantError(t, "delete again", code, body, 404, "not found")

	// delete_memories: false keeps the session's memories, true removes them.
	memoriesOf := func(id string) int {
		t.Helper()
		code, body, _ := ts.do("GET", "/api/memories?session_id="+id, "")
		if code != 200 {
			t.Fatalf("memories: %d %s", code, body)
		}
		return len(decode[struct{ Items []json.RawMessage }](t, body).Items)
	}
	for _, c := range []struct {
		query string
		kept  bool
	}{{"", true}, {"?delete_memories=false", true}, {"?delete_memories=true", false}, {"?delete_memories=1", false}} {
		srv.Push(llmtest.Turn{Text: "ok"})
		id := ts.newSession()
		ts.addMemory(memory.Memory{Scope: "session", MemoryType: "fact", Content: "linked", SessionID: &id})
		code, body, _ := ts.do("DELETE", "/api/sessions/"+id+c.query, "")
		wantAction(t, "delete"+c.query, code, body, "deleted", id)
		if n := memoriesOf(id); (n == 1) != c.kept {
			t.Errorf("delete%s left %d memories of the session", c.query, n)
		}
	}
}

// A session another nova process has open (its lock held) is refused
// with 409, not a 500: it cannot be changed, deleted or run from here.
func TestSessionLockedElsewhere(t *testing.T) {
	t.Parallel()
	ts, srv := newHostServer(t)
	store := session.NewStore(ts.o.NovaHome)
	held, err := store.Create(session.Meta{WorkspaceDir: ts.o.Workdir, AgentKey: "main"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	id := held.ID()
	for _, c := range []struct{ method, path, body string }{
		{"PATCH", "/api/sessions/" + id, `{"title":"New title"}`},
		{"PUT", "/api/sessions/" + id + "/workspace", fmt.Sprintf(`{"workspace_dir":%q}`, t.TempDir())},
		{"DELETE", "/api/sessions/" + id, ""},
		{"GET", "/api/sessions/" + id + "/context", ""},
		{"POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"hi"}`, id)},
		{"POST", "/api/chat/stream", fmt.Sprintf(`{"session_id":%q,"message":"hi"}`, id)},
		{"POST", "/api/chat/interrupt", fmt.Sprintf(`{"session_id":%q}`, id)},
	} {
		code, body, _ := ts.do(c.method, c.path, c.body)
		wantError(t, c.method+" "+c.path+" "+c.body, code, body, 409, id, "open in", "close it there")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("a refused turn reached the model: %d requests", n)
	}
	if _, ok := ts.listed(id); !ok {
		t.Error("the locked session is not listed")
	}
	if code, body, _ := ts.do("GET", "/api/sessions/"+id+"/messages", ""); code != 200 {
		t.Errorf("messages of a locked session: %d %s", code, body)
	}
	// Once the other process lets it go, it is ours to change.
	held.Close()
	code, body, _ := ts.do("PATCH", "/api/sessions/"+id, `{"title":"New title"}`)
	wantAction(t, "rename once free", code, body, "renamed", id)
	code, body, _ = ts.do("DELETE", "/api/sessions/"+id, "")
	wantAction(t, "delete once free", code, body, "deleted", id)
}

// Past the host's bound (nova serve --max-sessions) a new session is a
// 429 that says so; the sessions open go on, and a deleted one makes
// room.
func TestMaxSessions(t *testing.T) {
	t.Parallel()
	ts, _ := newWrappedHostServer(t, func(h *live.Host) Host { h.SetMaxSessions(1); return h },
		llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "again"}, llmtest.Turn{Text: "two"})
	id := ts.newSession()
	code, body, _ := ts.do("POST", "/api/chat", `{"message":"another"}`)
	wantError(t, "a second session", code, body, 429, "--max-sessions")
	if code, body, _ := ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"more"}`, id)); code != 200 {
		t.Errorf("the open session: %d %s", code, body)
	}
	code, body, _ = ts.do("DELETE", "/api/sessions/"+id, "")
	wantAction(t, "delete", code, body, "deleted", id)
	ts.newSession()
}
