package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/nova-dev/nova/live"
	novasession "github.com/nova-dev/nova/session"
)

// acpAgent answers the client's requests (acpsdk.Agent, AgentLoader).
type acpAgent struct {
	o    Options
	ctx  context.Context // Serve's: sessions live as long as the connection
	conn *acpsdk.AgentSideConnection

	mu       sync.Mutex
	caps     acpsdk.ClientCapabilities
	sessions map[string]*session
}

var (
	_ acpsdk.Agent       = (*acpAgent)(nil)
	_ acpsdk.AgentLoader = (*acpAgent)(nil)
)

// Initialize implements acpsdk.Agent: nova loads sessions, takes text,
// images, links and embedded context, and every MCP transport.
func (a *acpAgent) Initialize(_ context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	version := acpsdk.ProtocolVersion(acpsdk.ProtocolVersionNumber)
	if p.ProtocolVersion < version {
		version = p.ProtocolVersion
	}
	return acpsdk.InitializeResponse{
		ProtocolVersion: version,
		AgentCapabilities: acpsdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acpsdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    acpsdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: acpsdk.SessionCapabilities{
				List: &acpsdk.SessionListCapabilities{}, Close: &acpsdk.SessionCloseCapabilities{}, Resume: &acpsdk.SessionResumeCapabilities{},
			},
		},
		AgentInfo:   &acpsdk.Implementation{Name: "nova", Version: a.o.Version},
		AuthMethods: []acpsdk.AuthMethod{},
	}, nil
}

// Authenticate implements acpsdk.Agent: nova offers no ACP sign-in (its
// providers' keys come from its configuration).
func (a *acpAgent) Authenticate(context.Context, acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, acpsdk.NewInvalidRequest(map[string]any{"error": "nova offers no authentication methods: configure a provider in ~/.nova/config.json (docs/configuration.md)"})
}

// NewSession implements acpsdk.Agent.
func (a *acpAgent) NewSession(ctx context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	s, err := a.open(ctx, p.Cwd, "", p.McpServers)
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	go s.announceCommands(a.ctx)
	return acpsdk.NewSessionResponse{SessionId: acpsdk.SessionId(s.id), Modes: modeState(s.rt, a.o.BypassOK)}, nil
}

// LoadSession implements acpsdk.AgentLoader: the session's history is
// replayed as session/update notifications before the answer.
func (a *acpAgent) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	if p.SessionId == "" {
		return acpsdk.LoadSessionResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	s, err := a.open(ctx, p.Cwd, string(p.SessionId), p.McpServers)
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	if err := s.replay(ctx); err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	go s.announceCommands(a.ctx)
	return acpsdk.LoadSessionResponse{Modes: modeState(s.rt, a.o.BypassOK)}, nil
}

// ResumeSession implements acpsdk.Agent: LoadSession without the replay.
func (a *acpAgent) ResumeSession(ctx context.Context, p acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	if p.SessionId == "" {
		return acpsdk.ResumeSessionResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": "sessionId is required"})
	}
	s, err := a.open(ctx, p.Cwd, string(p.SessionId), p.McpServers)
	if err != nil {
		return acpsdk.ResumeSessionResponse{}, err
	}
	go s.announceCommands(a.ctx)
	return acpsdk.ResumeSessionResponse{Modes: modeState(s.rt, a.o.BypassOK)}, nil
}

// ListSessions implements acpsdk.Agent: the saved sessions (newest
// first), of one directory when the client names it, in one page.
func (a *acpAgent) ListSessions(_ context.Context, p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	var f novasession.Filter
	if p.Cwd != nil && *p.Cwd != "" {
		if !filepath.IsAbs(*p.Cwd) {
			return acpsdk.ListSessionsResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, not %q", *p.Cwd)})
		}
		f.Workspace = *p.Cwd
		if resolved, err := filepath.EvalSymlinks(f.Workspace); err == nil {
			f.Workspace = resolved
		}
	}
	metas, err := novasession.NewStore(a.o.NovaHome).List(f)
	if err != nil {
		return acpsdk.ListSessionsResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	out := acpsdk.ListSessionsResponse{Sessions: []acpsdk.SessionInfo{}}
	for _, m := range metas {
		if m.AgentKey != "" && m.AgentKey != "main" {
			// A teammate's or another agent's session is not the
			// person's conversation.
			continue
		}
		info := acpsdk.SessionInfo{SessionId: acpsdk.SessionId(m.ID), Cwd: m.WorkspaceDir, UpdatedAt: acpsdk.Ptr(m.UpdatedAt.UTC().Format(time.RFC3339))}
		if m.Title != "" {
			info.Title = acpsdk.Ptr(m.Title)
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// CloseSession implements acpsdk.Agent: the run stops and the session is
// let go (it can be loaded again).
func (a *acpAgent) CloseSession(_ context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	a.mu.Lock()
	s, ok := a.sessions[string(p.SessionId)]
	delete(a.sessions, string(p.SessionId))
	a.mu.Unlock()
	if !ok {
		return acpsdk.CloseSessionResponse{}, unknownSession(p.SessionId)
	}
	s.close()
	return acpsdk.CloseSessionResponse{}, nil
}

// SetSessionConfigOption implements acpsdk.Agent; nova has no config
// options beyond the modes.
func (a *acpAgent) SetSessionConfigOption(context.Context, acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionSetConfigOption)
}

// SetSessionMode implements acpsdk.Agent.
func (a *acpAgent) SetSessionMode(ctx context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	if err := setMode(s.ctl, string(p.ModeId)); err != nil {
		return acpsdk.SetSessionModeResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.noteMode(ctx)
	return acpsdk.SetSessionModeResponse{}, nil
}

// Prompt implements acpsdk.Agent: one run of the session, streamed.
func (a *acpAgent) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	return s.prompt(ctx, p.Prompt)
}

// Cancel implements acpsdk.Agent: the SDK has cancelled the prompt's
// context; the run is interrupted at once all the same, so its tools stop
// before the prompt answers "cancelled".
func (a *acpAgent) Cancel(_ context.Context, p acpsdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return err
	}
	s.rt.Live.Interrupt()
	return nil
}

// open builds a session's runtime and keeps it under its id.
func (a *acpAgent) open(ctx context.Context, cwd, resume string, servers []acpsdk.McpServer) (*session, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, not %q", cwd)})
	}
	configs, err := mcpConfigs(servers)
	if err != nil {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	a.mu.Lock()
	if _, open := a.sessions[resume]; open && resume != "" {
		a.mu.Unlock()
		return nil, acpsdk.NewInvalidRequest(map[string]any{"error": fmt.Sprintf("session %s is already open on this connection", resume)})
	}
	caps := a.caps
	a.mu.Unlock()
	// The runtime outlives this request: it lives as long as the
	// connection.
	rt, err := a.o.Open(context.WithoutCancel(ctx), OpenRequest{Cwd: cwd, Resume: resume, MCPConfigs: configs})
	if err != nil {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	// A runtime the controller replaced would be built as this one was,
	// for the same workspace and client's servers.
	reopen := func(ctx context.Context, o live.Options) (*live.Runtime, error) {
		return a.o.Open(ctx, OpenRequest{Cwd: cwd, Resume: o.Resume, MCPConfigs: configs})
	}
	ctl := live.ControllerFor(context.WithoutCancel(ctx), live.Options{NovaHome: rt.NovaHome, Workdir: rt.Workdir, AllowBypass: a.o.BypassOK}, reopen, rt)
	s := &session{id: rt.Session.ID(), rt: rt, ctl: ctl, conn: a.conn, mode: rt.Checker.Mode()}
	if caps.Fs.ReadTextFile {
		// Read sees the editor's unsaved buffers.
		rt.Env.Buffers = editor{conn: a.conn, session: acpsdk.SessionId(s.id)}
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return s, nil
}

func (a *acpAgent) session(id acpsdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, unknownSession(id)
	}
	return s, nil
}

func unknownSession(id acpsdk.SessionId) error {
	return acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q on this connection: create one with session/new or open it with session/load", id)})
}

// closeAll ends every session (the connection is gone).
func (a *acpAgent) closeAll() {
	a.mu.Lock()
	all := a.sessions
	a.sessions = map[string]*session{}
	a.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// mcpConfigs turns the client's MCP servers into inline --mcp-config
// JSON, the one way MCP servers join a session.
func mcpConfigs(servers []acpsdk.McpServer) ([]string, error) {
	if len(servers) == 0 {
		return nil, nil
	}
	type server struct {
		Type    string            `json:"type,omitempty"`
		Command string            `json:"command,omitempty"`
		Args    []string          `json:"args,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		URL     string            `json:"url,omitempty"`
		Headers map[string]string `json:"headers,omitempty"`
	}
	all := map[string]server{}
	headers := func(hs []acpsdk.HttpHeader) map[string]string {
		if len(hs) == 0 {
			return nil
		}
		m := map[string]string{}
		for _, h := range hs {
			m[h.Name] = h.Value
		}
		return m
	}
	for _, s := range servers {
		var name string
		var v server
		switch {
		case s.Stdio != nil:
			name, v = s.Stdio.Name, server{Command: s.Stdio.Command, Args: s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				v.Env = map[string]string{}
				for _, e := range s.Stdio.Env {
					v.Env[e.Name] = e.Value
				}
			}
		case s.Http != nil:
			name, v = s.Http.Name, server{Type: "http", URL: s.Http.Url, Headers: headers(s.Http.Headers)}
		case s.Sse != nil:
			name, v = s.Sse.Name, server{Type: "sse", URL: s.Sse.Url, Headers: headers(s.Sse.Headers)}
		default:
			return nil, errors.New("mcpServers: nova connects stdio, http and sse MCP servers")
		}
		if name == "" {
			return nil, errors.New("mcpServers: a server has no name")
		}
		all[name] = v
	}
	b, err := json.Marshal(map[string]any{"mcpServers": all})
	if err != nil {
		return nil, fmt.Errorf("mcpServers: %w", err)
	}
	return []string{string(b)}, nil
}
