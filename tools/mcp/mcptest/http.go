package mcptest

import (
	"context"
	"crypto/rand"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// connKey carries the request's TCP connection in its context (set through
// http.Server.ConnContext), so the crash tool can drop it.
type connKey struct{}

// StreamableHTTP starts an httptest server on loopback serving New over
// Streamable HTTP and returns the URL a client is configured with
// (http://127.0.0.1:port/mcp). Closed by t.Cleanup.
func StreamableHTTP(t testing.TB, o Options) string {
	t.Helper()
	h := newHTTPHost(t)
	srv := server.NewStreamableHTTPServer(build(o, h.stop), server.WithStreamableHTTPLogger(h.logger()))
	h.onClose(func() { srv.CloseSessions(context.Background()) })
	mux := http.NewServeMux()
	mux.Handle("/mcp", crashByClosingConn(srv))
	h.start(delayed(mux, o.StartDelay))
	return h.url + "/mcp"
}

// SSE starts an httptest server on loopback serving New over the older
// HTTP+SSE transport and returns the URL a client is configured with: the
// event stream's, http://127.0.0.1:port/sse (the server names the
// /message?sessionId=... endpoint in its first event). Closed by t.Cleanup.
func SSE(t testing.TB, o Options) string {
	t.Helper()
	h := newHTTPHost(t)
	var streams sync.Map // session ID -> net.Conn of its event stream
	srv := server.NewSSEServer(build(o, h.stop),
		server.WithSessionIDGenerator(func(ctx context.Context, _ *http.Request) (string, error) {
			id := rand.Text()
			if c, ok := ctx.Value(connKey{}).(net.Conn); ok {
				streams.Store(id, c)
			}
			return id, nil
		}),
		// Responses travel on the event stream, not on the POST that
		// carried the request (it was answered 202 at once), so a crash
		// drops the stream of the caller's session.
		server.WithSSEContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if c, ok := streams.Load(r.URL.Query().Get("sessionId")); ok {
				ctx = withCrash(ctx, func() { _ = c.(net.Conn).Close() })
			}
			return ctx
		}),
	)
	h.onClose(srv.CloseSessions)
	h.start(delayed(srv, o.StartDelay))
	return h.url + "/sse"
}

// crashByClosingConn lets the crash tool close the connection its request
// came on. Closing the net.Conn does what a hijack-and-close would (the
// client reads EOF where the response should be), without taking the
// connection from net/http while mcp-go may still write to it.
func crashByClosingConn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
			r = r.WithContext(withCrash(r.Context(), func() { _ = c.Close() }))
		}
		next.ServeHTTP(w, r)
	})
}

// delayed holds every request until the server has been up for d: a server
// that is listening but slow to start answering.
func delayed(next http.Handler, d time.Duration) http.Handler {
	if d <= 0 {
		return next
	}
	ready := time.Now().Add(d)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wait := time.Until(ready); wait > 0 {
			timer := time.NewTimer(wait)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-r.Context().Done():
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// httpHost is one httptest server on 127.0.0.1 and what tearing it down
// takes: releasing handlers that wait on their own (hang, crash), closing
// mcp-go's long-lived sessions, then the connections, so that
// httptest.Server.Close, which waits for every handler, returns at once.
type httpHost struct {
	t      testing.TB
	stop   chan struct{}
	srv    *httptest.Server
	url    string
	closes []func()
	logw   *testLogWriter
}

func newHTTPHost(t testing.TB) *httpHost {
	t.Helper()
	// Listen explicitly on 127.0.0.1: httptest would fall back to [::1],
	// and these servers are to be on IPv4 loopback only.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("mcptest: listen: %v", err)
	}
	h := &httpHost{t: t, stop: make(chan struct{}), logw: &testLogWriter{t: t}}
	h.srv = &httptest.Server{Listener: l, Config: &http.Server{
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		ErrorLog: log.New(h.logw, "", 0),
	}}
	h.url = "http://" + l.Addr().String()
	return h
}

func (h *httpHost) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(h.logw, nil))
}

func (h *httpHost) onClose(f func()) { h.closes = append(h.closes, f) }

func (h *httpHost) start(handler http.Handler) {
	h.srv.Config.Handler = handler
	h.srv.Start()
	h.t.Cleanup(func() {
		close(h.stop)
		for _, f := range h.closes {
			f()
		}
		h.srv.CloseClientConnections()
		h.srv.Close()
		h.logw.close()
	})
}

// testLogWriter sends server logs to t.Log while the test runs and drops
// them after: mcp-go's goroutines may log after the test is over, and t.Log
// then panics.
type testLogWriter struct {
	t    testing.TB
	mu   sync.Mutex
	done bool
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Logf("server: %s", p)
	}
	return len(p), nil
}

func (w *testLogWriter) close() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}
