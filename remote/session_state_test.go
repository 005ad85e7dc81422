package remote

import (
	"context"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
)

// hostServer is newWrappedHostServer that also hands back the host.
func hostServer(t *testing.T, turns ...llmtest.Turn) (*testServer, *live.Host) {
	t.Helper()
	var host *live.Host
	ts, _ := newWrappedHostServer(t, func(h *live.Host) Host { host = h; return h }, turns...)
	return ts, host
}

// modelIDsOf is the ids of GET /api/models.
func (ts *testServer) modelIDsOf() string {
	ts.t.Helper()
	code, body, _ := ts.do("GET", "/api/models", "")
	if code != 200 {
		ts.t.Fatalf("GET /api/models: %d %s", code, body)
	}
	return modelIDs(decode[ModelListResponse](ts.t, body))
}

// In an environment with only ANTHROPIC_API_KEY (no config.json), the
// web UI's picker lists what the terminal's /model and the SDK's
// initialize list (Controller.Models), not the provider's one default.
func TestModelsAreTheControllersList(t *testing.T) {
	t.Parallel()
	ts, host := hostServer(t, llmtest.Turn{Text: "hello"})
	before := ts.modelIDsOf()
	id := ts.newSession()
	c, err := host.Controller(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(c.Models(), ",")
	if got := ts.modelIDsOf(); got != want || before != want {
		t.Errorf("GET /api/models = %s (before the session %s), the terminal's /model = %s", got, before, want)
	}
	if n := len(c.Models()); n < 2 {
		t.Errorf("the controller lists %d models: %v", n, c.Models())
	}
}

// sessionState is the model and mode GET /api/sessions/{id} and the list
// give for session id.
func (ts *testServer) sessionState(id string) (got, listed sessionItem) {
	ts.t.Helper()
	code, body, _ := ts.do("GET", "/api/sessions/"+id, "")
	if code != 200 {
		ts.t.Fatalf("GET /api/sessions/%s: %d %s", id, code, body)
	}
	got = decode[sessionItem](ts.t, body)
	listed, ok := ts.listed(id)
	if !ok {
		ts.t.Fatalf("session %s is not in the list", id)
	}
	return got, listed
}

// A page opened after the session's mode or model changed reads them
// back: from the open runtime, then, with the session closed, from its
// transcript and the mode a session opens in.
func TestSessionReadsBackModelAndMode(t *testing.T) {
	t.Parallel()
	ts, host := hostServer(t, llmtest.Turn{Text: "hello"})
	id := ts.newSession()
	want := func(what, model, mode string) {
		t.Helper()
		got, listed := ts.sessionState(id)
		for _, it := range []sessionItem{got, listed} {
			if it.ID != id || it.Model != model || it.PermissionMode != mode {
				t.Errorf("%s: session reads %+v, want model %s, mode %s", what, it, model, mode)
			}
		}
	}
	def := "anthropic:" + config.DefaultModelName(llm.ProviderAnthropic)
	want("new session", def, "default")

	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/mode", `{"mode":"plan"}`); code != 200 {
		t.Fatalf("POST mode plan: %d %s", code, body)
	}
	want("after POST mode plan", def, "plan")

	if code, body, _ := ts.do("POST", "/api/sessions/"+id+"/model", `{"model":"haiku"}`); code != 200 {
		t.Fatalf("POST model haiku: %d %s", code, body)
	}
	// The switch rebuilds the runtime; the mode goes with it.
	want("after POST model haiku", "anthropic:claude-haiku-5-5", "plan")

	if code, body, _ := ts.do("GET", "/api/sessions/nope", ""); code != 404 {
		t.Errorf("GET an unknown session: %d %s", code, body)
	}

	// Closed: a server started with --permission-mode acceptEdits shows
	// the model the transcript recorded and the mode it would open in,
	// without opening it.
	host.Close()
	host2 := live.NewHost(context.Background(), live.Options{NovaHome: ts.o.NovaHome, Workdir: ts.o.Workdir, Home: ts.o.Home,
		Getenv: ts.o.Getenv, NoSandbox: true, PermissionMode: "acceptEdits"})
	t.Cleanup(host2.Close)
	ts2 := newTestServer(t, func(o *Options) { *o = ts.o; o.Sessions = host2 })
	got, listed := ts2.sessionState(id)
	for _, it := range []sessionItem{got, listed} {
		if it.Model != "anthropic:claude-haiku-5-5" || it.PermissionMode != "acceptEdits" {
			t.Errorf("closed session reads %+v, want haiku in acceptEdits", it)
		}
	}
	if st := host2.States(nil); len(st) != 0 {
		t.Errorf("States(nil) = %v", st)
	}
}

// On a shared terminal session (/remote), the page reads the mode the
// terminal set (shift+tab) and its model, whichever set them last.
func TestSharedSessionShowsTerminalsMode(t *testing.T) {
	t.Parallel()
	e := newSharedEnv(t, llmtest.Turn{Text: "hello"})
	for range e.rt.Live.Run(context.Background(), llm.UserText("hi")) {
	}
	id := e.rt.Session.ID()
	e.rt.Checker.SetMode(permission.ModePlan) // the terminal's shift+tab
	got, listed := e.sessionState(id)
	for _, it := range []sessionItem{got, listed} {
		if it.PermissionMode != "plan" || it.Model != e.rt.Selection.ID() {
			t.Errorf("shared session reads %+v, want plan on %s", it, e.rt.Selection.ID())
		}
	}
	if code, body, _ := e.do("GET", "/api/sessions/another", ""); code != 404 {
		t.Errorf("GET a session the terminal does not share: %d %s", code, body)
	}
}
