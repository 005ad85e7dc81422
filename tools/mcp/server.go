// Package mcp plugs MCP tool servers into nova: each server's tools join
// the session's tools.Registry as mcp__<server>__<tool> and run through
// the one pipeline and permission checker like every built-in tool. The
// protocol is github.com/mark3labs/mcp-go's client over stdio, Streamable
// HTTP or the older HTTP+SSE.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpapi "github.com/mark3labs/mcp-go/mcp"

	"github.com/nova-dev/nova/tools"
)

// Transports.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// Default timeouts, as Claude Code has them; MCP_TIMEOUT and
// MCP_TOOL_TIMEOUT (milliseconds) change them.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 60 * time.Second
)

// Server is one MCP server to connect to, its configuration expanded.
type Server struct {
	// Name is the server's name in tool names (mcp__<Name>__<tool>).
	Name      string
	Transport string // TransportStdio, TransportHTTP or TransportSSE
	// Command, Args and Env start a stdio server in Dir (the workspace);
	// Env is set over nova's own environment as Options.EnvPolicy leaves it.
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// URL and Headers reach an HTTP or SSE server.
	URL     string
	Headers map[string]string
	// CallTimeout bounds one tool call; 0 means the manager's default.
	CallTimeout time.Duration
	// SDK carries an in-process server of the Agent SDK's host
	// (TransportSDK).
	SDK SDKLink
}

// Target is what the server runs or reaches, for a person to read.
func (s Server) Target() string {
	switch s.Transport {
	case TransportStdio, "":
		return strings.TrimSpace(s.Command + " " + strings.Join(s.Args, " "))
	case TransportSDK:
		return "in-process server of the Agent SDK"
	}
	return s.URL
}

// quietLogger keeps mcp-go's transports from writing to nova's stderr
// (the TUI's screen): what goes wrong reaches the person as a server's
// state, in words.
func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// dial makes a client for s and starts its transport. The transport lives
// as long as ctx: a stdio server is killed when ctx ends, and starts with
// nova's environment as policy leaves it and s.Env over it. What a stdio
// server writes to stderr is kept in tail, and its process in proc.
// oauth, when not nil, authorizes an HTTP or SSE server's requests
// (oauth.go).
func dial(ctx context.Context, s Server, policy tools.EnvPolicy, tail *tailBuffer, proc *stdioProc, oauth *transport.OAuthConfig) (*client.Client, error) {
	switch s.Transport {
	case TransportStdio, "":
		if s.Command == "" {
			return nil, errors.New("no command to start")
		}
		env := make([]string, 0, len(s.Env))
		for _, k := range sortedKeys(s.Env) {
			env = append(env, k+"="+s.Env[k])
		}
		start := func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			// The configured variables come last: the last of a name wins.
			cmd.Env = append(policy.Commands(os.Environ()), env...)
			cmd.Dir = s.Dir
			// Written by os/exec, which cmd.Wait (the transport's Close)
			// waits for: once a dead server is closed, tail holds the last
			// it wrote, which says why it died. mcp-go leaves a set Stderr
			// alone.
			cmd.Stderr = tail
			detach(cmd)
			proc.set(cmd)
			return cmd, nil
		}
		t := transport.NewStdioWithOptions(s.Command, env, s.Args,
			transport.WithCommandFunc(start), transport.WithCommandLogger(quietLogger()))
		c := client.NewClient(t)
		// Start starts the process and wires notifications (progress,
		// list_changed) to the client.
		if err := c.Start(ctx); err != nil {
			return nil, fmt.Errorf("start %s: %w", s.Command, err)
		}
		return c, nil
	case TransportHTTP:
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(s.Headers),
			transport.WithContinuousListening(), transport.WithHTTPLogger(quietLogger())}
		if oauth != nil {
			opts = append(opts, transport.WithHTTPOAuth(*oauth))
		}
		t, err := transport.NewStreamableHTTP(s.URL, opts...)
		if err != nil {
			return nil, err
		}
		c := client.NewClient(t)
		if err := c.Start(ctx); err != nil {
			return nil, err
		}
		return c, nil
	case TransportSDK:
		return dialSDK(ctx, s)
	case TransportSSE:
		opts := []transport.ClientOption{transport.WithHeaders(s.Headers), transport.WithSSELogger(quietLogger())}
		if oauth != nil {
			opts = append(opts, transport.WithOAuth(*oauth))
		}
		t, err := transport.NewSSE(s.URL, opts...)
		if err != nil {
			return nil, err
		}
		c := client.NewClient(t)
		if err := c.Start(ctx); err != nil {
			return nil, err
		}
		return c, nil
	}
	return nil, fmt.Errorf("unknown transport %q (want stdio, http or sse)", s.Transport)
}

// initialize performs the MCP handshake. nova speaks the initialize
// handshake (protocol 2025-11-25 and earlier), which every server in use
// today answers, and which keeps the standalone stream that carries
// tools/list_changed.
func initialize(ctx context.Context, c *client.Client, version string) (*mcpapi.InitializeResult, error) {
	req := mcpapi.InitializeRequest{}
	req.Params.ProtocolVersion = mcpapi.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcpapi.Implementation{Name: "nova", Version: version}
	return c.Initialize(ctx, req)
}

// stdioProc is the process of a stdio server, set when it is started.
type stdioProc struct {
	mu  sync.Mutex
	cmd *exec.Cmd
}

func (p *stdioProc) set(cmd *exec.Cmd) {
	p.mu.Lock()
	p.cmd = cmd
	p.mu.Unlock()
}

// exited reports whether the server's process is known to have exited
// (where that can be seen: procexit_*.go); false for a server that is
// not a process.
func (p *stdioProc) exited() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return false
	}
	return processExited(p.cmd.Process.Pid)
}

// tailBuffer keeps the end of what a stdio server writes to stderr,
// which usually says why it died.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4096

// Write implements io.Writer; it never blocks the server.
func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > tailMax {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-tailMax:]...)
	}
	return len(p), nil
}

// Lines returns the last few lines written.
func (b *tailBuffer) Lines() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(b.buf)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
