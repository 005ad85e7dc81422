package acp

import (
	"context"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
)

// MCPOpenRequest is a session the MCP client's call asked for.
type MCPOpenRequest struct {
	// Cwd is the session's workspace; "" is nova mcp serve's own.
	Cwd string
	// Model ("provider:model"), PermissionMode and AllowedTools are the
	// call's; "" and nil keep the command line's.
	Model, PermissionMode string
	AllowedTools          []string
	// Resume is the session to open again (nova-reply of a session this
	// server does not hold); "" opens a new one.
	Resume string
}

// MCPOptions configure nova mcp serve.
type MCPOptions struct {
	// Open builds a session's runtime.
	Open func(ctx context.Context, req MCPOpenRequest) (*live.Runtime, error)
	// Version is nova's, told to the client.
	Version string
	// Log gets diagnostics (stderr); stdout is the protocol's alone.
	Log io.Writer
}

// The tools nova mcp serve offers.
const (
	mcpToolNova  = "nova"
	mcpToolReply = "nova-reply"
)

// ServeMCP is nova mcp serve: nova as an MCP server on in and out (stdio),
// whose nova tool runs a prompt in a new session and nova-reply continues
// one. Asks go to the client's elicitation; a client without it has them
// denied, with words that say so. It returns when the client closes in or
// ctx ends, closing every session it opened.
func ServeMCP(ctx context.Context, in io.Reader, out io.Writer, o MCPOptions) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	m := &mcpServer{o: o, sessions: map[string]*live.Runtime{}}
	defer m.closeAll()
	m.srv = server.NewMCPServer("nova", o.Version, server.WithToolCapabilities(false))
	m.srv.AddTool(mcp.NewTool(mcpToolNova,
		mcp.WithDescription("Run a prompt in a new nova session: nova works in the directory (reads, edits, runs commands under its permission checks) and answers. The result ends with the session id; continue the session with nova-reply."),
		mcp.WithString("prompt", mcp.Required(), mcp.Description("The task or question for nova")),
		mcp.WithString("cwd", mcp.Description("The directory nova works in (absolute); nova mcp serve's own when left out")),
		mcp.WithString("model", mcp.Description("The model, as provider:model; nova's configured default when left out")),
		mcp.WithString("permissionMode", mcp.Description("default (ask before edits and commands), acceptEdits (edit without asking), plan (read-only)"),
			mcp.Enum("default", "acceptEdits", "plan", "bypassPermissions")),
		mcp.WithArray("allowedTools", mcp.Description(`Permission rules allowed without asking, e.g. "Bash(go test:*)"`), mcp.WithStringItems()),
	), m.nova)
	m.srv.AddTool(mcp.NewTool(mcpToolReply,
		mcp.WithDescription("Continue a nova session with another prompt: nova carries on from the session's conversation."),
		mcp.WithString("sessionId", mcp.Required(), mcp.Description("The session id a nova call returned")),
		mcp.WithString("prompt", mcp.Required(), mcp.Description("The next prompt")),
	), m.reply)
	stdio := server.NewStdioServer(m.srv)
	stdio.SetErrorLogger(log.New(o.Log, "nova mcp serve: ", 0))
	if err := stdio.Listen(ctx, in, out); err != nil && ctx.Err() == nil && err != io.EOF {
		return fmt.Errorf("nova mcp serve: %w", err)
	}
	return nil
}

// mcpServer holds the sessions the client's calls opened.
type mcpServer struct {
	o   MCPOptions
	srv *server.MCPServer

	mu       sync.Mutex
	sessions map[string]*live.Runtime
}

// nova is the nova tool: a new session runs the prompt.
func (m *mcpServer) nova(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	prompt, err := req.RequireString("prompt")
	if err != nil || strings.TrimSpace(prompt) == "" {
		return mcp.NewToolResultError("nova: prompt is required"), nil
	}
	open := MCPOpenRequest{
		Cwd: req.GetString("cwd", ""), Model: req.GetString("model", ""),
		PermissionMode: req.GetString("permissionMode", ""), AllowedTools: req.GetStringSlice("allowedTools", nil),
	}
	if open.Cwd != "" && !filepath.IsAbs(open.Cwd) {
		return mcp.NewToolResultErrorf("nova: cwd must be an absolute path, not %q", open.Cwd), nil
	}
	rt, err := m.o.Open(context.WithoutCancel(ctx), open)
	if err != nil {
		return mcp.NewToolResultErrorf("nova: %v", err), nil
	}
	m.mu.Lock()
	m.sessions[rt.Session.ID()] = rt
	m.mu.Unlock()
	return m.run(ctx, rt, prompt), nil
}

// reply is the nova-reply tool: the session carries on.
func (m *mcpServer) reply(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id, err := req.RequireString("sessionId")
	if err != nil {
		return mcp.NewToolResultError("nova-reply: sessionId is required"), nil
	}
	prompt, err := req.RequireString("prompt")
	if err != nil || strings.TrimSpace(prompt) == "" {
		return mcp.NewToolResultError("nova-reply: prompt is required"), nil
	}
	m.mu.Lock()
	rt, ok := m.sessions[id]
	m.mu.Unlock()
	if !ok {
		// A session of an earlier server (or another nova) is opened
		// again from its transcript.
		if rt, err = m.o.Open(context.WithoutCancel(ctx), MCPOpenRequest{Resume: id}); err != nil {
			return mcp.NewToolResultErrorf("nova-reply: %v", err), nil
		}
		m.mu.Lock()
		if held, raced := m.sessions[rt.Session.ID()]; raced {
			_ = rt.Close()
			rt = held
		} else {
			m.sessions[rt.Session.ID()] = rt
		}
		m.mu.Unlock()
	}
	return m.run(ctx, rt, prompt), nil
}

// run runs prompt in rt's session, answering its asks through the
// client, and returns the final answer and the session id.
func (m *mcpServer) run(ctx context.Context, rt *live.Runtime, prompt string) *mcp.CallToolResult {
	var done *agent.Done
	var asks sync.WaitGroup
	for ev := range rt.Live.Run(ctx, llm.UserText(prompt)) {
		switch {
		case ev.Type == agent.EventPermissionAsk && ev.Ask != nil:
			asks.Add(1)
			go func(a *agent.PermissionAsk) {
				defer asks.Done()
				a.Answer(m.ask(ctx, a))
			}(ev.Ask)
		case ev.Type == agent.EventQuestion && ev.Question != nil:
			// Questions are not put to the client: the model is told
			// nobody answered.
			ev.Question.Answer(nil)
		case ev.Type == agent.EventDone && ev.ParentToolUseID == "":
			done = ev.Done
		}
	}
	asks.Wait()
	id := rt.Session.ID()
	structured := map[string]any{"sessionId": id}
	note := fmt.Sprintf("nova session %s: continue it with the nova-reply tool.", id)
	if done == nil || done.IsError {
		msg := "the run ended without a result"
		if done != nil {
			msg = done.Error
		}
		structured["error"] = msg
		return &mcp.CallToolResult{IsError: true, StructuredContent: structured,
			Content: []mcp.Content{mcp.NewTextContent("nova: " + msg), mcp.NewTextContent(note)}}
	}
	structured["result"] = done.Result
	return &mcp.CallToolResult{StructuredContent: structured,
		Content: []mcp.Content{mcp.NewTextContent(done.Result), mcp.NewTextContent(note)}}
}

// ask puts a permission ask to the client's person through elicitation;
// a client that cannot (no elicitation capability) has it denied.
func (m *mcpServer) ask(ctx context.Context, a *agent.PermissionAsk) agent.PermissionAnswer {
	call := llm.ToolCall{ID: a.ID, Name: a.Tool, Input: a.Input}
	if !canElicit(ctx) {
		return agent.PermissionAnswer{Message: fmt.Sprintf("nova mcp serve cannot ask anyone to approve %s: the MCP client offers no elicitation. Call nova with a permissionMode (acceptEdits) or allowedTools that cover this call.", toolTitle(call))}
	}
	choices := []string{"allow", "deny"}
	if len(a.Suggestions) > 0 {
		choices = []string{"allow", "always", "deny"}
	}
	res, err := m.srv.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
		Message: fmt.Sprintf("nova asks to run %s (%s). Allow it?", toolTitle(call), a.Decision.Reason),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{"type": "string", "enum": choices, "description": "allow once, always allow " + first(a.Suggestions) + ", or deny"},
			},
			"required": []string{"decision"},
		},
	}})
	if err != nil {
		return agent.PermissionAnswer{Message: fmt.Sprintf("nova mcp serve could not ask the MCP client's person to approve %s: %v", toolTitle(call), err)}
	}
	if res.Action != mcp.ElicitationResponseActionAccept {
		return agent.PermissionAnswer{Message: "The person declined this call."}
	}
	decision := ""
	if c, ok := res.Content.(map[string]any); ok {
		decision, _ = c["decision"].(string)
	}
	switch decision {
	case "allow":
		return agent.PermissionAnswer{Allow: true}
	case "always":
		return agent.PermissionAnswer{Allow: true, Always: len(a.Suggestions) > 0, Rule: first(a.Suggestions)}
	}
	return agent.PermissionAnswer{Message: "The person denied this call."}
}

// canElicit reports whether the client of the call in ctx said it takes
// elicitation requests.
func canElicit(ctx context.Context) bool {
	cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	return ok && cs.GetClientCapabilities().Elicitation != nil
}

// closeAll ends every session the calls opened.
func (m *mcpServer) closeAll() {
	m.mu.Lock()
	all := m.sessions
	m.sessions = map[string]*live.Runtime{}
	m.mu.Unlock()
	for _, rt := range all {
		_ = rt.Close()
	}
}
