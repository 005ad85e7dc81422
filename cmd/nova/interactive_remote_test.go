package main

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tui"
)

func TestRootRemoteFlags(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		stderr string
		want   remoteFlags
	}{
		{name: "defaults", want: remoteFlags{host: "127.0.0.1", port: 8765}},
		{name: "--remote elsewhere", args: []string{"--remote", "--host", "::1", "--port", "0"}, want: remoteFlags{on: true, host: "::1", port: 0, portGiven: true}},
		{name: "the token from the environment", args: []string{"--remote"}, env: map[string]string{"NOVA_SERVER_TOKEN": "env-token"},
			want: remoteFlags{on: true, host: "127.0.0.1", port: 8765, token: "env-token"}},
		{name: "--token over the environment", args: []string{"--host", "0.0.0.0", "--token", "flag-token"}, env: map[string]string{"NOVA_SERVER_TOKEN": "env-token"},
			want: remoteFlags{host: "0.0.0.0", port: 8765, token: "flag-token"}},
		{name: "beyond loopback without a token", args: []string{"--remote", "--host", "0.0.0.0"}, code: 2, stderr: "--host 0.0.0.0 is reachable from other machines: give a token"},
		{name: "a port out of range", args: []string{"--port", "70000"}, code: 2, stderr: "--port 70000: want 0 (any free port) to 65535"},
		{name: "print mode", args: []string{"-p", "--remote", "hi"}, code: 2, stderr: "print mode has none to share"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tio := newTestIO(t, "", false, tt.env)
			var got *rootOptions
			code := tio.parse(newRootCmd(&Factory{IOStreams: tio.s}, func(o *rootOptions) error { got = o; return nil }), tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, tio.errOut)
			}
			if tt.code != 0 {
				if !strings.Contains(tio.errOut.String(), tt.stderr) {
					t.Errorf("stderr %q, want %q", tio.errOut, tt.stderr)
				}
				return
			}
			if got.remote != tt.want {
				t.Errorf("remote %+v, want %+v", got.remote, tt.want)
			}
		})
	}
}

// wsDial opens the share's WebSocket as a browser that is not on the
// page would (the token in the header).
func wsDial(t *testing.T, info tui.RemoteInfo) *websocket.Conn {
	t.Helper()
	u, err := url.Parse(info.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := websocket.DefaultDialer.Dial("ws://"+u.Host+"/ws", http.Header{"Authorization": {"Bearer " + u.Query().Get("token")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// nextRun is the share's next run, within 10 s.
func nextRun(t *testing.T, runs <-chan tui.RemoteRun) tui.RemoteRun {
	t.Helper()
	select {
	case r, ok := <-runs:
		if !ok {
			t.Fatal("the share's runs ended")
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no run of the share in 10 s")
	}
	return tui.RemoteRun{}
}

// The backend's share: a browser's prompt is a run for the TUI with its
// prompt, its own runs are not; /clear carries the share to the new
// session; /remote off closes the listener.
func TestInteractiveRemote(t *testing.T) {
	w := newInteractiveWorld(t,
		llmtest.Turn{Text: "Hi, phone."}, llmtest.Turn{Text: "Phone title"},
		llmtest.Turn{Text: "Hi, terminal."},
		llmtest.Turn{Text: "Hi again, phone."}, llmtest.Turn{Text: "Second title"})
	w.start(t, buildOptions{})
	w.b.sharing.remote = remoteFlags{host: "127.0.0.1", port: 0}
	info, err := w.b.StartRemote("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.URL, "http://127.0.0.1:") || !strings.Contains(info.URL, "/?token=") || info.Exposed {
		t.Fatalf("info %+v", info)
	}
	if again, err := w.b.StartRemote(""); err != nil || again != info {
		t.Errorf("a second start: %+v %v, want the share in effect", again, err)
	}
	runs := w.b.RemoteRuns()
	c := wsDial(t, info)
	sid := w.b.runtime().Session.ID()
	if err := c.WriteJSON(map[string]any{"type": "prompt", "session_id": sid, "text": "hello from the phone"}); err != nil {
		t.Fatal(err)
	}
	r := nextRun(t, runs)
	var text strings.Builder
	for ev := range r.Events {
		if ev.Type == agent.EventTextDelta {
			text.WriteString(ev.Text)
		}
	}
	if r.Prompt != "hello from the phone" || text.String() != "Hi, phone." {
		t.Errorf("the browser's run: prompt %q, text %q", r.Prompt, text.String())
	}
	w.b.waitTitle()
	if title := w.b.runtime().Session.Meta().Title; title != "Phone title" {
		t.Errorf("the session started from the phone is titled %q", title)
	}

	w.run(t, "the terminal's own")
	select {
	case r := <-runs:
		t.Fatalf("the TUI's own run was offered back to it: %+v", r)
	default:
	}

	if err := w.b.NewSession(); err != nil {
		t.Fatal(err)
	}
	sid2 := w.b.runtime().Session.ID()
	if err := c.WriteJSON(map[string]any{"type": "prompt", "session_id": sid2, "text": "and in the new one"}); err != nil {
		t.Fatal(err)
	}
	r = nextRun(t, runs)
	for range r.Events {
	}
	if r.Prompt != "and in the new one" {
		t.Errorf("after /clear: %q", r.Prompt)
	}

	if err := w.b.StopRemote(); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.b.RemoteInfo(); ok {
		t.Error("still shared after StopRemote")
	}
	if _, ok := <-runs; ok {
		t.Error("the runs channel is open after StopRemote")
	}
	u, _ := url.Parse(info.URL)
	if conn, err := net.DialTimeout("tcp", u.Host, 2*time.Second); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections", u.Host)
	}
}

// Beyond loopback needs a token of the person's; /remote's address is
// checked.
func TestInteractiveRemoteRefusals(t *testing.T) {
	w := newInteractiveWorld(t)
	w.start(t, buildOptions{})
	w.b.sharing.remote = remoteFlags{host: "127.0.0.1", port: 0}
	if _, err := w.b.StartRemote("0.0.0.0"); err == nil || !strings.Contains(err.Error(), "start nova with a token") {
		t.Errorf("0.0.0.0 without a token: %v", err)
	}
	if _, err := w.b.StartRemote("127.0.0.1:99999"); err == nil || !strings.Contains(err.Error(), "0 (any free port) to 65535") {
		t.Errorf("a bad port: %v", err)
	}
	if _, ok := w.b.RemoteInfo(); ok {
		t.Error("a refused start left a share")
	}
}
