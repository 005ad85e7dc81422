package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tui"
)

// shareDo makes one request of the share's server with its token.
func shareDo(t *testing.T, info tui.RemoteInfo, method, path, body string) (int, string) {
	t.Helper()
	u, err := url.Parse(info.URL)
	if err != nil {
		t.Fatal(err)
	}
	frag, _ := url.ParseQuery(u.Fragment)
	req, err := http.NewRequest(method, "http://"+u.Host+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+frag.Get("token"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestInteractiveRemoteOps: a browser on the terminal's shared session
// reaches the terminal's own controller (live.NewSharedController): its
// model switch is the terminal's model, its !cmd a run the terminal is
// shown, bypassPermissions refused; and the terminal's own !cmd is not
// offered back to it as a browser's run.
func TestInteractiveRemoteOps(t *testing.T) {
	w := newInteractiveWorld(t, llmtest.Turn{Text: "Hi."}, llmtest.Turn{Text: "Title"})
	w.start(t, buildOptions{noSandbox: true})
	w.run(t, "hello")
	w.b.waitTitle()
	w.b.sharing.remote = remoteFlags{host: "127.0.0.1", port: 0}
	info, err := w.b.StartRemote("")
	if err != nil {
		t.Fatal(err)
	}
	runs := w.b.RemoteRuns()
	sid := w.b.runtime().Session.ID()

	if code, body := shareDo(t, info, "POST", "/api/sessions/"+sid+"/model", `{"model":"haiku"}`); code != 200 {
		t.Fatalf("POST model over the share: %d %s", code, body)
	}
	if st := w.b.Status(); st.Model != "anthropic:claude-haiku-5-5" || st.SessionID != sid {
		t.Errorf("the terminal after the browser's switch: model %s session %s", st.Model, st.SessionID)
	}
	if code, body := shareDo(t, info, "POST", "/api/sessions/"+sid+"/mode", `{"mode":"bypassPermissions"}`); code != 403 {
		t.Errorf("bypassPermissions over the share: %d %s", code, body)
	}
	if w.b.Status().Mode == permission.ModeBypass {
		t.Error("the browser turned every check off")
	}

	if _, err := w.b.Shell(t.Context(), "echo from the terminal"); err != nil {
		t.Fatal(err)
	}
	if code, body := shareDo(t, info, "POST", "/api/sessions/"+sid+"/shell", `{"command":"echo SENTINEL-FROM-PHONE"}`); code != 200 || !strings.Contains(body, "SENTINEL-FROM-PHONE") {
		t.Fatalf("POST shell over the share: %d %s", code, body)
	}
	r := nextRun(t, runs)
	for range r.Events {
	}
	if r.Prompt != "!echo SENTINEL-FROM-PHONE" {
		t.Errorf("the first run offered to the terminal is %q, want the browser's !cmd (the terminal's own is not offered back)", r.Prompt)
	}
	if err := w.b.StopRemote(); err != nil {
		t.Fatal(err)
	}
}
