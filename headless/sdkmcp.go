package headless

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// MCPBridge carries the SDK's in-process MCP servers (createSdkMcpServer,
// named in initialize's sdkMcpServers): each server's JSON-RPC goes to
// the SDK as an mcp_message control request, its reply comes back in the
// SDK's control_response, and what the server sends unasked comes as the
// SDK's own mcp_message requests. It is made before the runtime, whose
// MCP manager holds the servers, and Serve carries its requests.
type MCPBridge struct {
	calls chan *mcpCall
	gone  chan struct{} // closed when Serve ends: nobody answers any more
	end   sync.Once

	servers []SDKServer

	mu        sync.Mutex
	listeners map[string]func(json.RawMessage)
}

// SDKServer is one of the SDK's in-process MCP servers.
type SDKServer struct {
	Name string
	// CallTimeout is the SDK's timeout for the server's tool calls
	// (sdkMcpServerConfigs.timeout); 0 when it set none.
	CallTimeout time.Duration
	// Link carries its messages (an mcp.SDKLink).
	Link *SDKLink
}

// SDKLink carries one in-process server's JSON-RPC through Serve.
type SDKLink struct {
	b    *MCPBridge
	name string
}

// mcpCall is one message for a server, waiting for the SDK's answer.
type mcpCall struct {
	server string
	msg    json.RawMessage
	reply  chan mcpReply
}

type mcpReply struct {
	msg json.RawMessage
	err error
}

// sdkServerConfig is one of initialize's sdkMcpServerConfigs entries.
// nova honours timeout; the rest is refused by name.
type sdkServerConfig map[string]json.RawMessage

// NewMCPBridge returns the bridge for req's in-process servers; a server
// setting nova cannot honour is refused, naming it.
func NewMCPBridge(req *InitializeRequest) (*MCPBridge, error) {
	b := &MCPBridge{calls: make(chan *mcpCall), gone: make(chan struct{}), listeners: map[string]func(json.RawMessage){}}
	for _, name := range req.SDKMCPServers {
		if strings.TrimSpace(name) == "" || slices.ContainsFunc(b.servers, func(s SDKServer) bool { return s.Name == name }) {
			return nil, fmt.Errorf("initialize: sdkMcpServers names %q twice or empty", name)
		}
		s := SDKServer{Name: name, Link: &SDKLink{b: b, name: name}}
		var cfg sdkServerConfig
		if raw := req.SDKMCPServerConfigs[name]; len(raw) > 0 {
			if err := json.Unmarshal(raw, &cfg); err != nil {
				return nil, fmt.Errorf("initialize: sdkMcpServerConfigs.%s is not an object: %v", name, err)
			}
		}
		for _, key := range slices.Sorted(maps.Keys(cfg)) {
			switch key {
			case "timeout":
				var ms float64
				if err := json.Unmarshal(cfg[key], &ms); err != nil {
					return nil, fmt.Errorf("initialize: sdkMcpServerConfigs.%s.timeout is not a number of milliseconds", name)
				}
				// As Claude Code: under a second falls through to the default.
				if ms >= 1000 {
					s.CallTimeout = time.Duration(ms) * time.Millisecond
				}
			default:
				return nil, fmt.Errorf("nova does not support the in-process MCP server setting %s.%s yet (only timeout); see docs/sdk.md", name, key)
			}
		}
		b.servers = append(b.servers, s)
	}
	return b, nil
}

// Servers are the SDK's in-process servers, in initialize's order.
func (b *MCPBridge) Servers() []SDKServer { return b.servers }

// Exchange sends msg to the server and returns the SDK's reply: the
// server's JSON-RPC response to a request, an acknowledgement for the rest.
func (l *SDKLink) Exchange(ctx context.Context, msg json.RawMessage) (json.RawMessage, error) {
	c := &mcpCall{server: l.name, msg: msg, reply: make(chan mcpReply, 1)}
	select {
	case l.b.calls <- c:
	case <-l.b.gone:
		return nil, errors.New("the SDK's session has ended: nobody runs the in-process MCP server")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-c.reply:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Listen sets where the server's own messages go; nil lets go of them.
func (l *SDKLink) Listen(f func(json.RawMessage)) {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	if f == nil {
		delete(l.b.listeners, l.name)
		return
	}
	l.b.listeners[l.name] = f
}

// deliver hands the SDK's message from server to its listener; false when
// nova has no such server.
func (b *MCPBridge) deliver(server string, msg json.RawMessage) bool {
	if !slices.ContainsFunc(b.servers, func(s SDKServer) bool { return s.Name == server }) {
		return false
	}
	b.mu.Lock()
	f := b.listeners[server]
	b.mu.Unlock()
	if f != nil {
		f(msg)
	}
	return true
}

func (b *MCPBridge) close() { b.end.Do(func() { close(b.gone) }) }

// mcpMessage sends the SDK an mcp_message request for c; the answer comes
// as a control_response (mcpAnswer).
func (s *server) mcpMessage(c *mcpCall) {
	id := newUUID()
	s.mcpCalls[id] = c
	s.w.json(controlRequest(id, mcpMessageRequest{Subtype: "mcp_message", ServerName: c.server, Message: c.msg}))
}

// mcpAnswer delivers the SDK's answer to mcp_message request id; it
// reports false when id is no such request.
func (s *server) mcpAnswer(id, subtype string, response json.RawMessage, msg string) bool {
	c, ok := s.mcpCalls[id]
	if !ok {
		return false
	}
	delete(s.mcpCalls, id)
	if subtype != "success" {
		c.reply <- mcpReply{err: fmt.Errorf("the SDK's in-process MCP server %s failed: %s", c.server, msg)}
		return true
	}
	var r mcpMessageResponse
	if err := json.Unmarshal(response, &r); err != nil || len(r.MCPResponse) == 0 || string(r.MCPResponse) == "null" {
		c.reply <- mcpReply{err: fmt.Errorf("the SDK's answer for in-process MCP server %s carries no mcp_response", c.server)}
		return true
	}
	c.reply <- mcpReply{msg: r.MCPResponse}
	return true
}

// mcpFromSDK takes a message an in-process server sent unasked (the SDK's
// own mcp_message request) and acknowledges it, as Claude Code does.
func (s *server) mcpFromSDK(m *inMessage) {
	var r mcpMessageRequest
	if err := json.Unmarshal(m.Request, &r); err != nil {
		s.w.json(controlError(m.RequestID, "the mcp_message request does not decode: "+err.Error()))
		return
	}
	if s.o.MCP == nil || !s.o.MCP.deliver(r.ServerName, r.Message) {
		s.w.json(controlError(m.RequestID, fmt.Sprintf("no in-process MCP server %q in this session (initialize's sdkMcpServers names them)", r.ServerName)))
		return
	}
	s.w.json(controlSuccess(m.RequestID, emptyResponse{}))
}

// failMCP answers every mcp_message still waiting with err.
func (s *server) failMCP(err error) {
	for id, c := range s.mcpCalls {
		delete(s.mcpCalls, id)
		c.reply <- mcpReply{err: err}
	}
}
