package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/remote"
)

// The seam of a shared session, for real: a runtime against the fake
// provider, nova serve's server on live.Shared of it, and the TUI model
// on a backend that runs the same runtime and follows the runs it did
// not start, as cmd/nova's does. A browser is a WebSocket client.

// sharedBackend runs the TUI's prompts on rt and offers the runs others
// start on its session as the Remote capability's runs.
type sharedBackend struct {
	*fakeBackend
	rt   *live.Runtime
	url  string
	runs chan RemoteRun
}

func (b *sharedBackend) Run(ctx context.Context, in llm.Message) <-chan agent.Event {
	return b.rt.Live.Run(ctx, in)
}
func (b *sharedBackend) StartRemote(string) (RemoteInfo, error) { return RemoteInfo{URL: b.url}, nil }
func (b *sharedBackend) StopRemote() error                      { return nil }
func (b *sharedBackend) RemoteInfo() (RemoteInfo, bool)         { return RemoteInfo{URL: b.url}, true }
func (b *sharedBackend) RemoteRuns() <-chan RemoteRun           { return b.runs }

// follow offers every run of the session that is not Local, until ctx
// ends.
func (b *sharedBackend) follow(ctx context.Context) {
	defer close(b.runs)
	r := b.rt.Live.LastRun()
	for {
		next, err := r.Next(ctx)
		if err != nil {
			return
		}
		r = next
		if r.Local() {
			continue
		}
		var prompt strings.Builder
		for _, p := range r.Input().Parts {
			prompt.WriteString(p.Text)
		}
		select {
		case b.runs <- RemoteRun{Prompt: prompt.String(), Events: r.Events(ctx), Interrupt: func() { go b.rt.Live.Interrupt() }}:
		case <-ctx.Done():
			return
		}
	}
}

// browser is a WebSocket client of the server, as the web UI is.
type browser struct {
	t    *testing.T
	c    *websocket.Conn
	msgs chan map[string]any
}

func (br *browser) send(format string, args ...any) {
	br.t.Helper()
	if err := br.c.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, format, args...)); err != nil {
		br.t.Fatal(err)
	}
}

// until reads up to a message that match accepts.
func (br *browser) until(match func(map[string]any) bool) map[string]any {
	br.t.Helper()
	for {
		select {
		case m, ok := <-br.msgs:
			if !ok {
				br.t.Fatal("the socket closed")
			}
			if match(m) {
				return m
			}
		case <-time.After(10 * time.Second):
			br.t.Fatal("the socket got nothing for 10 s")
		}
	}
}

// event matches a frame of an event of typ.
func event(typ agent.EventType) func(map[string]any) bool {
	return func(m map[string]any) bool {
		ev, _ := m["event"].(map[string]any)
		return m["type"] == "event" && ev["type"] == string(typ)
	}
}

func newSharedWorld(t *testing.T, turns ...llmtest.Turn) (*harness, *sharedBackend, *browser) {
	t.Helper()
	srv := llmtest.New(turns...)
	t.Cleanup(srv.Close)
	home := t.TempDir()
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	getenv := func(k string) string { return env[k] }
	ws := t.TempDir()
	rt, err := live.Build(context.Background(), live.Options{NovaHome: filepath.Join(home, ".nova"), Workdir: ws, Home: home,
		Getenv: getenv, NoSandbox: true, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	const token = "a-token-for-the-seam"
	s, err := remote.New(remote.Options{Host: "127.0.0.1", Token: token, NovaHome: rt.NovaHome, Home: home, Workdir: ws,
		Sessions: live.NewShared(func() *live.Runtime { return rt }), Getenv: getenv, Share: true})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)

	ctx, cancel := context.WithCancel(context.Background())
	b := &sharedBackend{fakeBackend: newFake(), rt: rt, url: hs.URL + "/#token=" + token, runs: make(chan RemoteRun)}
	go b.follow(ctx)
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", http.Header{"Authorization": {"Bearer " + token}})
	if err != nil {
		t.Fatal(err)
	}
	br := &browser{t: t, c: c, msgs: make(chan map[string]any, 1024)}
	go func() {
		defer close(br.msgs)
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(data, &m) == nil {
				br.msgs <- m
			}
		}
	}()
	t.Cleanup(func() {
		c.Close()
		cancel()
	})

	h := newRemoteHarness(t, &remoteBackend{fakeBackend: b.fakeBackend})
	h.m.b = b
	h.m.in.comp.commands = h.m.commandNames()
	h.run(h.m.remoteInit()) // as nova --remote starts it
	return h, b, br
}

// A prompt sent over the WebSocket shows up in the terminal with its
// answer; an ask of a browser's run is in both places, and approving it
// in the browser closes the terminal's dialog; the terminal's own prompt
// streams to the browser.
func TestSharedSessionSeam(t *testing.T) {
	h, b, br := newSharedWorld(t,
		llmtest.Turn{Text: "Hi, phone."},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: `{"command":"touch made.txt"}`}}},
		llmtest.Turn{Text: "Made it."},
		llmtest.Turn{Text: "Hello, terminal."})
	sid := b.rt.Session.ID()
	h.contains(b.url)

	br.send(`{"type":"prompt","session_id":%q,"text":"hello from the phone"}`, sid)
	h.deliverRun(b.runs)
	h.waitFor(func() bool { return h.m.run == nil })
	h.contains("❯ hello from the phone")
	h.contains("Sent from the browser")
	h.contains("Hi, phone.")
	br.until(event(agent.EventDone))

	br.send(`{"type":"prompt","session_id":%q,"text":"make a file"}`, sid)
	h.deliverRun(b.runs)
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.contains("Allow Bash?")
	ask := br.until(event(agent.EventPermissionAsk))["event"].(map[string]any)["ask"].(map[string]any)
	br.send(`{"type":"approve","session_id":%q,"request_id":%q,"approved":true}`, sid, ask["request_id"])
	h.waitFor(func() bool { return len(h.m.dialogs) == 0 })
	h.contains("Bash allowed in the browser")
	h.waitFor(func() bool { return h.m.run == nil })
	h.contains("Made it.")
	if _, err := os.Stat(filepath.Join(b.rt.Workdir, "made.txt")); err != nil {
		t.Errorf("the call approved in the browser did not run: %v", err)
	}
	br.until(event(agent.EventDone))

	h.command("and one from the terminal")
	h.waitFor(func() bool { return h.m.run == nil })
	h.contains("Hello, terminal.")
	var got strings.Builder
	for m := br.until(event(agent.EventTextDelta)); ; m = br.until(func(map[string]any) bool { return true }) {
		ev, _ := m["event"].(map[string]any)
		if ev["type"] == string(agent.EventDone) {
			break
		}
		if ev["type"] == string(agent.EventTextDelta) {
			got.WriteString(ev["text"].(string))
		}
	}
	if got.String() != "Hello, terminal." {
		t.Errorf("the browser saw %q of the terminal's run", got.String())
	}
}
