package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
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
	"github.com/nova-dev/nova/llm/llmtest"
)

// wsEnv is a server on a real live.Host (sessions in the test's
// NOVA_HOME, the model the fake provider llmtest, no sandbox) whose
// WebSocket has the test's limits.
type wsEnv struct {
	*testServer
	llm *llmtest.Server
}

func newWSEnv(t *testing.T, cfg wsConfig, turns ...llmtest.Turn) *wsEnv {
	return newWSEnvOn(t, cfg, nil, turns...)
}

// newWSEnvOn is newWSEnv with the listener wrapped by wrap.
func newWSEnvOn(t *testing.T, cfg wsConfig, wrap func(net.Listener) net.Listener, turns ...llmtest.Turn) *wsEnv {
	t.Helper()
	srv := llmtest.New(turns...)
	t.Cleanup(srv.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	o := Options{Host: "127.0.0.1", Token: testToken, NovaHome: filepath.Join(t.TempDir(), ".nova"), Home: t.TempDir(),
		Workdir: t.TempDir(), Getenv: func(k string) string { return env[k] }}
	host := live.NewHost(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home,
		Getenv: o.Getenv, NoSandbox: true})
	t.Cleanup(host.Close)
	o.Sessions = host
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	s.ws.cfg = cfg // before it serves
	s.streams.writeWait = cfg.writeWait
	hs := httptest.NewUnstartedServer(s.Handler())
	if wrap != nil {
		hs.Listener = wrap(hs.Listener)
	}
	hs.Start()
	t.Cleanup(func() {
		s.ws.shutdown()
		s.ws.wg.Wait()
		hs.Close()
	})
	return &wsEnv{testServer: &testServer{t: t, srv: s, url: hs.URL, o: o}, llm: srv}
}

func (e *wsEnv) wsURL(query string) string {
	return "ws" + strings.TrimPrefix(e.url, "http") + "/ws" + query
}

func bearer() http.Header { return http.Header{"Authorization": {"Bearer " + testToken}} }

// dial opens GET /ws with header (nil: none) and query.
func (e *wsEnv) dial(header http.Header, query string) (*websocket.Conn, *http.Response, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	c, resp, err := d.Dial(e.wsURL(query), header)
	if c != nil {
		e.t.Cleanup(func() { c.Close() })
	}
	return c, resp, err
}

// connect is a client of test t with the token that reads all the time.
func (e *wsEnv) connect(t *testing.T) *wsClient {
	t.Helper()
	c, resp, err := e.dial(bearer(), "")
	if err != nil {
		t.Fatalf("dial: %v (%s)", err, respText(resp))
	}
	return startClient(t, c)
}

// subscribers counts the connections that follow session id.
func (e *wsEnv) subscribers(id string) int {
	h := &e.srv.ws
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for wc := range h.conns {
		if wc.subscribed(id) {
			n++
		}
	}
	return n
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

func respText(resp *http.Response) string {
	if resp == nil {
		return "no response"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ", resp.StatusCode)
	buf := make([]byte, 512)
	n, _ := resp.Body.Read(buf)
	b.Write(buf[:n])
	return b.String()
}

// wsMsg is any server message as a client decodes it.
type wsMsg struct {
	Type        string          `json:"type"`
	ID          json.RawMessage `json:"id"`
	SessionID   string          `json:"session_id"`
	Run         string          `json:"run"`
	Seq         int64           `json:"seq"`
	FromSeq     int64           `json:"from_seq"`
	Interrupted *bool           `json:"interrupted"`
	Detail      string          `json:"detail"`
	Event       *agent.Event    `json:"event"`
	Prompt      *wsPrompt       `json:"prompt"`
	raw         string
}

// is reports whether m is a message of type typ answering the client id
// (as JSON, "" for none).
func (m wsMsg) is(typ, id string) bool { return m.Type == typ && string(m.ID) == id }

// event reports whether m is a frame of session sid with an event of typ.
func (m wsMsg) event(sid string, typ agent.EventType) bool {
	return m.Type == "event" && m.SessionID == sid && m.Event != nil && m.Event.Type == typ
}

// wsClient reads everything the server sends into msgs.
type wsClient struct {
	t    *testing.T
	c    *websocket.Conn
	msgs chan wsMsg
	err  error // why reading stopped, once msgs is closed
}

func startClient(t *testing.T, c *websocket.Conn) *wsClient {
	wc := &wsClient{t: t, c: c, msgs: make(chan wsMsg, 1<<13)}
	go func() {
		defer close(wc.msgs)
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				wc.err = err
				return
			}
			m := wsMsg{raw: string(data)}
			if err := json.Unmarshal(data, &m); err != nil {
				m.Type = "undecodable: " + err.Error()
			}
			wc.msgs <- m
		}
	}()
	return wc
}

func (c *wsClient) send(msg string) {
	c.t.Helper()
	if err := c.c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		c.t.Fatalf("send %s: %v", msg, err)
	}
}

// next is the next message; it fails the test after 10 s or when the
// connection ended.
func (c *wsClient) next() wsMsg {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatalf("the connection ended: %v", c.err)
		}
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatal("no message for 10 s")
	}
	return wsMsg{}
}

// until reads up to the first message that match accepts, and returns it
// and everything read before it.
func (c *wsClient) until(match func(wsMsg) bool) (wsMsg, []wsMsg) {
	c.t.Helper()
	var before []wsMsg
	for {
		m := c.next()
		if match(m) {
			return m, before
		}
		before = append(before, m)
	}
}

// toDone reads up to session sid's done event; it returns every message
// read, the done frame last.
func (c *wsClient) toDone(sid string) []wsMsg {
	c.t.Helper()
	done, before := c.until(func(m wsMsg) bool { return m.event(sid, agent.EventDone) })
	return append(before, done)
}

// ended waits for the connection to end and returns why.
func (c *wsClient) ended() error {
	c.t.Helper()
	for {
		select {
		case _, ok := <-c.msgs:
			if !ok {
				return c.err
			}
		case <-time.After(10 * time.Second):
			c.t.Fatal("the connection is still up after 10 s")
		}
	}
}

// frames keeps session sid's event frames of msgs.
func frames(msgs []wsMsg, sid string) []wsMsg {
	var out []wsMsg
	for _, m := range msgs {
		if m.Type == "event" && m.SessionID == sid {
			out = append(out, m)
		}
	}
	return out
}

func find(msgs []wsMsg, match func(wsMsg) bool) (wsMsg, bool) {
	for _, m := range msgs {
		if match(m) {
			return m, true
		}
	}
	return wsMsg{}, false
}

// wantPrompt checks msgs open with the run message of a run started by
// text, naming the run and the number of the frame after it; it returns
// the messages after it.
func wantPrompt(t *testing.T, msgs []wsMsg, text string) []wsMsg {
	t.Helper()
	if len(msgs) < 2 {
		t.Fatalf("%d messages, want a run message and frames", len(msgs))
	}
	r, f := msgs[0], msgs[1]
	if r.Type != "run" || r.Prompt == nil || r.Prompt.Text != text || r.Run != f.Run || r.FromSeq != f.Seq || r.SessionID != f.SessionID {
		t.Fatalf("first message %s then %s, want the run message of prompt %q", r.raw, f.raw, text)
	}
	return msgs[1:]
}

// wantRun checks fs are one run's frames, numbered from first without a
// gap, ending with a successful done; it returns the run and the text.
func wantRun(t *testing.T, fs []wsMsg, first int64) (run, text string) {
	t.Helper()
	if len(fs) == 0 {
		t.Fatal("no frames")
	}
	var b strings.Builder
	for i, f := range fs {
		if f.Seq != first+int64(i) || f.Run == "" || f.Run != fs[0].Run {
			t.Fatalf("frame %d: seq %d run %q; want seq %d of run %q", i, f.Seq, f.Run, first+int64(i), fs[0].Run)
		}
		if f.Event.Type == agent.EventTextDelta {
			b.WriteString(f.Event.Text)
		}
	}
	d := fs[len(fs)-1].Event
	if d.Type != agent.EventDone || d.Done == nil || d.Done.Subtype != agent.SubtypeSuccess {
		t.Fatalf("the last frame is %s", fs[len(fs)-1].raw)
	}
	return fs[0].Run, b.String()
}

// A prompt with session_id "" creates a session and streams its run to
// the done event; the next prompt's run flows on the same subscription,
// with a new run id and numbers that go on. HTTP sees the runs too.
func TestWSPromptStreamsToDone(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, llmtest.Turn{Text: "Hello there."}, llmtest.Turn{Text: "Second answer."})
	c := e.connect(t)
	c.send(`{"type":"prompt","session_id":"","text":"hi","id":7}`)
	s := c.next()
	if !s.is("session", "7") || s.SessionID == "" {
		t.Fatalf("first answer %s, want the new session", s.raw)
	}
	sid := s.SessionID
	if ok := c.next(); !ok.is("ok", "7") || ok.SessionID != sid {
		t.Fatalf("second answer %s, want ok", ok.raw)
	}
	msgs := wantPrompt(t, c.toDone(sid), "hi")
	run1, text := wantRun(t, frames(msgs, sid), 1)
	if text != "Hello there." || len(frames(msgs, sid)) != len(msgs) {
		t.Errorf("run 1 streamed %q in %d messages (%d frames)", text, len(msgs), len(frames(msgs, sid)))
	}
	if d := msgs[len(msgs)-1].Event.Done; d.Result != "Hello there." {
		t.Errorf("done %+v", d)
	}
	e.waitStatus(sid, "done")
	if code, body, _ := e.do("GET", "/api/sessions/"+sid+"/messages", ""); code != 200 || !strings.Contains(body, "Hello there.") {
		t.Errorf("the transcript: %d %s", code, body)
	}

	last := msgs[len(msgs)-1].Seq
	c.send(fmt.Sprintf(`{"type":"prompt","session_id":%q,"text":"more","id":"b"}`, sid))
	msgs = c.toDone(sid)
	if _, ok := find(msgs, func(m wsMsg) bool { return m.is("ok", `"b"`) && m.SessionID == sid }); !ok {
		t.Errorf("no ok for the second prompt in %d messages", len(msgs))
	}
	run2, text := wantRun(t, frames(msgs, sid), last+1)
	if run2 == run1 || text != "Second answer." {
		t.Errorf("run 2: id %q (run 1 %q), text %q", run2, run1, text)
	}
}

// subscribe replays what the log holds after after_seq, then goes on
// live, across runs, whoever starts them; a run the client names that is
// not the session's, or a cursor from the future, is a resync first.
// Several sessions share one connection; unsubscribe ends one.
func TestWSSubscribeReplay(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, llmtest.Turn{Text: "one two three four"}, llmtest.Turn{Text: "other"})
	sid := e.newSession()
	other := e.newSession()

	c := e.connect(t)
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"after_seq":0,"id":1}`, sid))
	if m := c.next(); !m.is("ok", "1") || m.SessionID != sid {
		t.Fatalf("subscribe: %s", m.raw)
	}
	all := wantPrompt(t, c.toDone(sid), "hi")
	run, text := wantRun(t, all, 1)
	if text != "one two three four" {
		t.Errorf("replayed text %q", text)
	}
	n := int64(len(all))

	for _, k := range []struct {
		name, msg string
		from      int64 // the resync's from_seq; 0: none
		first     int64
	}{
		{"after 3", fmt.Sprintf(`{"type":"subscribe","session_id":%q,"after_seq":3,"run":%q}`, sid, run), 0, 4},
		{"after 3, no run", fmt.Sprintf(`{"type":"subscribe","session_id":%q,"after_seq":3}`, sid), 0, 4},
		{"another run", fmt.Sprintf(`{"type":"subscribe","session_id":%q,"after_seq":3,"run":"01J00000000000000000000000"}`, sid), 1, 1},
		{"the future", fmt.Sprintf(`{"type":"subscribe","session_id":%q,"after_seq":%d}`, sid, n+100), 1, 1},
		{"negative", fmt.Sprintf(`{"type":"subscribe","session_id":%q,"after_seq":-1}`, sid), 1, 1},
	} {
		t.Run(k.name, func(t *testing.T) {
			cl := e.connect(t)
			cl.send(k.msg)
			if k.from != 0 { // the resync comes first, before the ok
				if r := cl.next(); r.Type != "resync" || r.SessionID != sid || r.Run != run || r.FromSeq != k.from {
					t.Fatalf("first message %s, want a resync from %d", r.raw, k.from)
				}
			}
			if m := cl.next(); m.Type != "ok" {
				t.Fatalf("subscribe: %s", m.raw)
			}
			msgs := cl.toDone(sid)
			if k.first == 1 {
				msgs = wantPrompt(t, msgs, "hi")
			}
			wantRun(t, msgs, k.first)
			if int64(len(msgs)) != n-k.first+1 {
				t.Errorf("%d frames, want %d", len(msgs), n-k.first+1)
			}
		})
	}

	// A second session on the same connection, then a run of the first
	// started over HTTP: it flows on the subscription, a new run going on
	// from the last number.
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":2}`, other))
	if m := c.next(); !m.is("ok", "2") {
		t.Fatalf("subscribe other: %s", m.raw)
	}
	if _, text := wantRun(t, wantPrompt(t, c.toDone(other), "hi"), 1); text != "other" {
		t.Errorf("the other session replayed %q", text)
	}
	e.llm.Push(llmtest.Turn{Text: "from HTTP"})
	if code, body, _ := e.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"again"}`, sid)); code != 200 {
		t.Fatalf("POST /api/chat: %d %s", code, body)
	}
	run2, text := wantRun(t, wantPrompt(t, c.toDone(sid), "again"), n+1)
	if run2 == run || text != "from HTTP" {
		t.Errorf("the HTTP run: id %q (before %q), text %q", run2, run, text)
	}

	c.send(fmt.Sprintf(`{"type":"unsubscribe","session_id":%q,"id":3}`, other))
	if m := c.next(); !m.is("ok", "3") {
		t.Fatalf("unsubscribe: %s", m.raw)
	}
	if got := e.subscribers(other); got != 0 {
		t.Errorf("%d connections still follow the other session", got)
	}
	if got := e.subscribers(sid); got != 6 {
		t.Errorf("%d connections follow the session, want 6", got)
	}
}

// bigTurn is a model turn of n Read calls of files that do not exist, each
// path pad bytes long: 2n frames and more, as large as wanted.
func bigTurn(n, pad int) llmtest.Turn {
	var calls []llmtest.ToolCall
	for i := range n {
		path := fmt.Sprintf("missing-%d-%s.txt", i, strings.Repeat("x", pad))
		in, _ := json.Marshal(map[string]string{"file_path": path})
		calls = append(calls, llmtest.ToolCall{ID: fmt.Sprintf("toolu_%d", i), Name: "Read", Input: string(in)})
	}
	return llmtest.Turn{ToolCalls: calls}
}

// A cursor older than the 500 frames a run's log keeps is a resync from
// the oldest kept frame.
func TestWSSubscribeEvicted(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, bigTurn(300, 0), llmtest.Turn{Text: "read them all"})
	sid := e.newSession()
	c := e.connect(t)
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"after_seq":1}`, sid))
	r := c.next()
	if m := c.next(); m.Type != "ok" {
		t.Fatalf("subscribe: %s then %s, want a resync then ok", r.raw, m.raw)
	}
	msgs := c.toDone(sid)
	end := msgs[len(msgs)-1].Seq
	if end <= live.ReplayFrames+1 {
		t.Fatalf("the run has only %d frames", end)
	}
	if r.Type != "resync" || r.FromSeq != end-live.ReplayFrames+1 {
		t.Fatalf("first message %s, want a resync from %d", r.raw, end-live.ReplayFrames+1)
	}
	if got := len(msgs); got != live.ReplayFrames || msgs[0].Seq != r.FromSeq {
		t.Errorf("%d frames from %d after the resync", got, msgs[0].Seq)
	}
}

// A Bash call in default mode asks; the ask carries its request_id; an
// approve through another session is refused and the ask stays pending;
// the session's own approve runs the call, and remember saves the
// suggested rule as the HTTP approve does.
func TestWSApproveBash(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{},
		llmtest.Turn{Text: "other"},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: `{"command":"touch made.txt"}`}}},
		llmtest.Turn{Text: "Made it."})
	other := e.newSession()
	c := e.connect(t)
	c.send(`{"type":"prompt","session_id":"","text":"make a file","id":1}`)
	sid := c.next().SessionID
	ask, _ := c.until(func(m wsMsg) bool { return m.event(sid, agent.EventPermissionAsk) })
	a := ask.Event.Ask
	if a == nil || !strings.HasPrefix(a.RequestID, "apr_") || a.Tool != "Bash" || a.ID != "toolu_1" {
		t.Fatalf("ask %s", ask.raw)
	}
	made := filepath.Join(e.o.Workdir, "made.txt")

	c.send(fmt.Sprintf(`{"type":"approve","session_id":%q,"request_id":%q,"approved":true,"id":2}`, other, a.RequestID))
	if m := c.next(); !m.is("error", "2") || !strings.Contains(m.Detail, "not pending in session "+other) || m.SessionID != other {
		t.Fatalf("approve through another session: %s", m.raw)
	}
	c.send(fmt.Sprintf(`{"type":"approve","session_id":%q,"request_id":"apr_nope","approved":true,"id":3}`, sid))
	if m := c.next(); !m.is("error", "3") {
		t.Fatalf("approve of an unknown id: %s", m.raw)
	}
	if _, err := os.Stat(made); err == nil {
		t.Fatal("the call ran before it was approved")
	}

	c.send(fmt.Sprintf(`{"type":"approve","session_id":%q,"request_id":%q,"approved":true,"remember":true,"id":4}`, sid, a.RequestID))
	msgs := c.toDone(sid)
	if _, ok := find(msgs, func(m wsMsg) bool { return m.is("ok", "4") }); !ok {
		t.Error("no ok for the approve")
	}
	res, ok := find(msgs, func(m wsMsg) bool { return m.event(sid, agent.EventToolResult) })
	if !ok || res.Event.Result.ID != "toolu_1" || res.Event.Result.IsError {
		t.Fatalf("tool result %s", res.raw)
	}
	if _, err := os.Stat(made); err != nil {
		t.Errorf("the approved call did not run: %v", err)
	}
	c.send(fmt.Sprintf(`{"type":"approve","session_id":%q,"request_id":%q,"approved":true,"id":5}`, sid, a.RequestID))
	if m := c.next(); !m.is("error", "5") {
		t.Errorf("a second approve: %s", m.raw)
	}
	rules, err := os.ReadFile(filepath.Join(e.o.Workdir, ".nova", "settings.local.json"))
	if err != nil || len(a.Suggestions) == 0 || !strings.Contains(string(rules), a.Suggestions[0]) {
		t.Errorf("remember: settings.local.json %q (%v), suggestions %v", rules, err, a.Suggestions)
	}
}

// interrupt stops a slow run mid-stream: the done event says
// interrupted, the ok comes with the slot free, and the next prompt runs.
func TestWSInterrupt(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, llmtest.Turn{Text: "a slow answer that takes its time", ChunkDelay: 300 * time.Millisecond})
	c := e.connect(t)
	c.send(`{"type":"prompt","session_id":"","text":"go slowly"}`)
	sid := c.next().SessionID
	c.until(func(m wsMsg) bool { return m.event(sid, agent.EventTextDelta) })
	c.send(fmt.Sprintf(`{"type":"interrupt","session_id":%q,"id":9}`, sid))
	msgs := c.toDone(sid)
	if d := msgs[len(msgs)-1].Event.Done; d.Subtype != agent.SubtypeInterrupted {
		t.Errorf("done %+v, want interrupted", d)
	}
	ok, found := find(msgs, func(m wsMsg) bool { return m.is("ok", "9") })
	if !found {
		ok, _ = c.until(func(m wsMsg) bool { return m.is("ok", "9") })
	}
	if ok.Interrupted == nil || !*ok.Interrupted {
		t.Errorf("interrupt's ok %s", ok.raw)
	}
	e.llm.Push(llmtest.Turn{Text: "fresh"})
	c.send(fmt.Sprintf(`{"type":"prompt","session_id":%q,"text":"again","id":10}`, sid))
	if _, text := wantRun(t, frames(c.toDone(sid), sid), msgs[len(msgs)-1].Seq+1); text != "fresh" {
		t.Errorf("after the interrupt: %q", text)
	}
	c.send(fmt.Sprintf(`{"type":"interrupt","session_id":%q,"id":11}`, sid))
	if m, _ := c.until(func(m wsMsg) bool { return m.Type != "event" }); !m.is("ok", "11") || m.Interrupted == nil || *m.Interrupted {
		t.Errorf("interrupt with nothing running: %s", m.raw)
	}
}

// A bad message gets an error naming what is wrong, with the client's id
// when it could be read, and the connection goes on; a prompt on a busy
// session gets the HTTP 409's words; a message over the read limit
// closes the connection with 1009.
func TestWSBadMessages(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{readLimit: 4096}, llmtest.Turn{Hang: true})
	c := e.connect(t)
	for _, k := range []struct{ msg, id, has string }{
		{`not json`, "", "not JSON"},
		{`[1,2]`, "", "a message is a JSON object"},
		{`{"id":1}`, "1", "type is required"},
		{`{"type":"dance","id":"x"}`, `"x"`, `unknown type "dance"`},
		{`{"type":"subscribe","id":2}`, "2", "session_id is required"},
		{`{"type":"subscribe","session_id":"nope","id":3}`, "3", "session nope not found"},
		{`{"type":"subscribe","session_id":"s","after_seq":"ten","id":4}`, "4", "after_seq must be an integer"},
		{`{"type":"prompt","text":"hi","id":5}`, "5", "session_id is required"},
		{`{"type":"prompt","session_id":"","id":6}`, "6", "text is required"},
		{`{"type":"prompt","session_id":"nope","text":"hi","id":7}`, "7", "not found"},
		{`{"type":"approve","session_id":"s","approved":true,"id":8}`, "8", "request_id is required"},
		{`{"type":"approve","session_id":"s","request_id":"apr_x","id":9}`, "9", "approved is required"},
		{`{"type":"approve","session_id":"s","request_id":"apr_x","approved":"yes","id":10}`, "10", "approved must be true or false"},
		{`{"type":"approve","session_id":"nope","request_id":"apr_x","approved":true,"id":11}`, "11", "not pending in session nope"},
		{`{"type":"interrupt","id":12}`, "12", "session_id is required"},
		{`{"type":"interrupt","session_id":"nope","id":13}`, "13", "session nope not found"},
		{`{"type":"unsubscribe","session_id":"","id":14}`, "14", "session_id is required"},
	} {
		c.send(k.msg)
		if m := c.next(); !m.is("error", k.id) || !strings.Contains(m.Detail, k.has) {
			t.Errorf("%s: %s, want an error with id %s saying %q", k.msg, m.raw, k.id, k.has)
		}
	}
	if err := c.c.WriteMessage(websocket.BinaryMessage, []byte(`{"type":"subscribe"}`)); err != nil {
		t.Fatal(err)
	}
	if m := c.next(); m.Type != "error" || !strings.Contains(m.Detail, "binary") {
		t.Errorf("binary message: %s", m.raw)
	}

	// Busy: the same words as the HTTP 409.
	c.send(`{"type":"prompt","session_id":"","text":"hang"}`)
	sid := c.next().SessionID
	c.until(func(m wsMsg) bool { return m.Type == "ok" })
	c.send(fmt.Sprintf(`{"type":"prompt","session_id":%q,"text":"again","id":20}`, sid))
	// The hanging run's own "run" message may come first (its watcher
	// started with the prompt's ok): only the answer to id 20 matters.
	m, _ := c.until(func(m wsMsg) bool { return m.Type != "event" && m.Type != "run" })
	code, body, _ := e.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"again"}`, sid))
	if !m.is("error", "20") || code != 409 || !strings.Contains(body, m.Detail) || !strings.HasPrefix(m.Detail, "Session is busy: "+sid) {
		t.Errorf("busy: %s; HTTP %d %s", m.raw, code, body)
	}

	// After all that the connection still works.
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":21}`, sid))
	if m, _ := c.until(func(m wsMsg) bool { return m.Type != "event" && m.Type != "run" }); !m.is("ok", "21") {
		t.Errorf("subscribe after the errors: %s", m.raw)
	}

	c.send(`{"type":"subscribe","session_id":"` + strings.Repeat("x", 5000) + `"}`)
	if err := c.ended(); !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Errorf("a message over the limit: %v, want close 1009", err)
	}
}

// Deleting a session ends its subscriptions: the client is told.
func TestWSSessionClosed(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{}, llmtest.Turn{Text: "ok"})
	sid := e.newSession()
	c := e.connect(t)
	c.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q}`, sid))
	c.toDone(sid)
	if code, body, _ := e.do("DELETE", "/api/sessions/"+sid, ""); code != 200 {
		t.Fatalf("delete: %d %s", code, body)
	}
	if m := c.next(); m.Type != "unsubscribed" || m.SessionID != sid || !strings.Contains(m.Detail, "subscribe again") {
		t.Errorf("after the delete: %s", m.raw)
	}
	if got := e.subscribers(sid); got != 0 {
		t.Errorf("%d connections still follow the deleted session", got)
	}
}
