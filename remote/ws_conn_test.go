package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm/llmtest"
)

// The WebSocket's connection: who may open it, and what keeps it up or
// closes it. The protocol's tests and the helpers are in ws_test.go.

// The WebSocket takes the HTTP API's token as the header, or as the
// token subprotocol a browser can send (answered with "nova.v1"); a
// cookie or ?token= is no token at all. Without it the upgrade is a 401.
func TestWSAuth(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{})
	proto := func(ps ...string) http.Header { return http.Header{"Sec-WebSocket-Protocol": {strings.Join(ps, ", ")}} }
	for _, c := range []struct {
		name   string
		header http.Header
		query  string
		ok     bool
		// protocol is the subprotocol the server must answer with.
		protocol string
	}{
		{"no token", nil, "", false, ""},
		{"wrong bearer", http.Header{"Authorization": {"Bearer nope"}}, "", false, ""},
		{"wrong subprotocol token", proto(wsProtocol, WSTokenProtocol("nope")), "", false, ""},
		{"a token subprotocol that is not base64url", proto(wsProtocol, wsTokenPrefix+"t0ken-for-tests!"), "", false, ""},
		{"cookie", http.Header{"Cookie": {"nova_token=" + testToken}}, "", false, ""},
		{"query token", nil, "?token=" + testToken, false, ""},
		{"bearer", bearer(), "", true, ""},
		{"subprotocol token", proto(wsProtocol, WSTokenProtocol(testToken)), "", true, wsProtocol},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, resp, err := e.dial(c.header, c.query)
			if !c.ok {
				if err == nil || resp == nil || resp.StatusCode != 401 {
					t.Fatalf("dial: %v, %s; want 401", err, respText(resp))
				}
				if body := respText(resp); !strings.Contains(body, `"detail"`) || !strings.Contains(body, "token") {
					t.Errorf("401 body %s", body)
				}
				return
			}
			if err != nil {
				t.Fatalf("dial: %v (%s)", err, respText(resp))
			}
			if got := conn.Subprotocol(); got != c.protocol {
				t.Errorf("the server answered with subprotocol %q, want %q (never the token's)", got, c.protocol)
			}
			cl := startClient(t, conn)
			cl.send(`{"type":"unsubscribe","session_id":"x","id":1}`)
			if m := cl.next(); !m.is("ok", "1") {
				t.Errorf("answer %s", m.raw)
			}
		})
	}
	// Nor does the rest of the API take ?token=.
	if code, _, _ := e.do("GET", "/api/sessions?token="+testToken, "", "Authorization", ""); code != 401 {
		t.Errorf("GET /api/sessions?token=: %d, want 401", code)
	}
}

// A browser page of another origin cannot open the WebSocket (403); a
// page of the server's own origin can, and so can a client that sends no
// Origin.
func TestWSOrigin(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{})
	host := strings.TrimPrefix(e.url, "http://")
	_, port, _ := net.SplitHostPort(host)
	for _, c := range []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{"http://" + host, true},
		{"https://" + host, true}, // behind a TLS proxy that keeps the Host
		{"http://evil.example", false},
		{"http://evil.example:" + port, false},
		{"http://127.0.0.1:1", false},
		{"http://localhost:" + port, false}, // same machine, another origin
		{"null", false},
	} {
		h := bearer()
		if c.origin != "" {
			h.Set("Origin", c.origin)
		}
		conn, resp, err := e.dial(h, "")
		if c.ok {
			if err != nil {
				t.Errorf("Origin %q: %v (%s)", c.origin, err, respText(resp))
				continue
			}
			conn.Close()
			continue
		}
		if err == nil || resp == nil || resp.StatusCode != 403 {
			t.Errorf("Origin %q: %v, %s; want 403", c.origin, err, respText(resp))
			continue
		}
		if body := respText(resp); !strings.Contains(body, `"detail"`) || !strings.Contains(body, "Origin") {
			t.Errorf("Origin %q: body %s", c.origin, body)
		}
	}
}

// smallBuffers gives every accepted connection a small socket send
// buffer, so a client that does not read blocks the server's writes
// after a few kilobytes rather than megabytes.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// dialSlow connects a client with a small socket buffer that subscribes
// to session sid and does not read: the test reads it, or not, later.
func (e *wsEnv) dialSlow(t *testing.T, sid string) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{ReadBufferSize: 1024, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		return c, err
	}}
	slow, resp, err := d.Dial(e.wsURL(""), bearer())
	if err != nil {
		t.Fatalf("dial: %v (%s)", err, respText(resp))
	}
	t.Cleanup(func() { slow.Close() })
	if err := slow.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(`{"type":"subscribe","session_id":%q}`, sid))); err != nil {
		t.Fatal(err)
	}
	return slow
}

// A client that never reads does not hold up the run or another
// subscriber of the session: that one sees the run to its done event,
// and the one that does not read is closed.
func TestWSSlowClientDoesNotStall(t *testing.T) {
	t.Parallel()
	e := newWSEnvOn(t, wsConfig{queue: 1, writeWait: time.Second}, func(l net.Listener) net.Listener { return smallBuffers{l} },
		llmtest.Turn{Text: "ok"}, bigTurn(120, 300), llmtest.Turn{Text: "read them all"})
	sid := e.newSession()
	slow := e.dialSlow(t, sid)
	fast := e.connect(t)
	fast.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":1}`, sid))
	fast.until(func(m wsMsg) bool { return m.is("ok", "1") })
	firstRun := fast.toDone(sid) // the replay of the session's first run
	waitFor(t, "both clients to follow the session", func() bool { return e.subscribers(sid) == 2 })

	fast.send(fmt.Sprintf(`{"type":"prompt","session_id":%q,"text":"read everything"}`, sid))
	msgs := fast.toDone(sid)
	if d := msgs[len(msgs)-1].Event.Done; d.Subtype != agent.SubtypeSuccess || d.Result != "read them all" {
		t.Errorf("the run's done %+v", d)
	}
	bigRun := firstRun[len(firstRun)-1].Seq
	waitFor(t, "the client that does not read to be let go", func() bool { return e.subscribers(sid) == 1 })

	// What reached it before it was closed ends without the run's done.
	cl := startClient(t, slow)
	var got []wsMsg
	for m := range cl.msgs {
		got = append(got, m)
	}
	if cl.err == nil {
		t.Error("the slow client's connection did not end")
	}
	if _, ok := find(got, func(m wsMsg) bool { return m.Type == "resync" }); !ok {
		if m, ok := find(got, func(m wsMsg) bool { return m.event(sid, agent.EventDone) && m.Seq > bigRun }); ok {
			t.Errorf("the slow client got the whole run without a resync: %s", m.raw)
		}
	}
	t.Logf("the slow client read %d messages, then: %v", len(got), cl.err)
}

// A client that stops reading for longer than live keeps frames for it
// is caught up when it reads again: what was kept for it, then a resync
// where frames were lost, then the rest of the run. No frame is missing
// without a resync saying so.
func TestWSSlowClientCatchesUp(t *testing.T) {
	t.Parallel()
	e := newWSEnvOn(t, wsConfig{queue: 1, writeWait: time.Minute}, func(l net.Listener) net.Listener { return smallBuffers{l} },
		llmtest.Turn{Text: "ok"}, bigTurn(1000, 0), llmtest.Turn{Text: "read them all"})
	sid := e.newSession()
	slow := e.dialSlow(t, sid)
	fast := e.connect(t)
	fast.send(fmt.Sprintf(`{"type":"subscribe","session_id":%q,"id":1}`, sid))
	fast.until(func(m wsMsg) bool { return m.is("ok", "1") })
	firstRun := fast.toDone(sid)
	waitFor(t, "both clients to follow the session", func() bool { return e.subscribers(sid) == 2 })
	fast.send(fmt.Sprintf(`{"type":"prompt","session_id":%q,"text":"read everything"}`, sid))
	end := fast.toDone(sid)
	last := end[len(end)-1].Seq

	// The run is over; the slow client reads now.
	cl := startClient(t, slow)
	if m := cl.next(); m.Type != "ok" {
		t.Fatalf("first message %s", m.raw)
	}
	var prev, resyncs int64
	var from int64 = -1
	for {
		m := cl.next()
		if m.Type == "resync" {
			if m.FromSeq <= prev+1 {
				t.Errorf("a resync from %d after frame %d: nothing was lost", m.FromSeq, prev)
			}
			from = m.FromSeq
			resyncs++
			continue
		}
		if m.Type == "run" && m.FromSeq == prev+1 {
			continue // the second run's prompt, before its first frame
		}
		if m.Type != "event" {
			t.Fatalf("unexpected %s", m.raw)
		}
		switch {
		case from >= 0 && m.Seq != from:
			t.Fatalf("frame %d after a resync from %d", m.Seq, from)
		case from < 0 && m.Seq != prev+1:
			t.Fatalf("frame %d after %d with no resync", m.Seq, prev)
		}
		prev, from = m.Seq, -1
		if m.Seq == last {
			break
		}
	}
	if resyncs == 0 {
		t.Errorf("no resync: the %d frames after the first run's %d all waited for the client", last-firstRun[len(firstRun)-1].Seq, firstRun[len(firstRun)-1].Seq)
	}
	if e.subscribers(sid) != 2 {
		t.Error("the slow client was let go")
	}
}

// The server pings; a peer that answers stays connected however long it
// is idle, one that does not is closed.
func TestWSPing(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{ping: 50 * time.Millisecond, pongWait: time.Second})
	alive, resp, err := e.dial(bearer(), "")
	if err != nil {
		t.Fatalf("dial: %v (%s)", err, respText(resp))
	}
	pings := make(chan struct{}, 1000)
	alive.SetPingHandler(func(data string) error {
		pings <- struct{}{}
		return alive.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	c := startClient(t, alive)
	// 25 pings take longer than the pong wait.
	for i := range 25 {
		select {
		case <-pings:
		case <-time.After(10 * time.Second):
			t.Fatalf("ping %d did not come", i)
		}
	}
	c.send(`{"type":"unsubscribe","session_id":"x","id":1}`)
	if m := c.next(); !m.is("ok", "1") {
		t.Fatalf("an idle connection that answers pings: %s", m.raw)
	}

	dead, resp, err := e.dial(bearer(), "")
	if err != nil {
		t.Fatalf("dial: %v (%s)", err, respText(resp))
	}
	dead.SetPingHandler(func(string) error { return nil }) // reads, never answers
	err = startClient(t, dead).ended()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway || !strings.Contains(ce.Text, "no pong") {
		t.Errorf("the peer that does not answer: %v, want close 1001 (no pong)", err)
	}
}

// Serve's shutdown closes the WebSockets with 1001 (http.Server.Shutdown
// does not wait for them).
func TestWSShutdown(t *testing.T) {
	t.Parallel()
	e := newWSEnv(t, wsConfig{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- e.srv.Serve(ctx, ln) }()
	conn, resp, err := websocket.DefaultDialer.Dial("ws://"+ln.Addr().String()+"/ws", bearer())
	if err != nil {
		t.Fatalf("dial: %v (%s)", err, respText(resp))
	}
	defer conn.Close()
	c := startClient(t, conn)
	c.send(`{"type":"unsubscribe","session_id":"x","id":1}`)
	c.next()
	cancel()
	if err := c.ended(); !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Errorf("at shutdown: %v, want close 1001", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
