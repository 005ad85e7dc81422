package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	mcpapi "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// hostLink is an SDK host in the test: it runs an mcp-go server in
// process, as the Agent SDK runs a createSdkMcpServer, and hands the
// server's notifications to the listener, as the SDK's own mcp_message
// requests would.
type hostLink struct {
	srv     *server.MCPServer
	session *hostSession
	ctx     context.Context

	mu       sync.Mutex
	listen   func(json.RawMessage)
	exchange []string // the methods (or "response") of what nova sent
	answered chan json.RawMessage
}

func newHostLink(t *testing.T) *hostLink {
	t.Helper()
	h := &hostLink{srv: mcptest.New(mcptest.Options{}), session: &hostSession{notes: make(chan mcpapi.JSONRPCNotification, 16)}, answered: make(chan json.RawMessage, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := h.srv.RegisterSession(ctx, h.session); err != nil {
		t.Fatal(err)
	}
	h.ctx = h.srv.WithContext(ctx, h.session)
	go func() {
		for {
			select {
			case n := <-h.session.notes:
				b, _ := json.Marshal(n)
				h.send(b)
			case <-ctx.Done():
				return
			}
		}
	}()
	return h
}

// send delivers a message of the server's to nova's listener.
func (h *hostLink) send(msg json.RawMessage) {
	h.mu.Lock()
	f := h.listen
	h.mu.Unlock()
	if f != nil {
		f(msg)
	}
}

func (h *hostLink) Exchange(ctx context.Context, msg json.RawMessage) (json.RawMessage, error) {
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(msg, &m)
	h.mu.Lock()
	h.exchange = append(h.exchange, m.Method)
	h.mu.Unlock()
	if m.Method == "" {
		// nova's answer to a request of the server's.
		h.answered <- msg
		return json.RawMessage(`{"jsonrpc":"2.0","result":{},"id":0}`), nil
	}
	reply := h.srv.HandleMessage(h.ctx, msg)
	if reply == nil {
		// A notification: the SDK acknowledges it with an empty result.
		return json.RawMessage(`{"jsonrpc":"2.0","result":{},"id":0}`), nil
	}
	return json.Marshal(reply)
}

func (h *hostLink) Listen(f func(json.RawMessage)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.listen = f
}

// hostSession is the server's session with its one client, nova.
type hostSession struct {
	notes chan mcpapi.JSONRPCNotification
}

func (s *hostSession) Initialize()                                            {}
func (s *hostSession) Initialized() bool                                      { return true }
func (s *hostSession) NotificationChannel() chan<- mcpapi.JSONRPCNotification { return s.notes }
func (s *hostSession) SessionID() string                                      { return "sdk" }

// TestSDKTransport: an in-process SDK server is an MCP server like the
// others: its tools are registered, calls return its results, progress
// and list_changed come back through Listen, and a request of the
// server's is answered.
func TestSDKTransport(t *testing.T) {
	h := newHostLink(t)
	w := newWorld(t, Options{}, Server{Name: "calc", Transport: TransportSDK, SDK: h})
	w.wait(t)
	if st := w.m.Statuses()[0]; st.State != StateConnected || st.Target != "in-process server of the Agent SDK" {
		t.Fatalf("status: %+v", st)
	}
	if o := w.call(t, "mcp__calc__echo", map[string]any{"text": "through the SDK"}); o.Result.Output != "through the SDK" || o.Result.IsError {
		t.Errorf("echo: %+v", o.Result)
	}
	if o := w.call(t, "mcp__calc__fail", map[string]any{}); !o.Result.IsError || !strings.Contains(o.Result.Output, mcptest.FailText) {
		t.Errorf("fail: isError lost: %+v", o.Result)
	}
	o := w.call(t, "mcp__calc__progress", map[string]any{"steps": 2})
	w.mu.Lock()
	n := len(w.progress)
	w.mu.Unlock()
	if o.Result.IsError || n != 2 {
		t.Errorf("progress: %d reports, result %+v", n, o.Result)
	}
	w.call(t, "mcp__calc__add_tool", map[string]any{})
	w.waitRegistered(t, ToolName("calc", mcptest.AddedTool))

	// The server pings nova: the client's answer goes back as a response.
	h.send(json.RawMessage(`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`))
	select {
	case msg := <-h.answered:
		var resp struct {
			ID     string          `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(msg, &resp); err != nil || resp.ID != "srv-1" || resp.Result == nil {
			t.Errorf("the answer to the server's ping: %s", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nova never answered the server's ping")
	}
	h.mu.Lock()
	sent := strings.Join(h.exchange, " ")
	h.mu.Unlock()
	if !strings.HasPrefix(sent, "initialize notifications/initialized tools/list") {
		t.Errorf("nova sent %s, want the handshake first", sent)
	}
}

// TestSDKTransportClosed: once the manager closes, the link lets go.
func TestSDKTransportClosed(t *testing.T) {
	h := newHostLink(t)
	w := newWorld(t, Options{}, Server{Name: "calc", Transport: TransportSDK, SDK: h})
	w.wait(t)
	_ = w.m.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.listen != nil {
		t.Error("the transport still listens after Close")
	}
}
