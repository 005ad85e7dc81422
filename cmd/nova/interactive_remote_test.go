package main

import (
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/remote"
	"github.com/nova-dev/nova/tui"
)

// strongToken is a token of the person's that may serve beyond loopback.
const strongToken = "5f0c7a9e2b8d4f61a3c9e07b52d8f1a4"

func TestRootRemoteFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("  "+strongToken+"  \nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte(strongToken), 0o644); err != nil {
		t.Fatal(err)
	}
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
			want: remoteFlags{on: true, host: "127.0.0.1", port: 8765, token: tokenFlags{token: "env-token"}}},
		{name: "--token over the environment", args: []string{"--host", "0.0.0.0", "--token", strongToken}, env: map[string]string{"NOVA_SERVER_TOKEN": "env-token"},
			want: remoteFlags{host: "0.0.0.0", port: 8765, token: tokenFlags{token: strongToken}}},
		{name: "--token-file", args: []string{"--host", "0.0.0.0", "--token-file", file}, env: map[string]string{"NOVA_SERVER_TOKEN": "env-token"},
			want: remoteFlags{host: "0.0.0.0", port: 8765, token: tokenFlags{token: strongToken, file: file}}},
		{name: "a weak token beyond loopback", args: []string{"--host", "0.0.0.0", "--token", "1234"}, code: 2, stderr: "under the 128 it needs"},
		{name: "a weak token beyond loopback, insecure", args: []string{"--host", "0.0.0.0", "--token", "1234", "--insecure-token"},
			want: remoteFlags{host: "0.0.0.0", port: 8765, token: tokenFlags{token: "1234", insecure: true}}},
		{name: "a weak token on loopback", args: []string{"--token", "1234"}, want: remoteFlags{host: "127.0.0.1", port: 8765, token: tokenFlags{token: "1234"}}},
		{name: "--token and --token-file", args: []string{"--token", strongToken, "--token-file", file}, code: 2, stderr: "give one"},
		{name: "a token file others can read", args: []string{"--token-file", open}, code: 2, stderr: "chmod 600"},
		{name: "a missing token file", args: []string{"--token-file", filepath.Join(dir, "nope")}, code: 2, stderr: "--token-file"},
		{name: "beyond loopback without a token", args: []string{"--remote", "--host", "0.0.0.0"}, code: 2, stderr: "--host 0.0.0.0 is reachable from other machines: give a token"},
		{name: "a port out of range", args: []string{"--port", "70000"}, code: 2, stderr: "--port 70000: want 0 (any free port) to 65535"},
		{name: "print mode", args: []string{"-p", "--remote", "hi"}, code: 2, stderr: "print mode has none to share"},
		{name: "print mode with the token in the environment", args: []string{"-p", "hi"}, env: map[string]string{"NOVA_SERVER_TOKEN": "env-token"},
			want: remoteFlags{host: "127.0.0.1", port: 8765}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = v
			}
			tio := newTestIO(t, "", false, env)
			tio.s.Unsetenv = func(k string) error { delete(env, k); return nil }
			var got *rootOptions
			code := tio.parse(newRootCmd(&Factory{IOStreams: tio.s}, func(o *rootOptions) error { got = o; return nil }), tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, tio.errOut)
			}
			if _, left := env["NOVA_SERVER_TOKEN"]; left {
				t.Error("NOVA_SERVER_TOKEN is still in nova's environment: what nova starts would inherit it")
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
	frag, _ := url.ParseQuery(u.Fragment)
	c, _, err := websocket.DefaultDialer.Dial("ws://"+u.Host+"/ws", http.Header{"Authorization": {"Bearer " + frag.Get("token")}})
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
	if !strings.HasPrefix(info.URL, "http://127.0.0.1:") || !strings.Contains(info.URL, "/#token=") || info.Exposed {
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

// /remote lan serves on this machine's first LAN address with a fresh
// token, marked as exposed; a loopback share names that address for the
// phone. Each URL fits an 80-column line.
func TestInteractiveRemoteLAN(t *testing.T) {
	addrs := remote.InterfaceAddrs("0.0.0.0")
	w := newInteractiveWorld(t)
	w.start(t, buildOptions{})
	w.b.sharing.remote = remoteFlags{host: "127.0.0.1", port: 0}
	if len(addrs) == 0 {
		if _, err := w.b.StartRemote("lan"); err == nil || !strings.Contains(err.Error(), "no LAN address") {
			t.Errorf("lan without a LAN address: %v", err)
		}
		t.Skip("this machine has no LAN address")
	}
	info, err := w.b.StartRemote("")
	if err != nil {
		t.Fatal(err)
	}
	if info.LAN != addrs[0] || info.Exposed || len(info.URL) > 80 {
		t.Errorf("loopback share: %+v (%d characters)", info, len(info.URL))
	}
	if err := w.b.StopRemote(); err != nil {
		t.Fatal(err)
	}
	info, err = w.b.StartRemote("lan")
	if err != nil {
		t.Fatal(err)
	}
	defer w.b.StopRemote()
	u, _ := url.Parse(info.URL)
	if u.Hostname() != addrs[0] || !info.Exposed || len(info.URL) > 80 || info.LAN != "" {
		t.Errorf("lan share: %+v (%d characters)", info, len(info.URL))
	}
	c := wsDial(t, info) // the server answers on the LAN address, token and all
	c.Close()
}
