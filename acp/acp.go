// Package acp is nova as an Agent Client Protocol agent: an editor (Zed,
// a JetBrains IDE, Neovim's CodeCompanion or avante) starts `nova acp` and
// speaks JSON-RPC 2.0 with it over stdin and stdout. Each ACP session is
// one live session: prompts go through its one run slot, every tool call
// through the one pipeline and checker, asks become
// session/request_permission, and the run's events become session/update
// notifications. The protocol side is github.com/coder/acp-go-sdk.
//
// ServeMCP (mcpserve.go) is the same frontend for agents rather than
// editors: nova mcp serve, nova as an MCP server whose tools run prompts
// in sessions.
package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/nova-dev/nova/live"
)

// OpenRequest is a session an editor asked for.
type OpenRequest struct {
	// Cwd is the session's workspace, an absolute path.
	Cwd string
	// Resume is the id of the session to open again; "" opens a new one.
	Resume string
	// MCPConfigs are the client's MCP servers as inline --mcp-config JSON.
	MCPConfigs []string
	// Model is the model the client chose ("provider:model"); "" is the
	// command line's.
	Model string
}

// Opener builds the runtime of a session: the command line's options
// with the request's workspace, session and MCP servers.
type Opener func(ctx context.Context, req OpenRequest) (*live.Runtime, error)

// Options configure the agent.
type Options struct {
	// Open builds each session's runtime.
	Open Opener
	// Version is nova's, told to the client.
	Version string
	// NovaHome is where the sessions session/list lists are.
	NovaHome string
	// BypassOK says session/set_mode may switch to bypassPermissions (the
	// command line allowed it).
	BypassOK bool
	// Log gets diagnostics (stderr); stdout is the protocol's alone.
	Log io.Writer
	// Getenv reads the environment the sessions' providers come from: the
	// model list and a model switch see the providers a session does.
	Getenv func(string) string
}

// Serve speaks ACP on in and out until the client closes in or ctx ends;
// it closes every session it opened before it returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Open == nil || o.NovaHome == "" {
		return errors.New("acp: no way to open or list sessions")
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	ag := &acpAgent{o: o, ctx: ctx, sessions: map[string]*session{}}
	conn := acpsdk.NewAgentSideConnection(ag, w, pr)
	conn.SetLogger(slog.New(slog.NewTextHandler(o.Log, nil)))
	ag.conn = conn
	go filter(in, pw, w)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	_ = pr.Close()
	ag.closeAll()
	return nil
}

// lineWriter serializes whole messages onto the client's stdin: the SDK's
// and filter's replies never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// filter passes the client's well-formed messages to the SDK and answers
// the others itself, as JSON-RPC 2.0 says: a line that is not JSON gets a
// parse error, one that is no message an invalid-request error. The SDK
// would only log them, leaving the client waiting; the session goes on
// either way.
func filter(in io.Reader, sdk *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if rerr := check(t); rerr != nil {
				writeError(out, rerr)
			} else if _, werr := sdk.Write(append(t, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			_ = sdk.CloseWithError(io.EOF)
			return
		}
	}
}

// badMessage is the error reply to a message the SDK would drop.
type badMessage struct {
	id  json.RawMessage // null when the message named none
	err *acpsdk.RequestError
}

// check says what is wrong with one line from the client, or nil.
func check(line []byte) *badMessage {
	if !json.Valid(line) {
		return &badMessage{id: json.RawMessage("null"), err: acpsdk.NewParseError(map[string]any{"error": "the line is not JSON"})}
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return &badMessage{id: json.RawMessage("null"), err: acpsdk.NewInvalidRequest(map[string]any{"error": "a message is a JSON object"})}
	}
	id := m.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	switch {
	case m.Method != nil && *m.Method == "":
		return &badMessage{id: id, err: acpsdk.NewInvalidRequest(map[string]any{"error": "method is empty"})}
	case m.Method == nil && (len(m.ID) == 0 || (len(m.Result) == 0 && len(m.Error) == 0)):
		return &badMessage{id: id, err: acpsdk.NewInvalidRequest(map[string]any{"error": "a message has a method, or an id with a result or an error"})}
	}
	return nil
}

func writeError(out io.Writer, b *badMessage) {
	msg, err := json.Marshal(struct {
		JSONRPC string               `json:"jsonrpc"`
		ID      json.RawMessage      `json:"id"`
		Error   *acpsdk.RequestError `json:"error"`
	}{"2.0", b.id, b.err})
	if err != nil {
		// Only plain data is in it: this cannot happen.
		return
	}
	_, _ = out.Write(append(msg, '\n'))
}
