package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpapi "github.com/mark3labs/mcp-go/mcp"
)

// TransportSDK is an in-process server of the Claude Agent SDK's host
// (createSdkMcpServer): its JSON-RPC travels in the SDK's control
// messages, carried by Server.SDK.
const TransportSDK = "sdk"

// SDKLink carries one in-process SDK server's JSON-RPC messages (headless
// implements it over the SDK's mcp_message control requests).
type SDKLink interface {
	// Exchange sends one JSON-RPC message and returns the host's reply:
	// the server's response to a request; for a notification or a
	// response, an acknowledgement nova does not read.
	Exchange(ctx context.Context, msg json.RawMessage) (json.RawMessage, error)
	// Listen sets where the server's own messages go (its notifications
	// and requests); nil lets go of them.
	Listen(func(msg json.RawMessage))
}

// sdkTransport is mcp-go's client transport over an SDKLink: a request is
// one exchange, the server's messages come back through Listen.
type sdkTransport struct {
	link SDKLink

	mu        sync.Mutex
	notify    func(mcpapi.JSONRPCNotification)
	onRequest transport.RequestHandler
	ctx       context.Context // ends at Close: the server's requests stop
	cancel    context.CancelFunc
}

var _ transport.BidirectionalInterface = (*sdkTransport)(nil)

func newSDKTransport(link SDKLink) *sdkTransport {
	ctx, cancel := context.WithCancel(context.Background())
	return &sdkTransport{link: link, ctx: ctx, cancel: cancel}
}

// dialSDK makes a client for an in-process SDK server.
func dialSDK(ctx context.Context, s Server) (*client.Client, error) {
	if s.SDK == nil {
		return nil, errors.New("no SDK session carries this in-process server")
	}
	c := client.NewClient(newSDKTransport(s.SDK))
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Start begins listening for the server's own messages.
func (t *sdkTransport) Start(context.Context) error {
	t.link.Listen(t.received)
	return nil
}

// SendRequest exchanges request for the server's response.
func (t *sdkTransport) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if t.ctx.Err() != nil {
		return nil, transport.ErrTransportClosed
	}
	msg, err := json.Marshal(request)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	reply, err := t.link.Exchange(ctx, msg)
	if err != nil {
		return nil, err
	}
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(reply, &resp); err != nil {
		return nil, fmt.Errorf("the SDK's reply to %s is not a JSON-RPC response: %w", request.Method, err)
	}
	if resp.Result == nil && resp.Error == nil {
		return nil, fmt.Errorf("the SDK's reply to %s has neither a result nor an error", request.Method)
	}
	return &resp, nil
}

// SendNotification sends notification; the host's acknowledgement is
// not a reply from the server.
func (t *sdkTransport) SendNotification(ctx context.Context, notification mcpapi.JSONRPCNotification) error {
	msg, err := json.Marshal(notification)
	if err != nil {
		return fmt.Errorf("encode the notification: %w", err)
	}
	_, err = t.link.Exchange(ctx, msg)
	return err
}

// SetNotificationHandler sets where the server's notifications go.
func (t *sdkTransport) SetNotificationHandler(handler func(mcpapi.JSONRPCNotification)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notify = handler
}

// SetRequestHandler sets what answers the server's requests (ping, roots,
// sampling: the client refuses what nova does not offer).
func (t *sdkTransport) SetRequestHandler(handler transport.RequestHandler) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onRequest = handler
}

// Close lets go of the server: its later messages are dropped.
func (t *sdkTransport) Close() error {
	t.cancel()
	t.link.Listen(nil)
	return nil
}

// GetSessionId is "": the SDK's control channel has no MCP session.
func (t *sdkTransport) GetSessionId() string { return "" }

// received handles one message the server sent unasked.
func (t *sdkTransport) received(msg json.RawMessage) {
	var m struct {
		ID     *mcpapi.RequestId `json:"id"`
		Method string            `json:"method"`
		Params json.RawMessage   `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == "" {
		return // a stray response: nothing waits for it
	}
	t.mu.Lock()
	notify, onRequest := t.notify, t.onRequest
	t.mu.Unlock()
	if m.ID == nil {
		var n mcpapi.JSONRPCNotification
		if json.Unmarshal(msg, &n) == nil && notify != nil {
			notify(n)
		}
		return
	}
	if onRequest == nil || t.ctx.Err() != nil {
		return
	}
	// Answered apart: the server's request may wait on the person (an
	// elicitation), and the control channel must not.
	go func() {
		req := transport.JSONRPCRequest{JSONRPC: mcpapi.JSONRPC_VERSION, ID: *m.ID, Method: m.Method}
		if len(m.Params) > 0 {
			req.Params = m.Params
		}
		resp, err := onRequest(t.ctx, req)
		if err != nil {
			resp = transport.NewJSONRPCErrorResponse(*m.ID, mcpapi.METHOD_NOT_FOUND, err.Error(), nil)
		}
		if out, err := json.Marshal(resp); err == nil {
			_, _ = t.link.Exchange(t.ctx, out)
		}
	}()
}
