package live

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nova-dev/nova/tools/mcp"
)

// The session's MCP operations beyond status and reconnect (ops.go):
// approving a project's servers, their prompts and resources, and the
// OAuth login of /mcp login.

// PendingMCP is a project MCP server (a trusted workspace's .mcp.json)
// the session does not start until a person approves it.
type PendingMCP struct {
	Name string
	// Target is its command line (stdio) or URL (http, sse).
	Target string
	// Source is the file that adds it (an absolute path).
	Source string
	// Transport is stdio, http or sse.
	Transport string
}

// MCPPending are the project MCP servers waiting for the person's
// approval, as the terminal UI asks at start.
func (c *Controller) MCPPending() []PendingMCP {
	rt := c.Runtime()
	out := make([]PendingMCP, 0, len(rt.MCPPending))
	for _, p := range rt.MCPPending {
		srv := MCPServer(p, rt.Workdir)
		out = append(out, PendingMCP{Name: p.Name, Target: srv.Target(), Source: p.Source, Transport: string(srv.Transport)})
	}
	return out
}

// ApproveMCP answers for the pending project server name: the answer is
// remembered for the workspace (.nova/settings.local.json); approved,
// the server starts in the session; declined, it is listed as disabled.
// A server not waiting (unknown, answered already) is ErrNoPendingMCP.
func (c *Controller) ApproveMCP(name string, approved bool) error {
	rt := c.Runtime()
	p, ok := pendingMCP(rt, name)
	if !ok {
		return fmt.Errorf("%q: %w", name, ErrNoPendingMCP)
	}
	return rt.ApproveMCP(p, approved)
}

// errNoMCP is an MCP operation in a session without MCP servers.
var errNoMCP = errors.New("no MCP servers in this session")

// MCPPrompts are the prompts the connected servers offer, each a slash
// command /mcp__<server>__<prompt>.
func (c *Controller) MCPPrompts(ctx context.Context) []mcp.Prompt {
	rt := c.Runtime()
	if rt.MCP == nil {
		return nil
	}
	return rt.MCP.Prompts(ctx)
}

// MCPPrompt renders prompt p with args into the text of a message.
func (c *Controller) MCPPrompt(ctx context.Context, p mcp.Prompt, args []string) (string, error) {
	rt := c.Runtime()
	if rt.MCP == nil {
		return "", fmt.Errorf("prompt %s of %q: %w", p.Name, p.Server, errNoMCP)
	}
	return rt.MCP.GetPrompt(ctx, p, args)
}

// MCPResources are the resources the connected servers offer, which a
// person mentions as @<server>:<uri>.
func (c *Controller) MCPResources(ctx context.Context) []mcp.Resource {
	rt := c.Runtime()
	if rt.MCP == nil {
		return nil
	}
	return rt.MCP.Resources(ctx)
}

// ReadMCPResource reads resource uri of server.
func (c *Controller) ReadMCPResource(ctx context.Context, server, uri string) (string, error) {
	rt := c.Runtime()
	if rt.MCP == nil {
		return "", fmt.Errorf("resource %s of %q: %w", uri, server, errNoMCP)
	}
	return rt.MCP.ReadResource(ctx, server, uri)
}

// mcpLoginTimeout bounds /mcp login: the person has that long to finish
// in the browser.
const mcpLoginTimeout = 5 * time.Minute

// LoginMCP runs the OAuth login of server name in the session's own
// manager, so it connects in this session at once; open is handed the
// authorization URL (to show it, and open a browser). It says how the
// server stands after.
func (c *Controller) LoginMCP(ctx context.Context, name string, open func(url string) error) (mcp.Status, error) {
	rt := c.Runtime()
	if rt.MCP == nil {
		return mcp.Status{}, errNoMCP
	}
	ctx, cancel := context.WithTimeout(ctx, mcpLoginTimeout)
	defer cancel()
	if err := rt.MCP.Login(ctx, name, open); err != nil {
		return mcp.Status{}, fmt.Errorf("login to %s: %w", name, err)
	}
	for _, st := range rt.MCP.Statuses() {
		if st.Name == name {
			return st, nil
		}
	}
	return mcp.Status{Name: name}, nil
}
