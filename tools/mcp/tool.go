package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpapi "github.com/mark3labs/mcp-go/mcp"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
)

// Tool is one tool of an MCP server, as the model and the pipeline see it.
type Tool struct {
	conn   *conn
	name   string // mcp__server__tool
	remote string // the server's own name for it
	desc   string
	schema json.RawMessage
	// structured says the tool declares an outputSchema: the model gets
	// its structuredContent, as Claude Code sends it.
	structured bool
	readOnly   bool
	note       string
}

var tokens atomic.Int64

func newTool(c *conn, t mcpapi.Tool) (*Tool, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var parts struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, err
	}
	schema := parts.InputSchema
	if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	tool := &Tool{conn: c, name: ToolName(c.srv.Name, t.Name), remote: t.Name, desc: desc, schema: schema,
		structured: len(parts.OutputSchema) > 0 && string(parts.OutputSchema) != "null"}
	a := t.Annotations
	switch {
	case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
		tool.readOnly = true
		tool.note = "the server says this tool only reads"
	case a.DestructiveHint != nil && *a.DestructiveHint:
		tool.note = "the server says this tool may change or delete things"
	}
	return tool, nil
}

// sameAs reports whether o is the same tool as t, as the model sees it.
func (t *Tool) sameAs(o *Tool) bool {
	return t.remote == o.remote && t.desc == o.desc && bytes.Equal(t.schema, o.schema) && t.structured == o.structured && t.note == o.note
}

// Name is mcp__<server>__<tool>.
func (t *Tool) Name() string { return t.name }

// Description is the server's description of the tool.
func (t *Tool) Description() string { return t.desc }

// Schema is the server's input schema.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// Kind is read for a tool the server marks read-only, so an allowed call
// may run beside others; the permission check asks about every MCP tool
// without an allow rule whatever its kind.
func (t *Tool) Kind() permission.Kind {
	if t.readOnly {
		return permission.KindRead
	}
	return permission.KindOther
}

// Permission describes the call: the tool by name, with what the server
// says of it shown in the ask (never deciding).
func (t *Tool) Permission(_ json.RawMessage, env *tools.Env) permission.Request {
	return permission.Request{Tool: t.name, Kind: t.Kind(), Workdir: env.Workdir, Note: t.note}
}

// Run calls the tool on its server. A server that is down is started
// again (after its backoff); a call that outlives the timeout or the turn
// is cancelled on the server.
func (t *Tool) Run(ctx context.Context, input json.RawMessage, env *tools.Env) (tools.Result, error) {
	c := t.conn
	cl, err := c.use(ctx)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	var args map[string]any
	if len(bytes.TrimSpace(input)) > 0 {
		if err := json.Unmarshal(input, &args); err != nil {
			return tools.Errorf("input is not a JSON object: %v", err), nil
		}
	}
	timeout := c.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	req := mcpapi.CallToolRequest{}
	req.Params.Name = t.remote
	req.Params.Arguments = args
	if call, ok := tools.CallOf(ctx); ok && env.Notify != nil {
		token := "nova-" + strconv.FormatInt(tokens.Add(1), 10)
		req.Params.Meta = &mcpapi.Meta{ProgressToken: token}
		c.progress.Store(token, func(p mcpapi.ProgressNotificationParams) {
			env.Notify(ctx, display.OfProgress(display.Progress{CallID: call.ID, Progress: p.Progress, Total: p.Total, Message: p.Message}))
		})
		defer c.progress.Delete(token)
	}
	res, err := cl.CallTool(cctx, req)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return tools.Errorf("interrupted: the call to %s was cancelled", t.name), nil
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		c.checkAlive(cl)
		return tools.Errorf("%s did not answer within %s and was cancelled (set MCP_TOOL_TIMEOUT, in milliseconds, or the server's \"timeout\" to wait longer)", t.name, timeout), nil
	case c.wantsLogin(err):
		// Before the connection check: mcp-go wraps a refused token as a
		// transport error, but the server is fine; it wants a login.
		return tools.Errorf("%v", c.loginLost(cl, err)), nil
	case errors.Is(err, transport.ErrTransportClosed) || isConnectionError(err):
		c.lost(cl, fmt.Errorf("the connection broke during a call to %s: %v", t.remote, err))
		return tools.Errorf("%v; nova starts it again at the next call", c.diedErr("stopped during the call")), nil
	default:
		return tools.Errorf("MCP server %s refused the call: %v", c.srv.Name, err), nil
	}
	return convert(c.srv.Name, res, t.structured), nil
}

// checkAlive pings a server whose call timed out: a server that does not
// answer a ping either is marked failed and started again next time.
func (c *conn) checkAlive(cl interface {
	Ping(context.Context) error
}) {
	ctx, cancel := context.WithTimeout(c.m.ctx, 5*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		c.mu.Lock()
		cur := c.client
		c.mu.Unlock()
		if cur != nil && any(cur) == any(cl) {
			c.lost(cur, fmt.Errorf("it stopped answering (a call timed out and a ping got no answer: %v)", err))
		}
	}
}

// isConnectionError reports whether err means the server is gone rather
// than that it refused the call.
func isConnectionError(err error) bool {
	var te *transport.Error
	if errors.As(err, &te) {
		return true
	}
	return false
}
