package remote

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// An SSE client that stops reading on a large turn is let go: its write
// deadline passes, the connection is closed, and the run finishes.
func TestSSEClientThatNeverReadsIsLetGo(t *testing.T) {
	t.Parallel()
	e := newWSEnvOn(t, wsConfig{writeWait: 300 * time.Millisecond}, func(l net.Listener) net.Listener { return smallBuffers{l} },
		llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: strings.Repeat("many words ", 200_000)})
	sid := e.newSession()
	first := e.srv.streams.get(sid)

	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	body := fmt.Sprintf(`{"session_id":%q,"message":"read everything"}`, sid)
	fmt.Fprintf(conn, "POST /api/chat/stream HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		strings.TrimPrefix(e.url, "http://"), testToken, len(body), body)
	// The client reads nothing from here on.

	waitFor(t, "the stream to start", func() bool { return e.srv.streams.get(sid) != first })
	cs := e.srv.streams.get(sid)
	waitFor(t, "the run to finish", func() bool {
		code, out, _ := e.do("GET", "/api/chat/stream/status?session_id="+sid, "")
		return code == 200 && strings.Contains(out, `"done"`)
	})
	waitFor(t, "the client that does not read to be let go", func() bool { return cs.log.Subscribers() == 0 })

	// The server closed the connection: reading drains what was sent and
	// ends, instead of waiting for more.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection is still open after %d bytes", n)
	}
	if n > 2_000_000 {
		t.Errorf("the client got the whole turn (%d bytes): it was never slow, the test proves nothing", n)
	}
	t.Logf("the client got %d bytes, then %v", n, err)
}
