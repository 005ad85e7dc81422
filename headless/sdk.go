package headless

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// SDKOptions configures Serve: a session driven over Claude Code's
// stream-json protocol (nova --input-format stream-json --output-format
// stream-json), as the Claude Agent SDK drives claude.
type SDKOptions struct {
	Session *Session
	// Partial adds stream_event messages (--include-partial-messages).
	Partial bool
	// ReplayUserMessages writes each user message read back on stdout, as
	// Claude Code's --replay-user-messages does: the message as given,
	// with its uuid (one made when it had none) and isReplay true.
	ReplayUserMessages bool
	// PermissionPrompt sends the permission asks of tool calls to the SDK
	// as can_use_tool requests (--permission-prompt-tool=stdio). The
	// runtime must then be one that asks (interactive).
	PermissionPrompt bool
	// SetPermissionMode answers set_permission_mode: it switches the mode
	// and returns the one now in force.
	SetPermissionMode func(mode string) (string, error)
	// SetModel answers set_model: the session carries on with model (a
	// name or an alias; "" for the default), returning the model now in
	// force. It runs apart from Serve's loop, between turns, and may call
	// the SDK (hooks, in-process MCP servers); an unknown name is an error
	// listing the known ones.
	SetModel func(model string) (string, error)
	// CurrentSession, when set, describes the session after a set_model
	// (the model, its limits, the session id when a failed switch had to
	// start a new one); Serve takes it in place of Session.
	CurrentSession func() *Session
	// Hooks, when set, carries the SDK's hook callbacks (initialize's
	// hooks, made hooks of the session by HookBridge.Hooks).
	Hooks *HookBridge
	// MCP, when set, carries the SDK's in-process MCP servers.
	MCP *MCPBridge
	// WaitMCP, when set, runs while Serve carries the in-process
	// servers' handshakes: no turn starts before it returns (their tools
	// must be in the first request); what it returns is said as
	// Warnings are.
	WaitMCP func(ctx context.Context) []string
	// Rules, when set, takes the allow rules of the SDK's answers
	// (updatedPermissions' addRules).
	Rules Rules
	// Init is the initialize reply's content; its Commands, when nil,
	// are the Session's.
	Init InitReply
	// Warnings are said once, after the first turn's init message, as
	// informational messages (the caller says them on stderr too).
	Warnings []string
	// Debug, when set, gets every agent event in nova's own shape (-d).
	Debug io.Writer
	// Structured, when set, holds each turn's answer to its JSON schema
	// (--json-schema, initialize's jsonSchema), as print mode's does.
	Structured *StructuredOutput
	// HookEvents, when set, writes the hooks' runs (--include-hook-events),
	// from the first turn's init message on.
	HookEvents     *HookEvents
	Stdout, Stderr io.Writer
}

// InitReply is what nova answers an initialize request with.
type InitReply struct {
	Commands []Command `json:"commands"`
	Agents   []Agent   `json:"agents"`
	Models   []Model   `json:"models"`
	Account  Account   `json:"account"`
}

// Command is a slash command the session offers: a command file or a
// skill, run by a user message "/name args".
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argumentHint"`
	// Aliases are other names that run it (a namespaced command's
	// "frontend:component").
	Aliases []string `json:"aliases,omitempty"`
	// Skill says it is a skill (SKILL.md), listed in the init message's
	// skills too.
	Skill bool `json:"-"`
}

// Agent is a subagent type the session offers.
type Agent struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Model is a model the session could run on.
type Model struct {
	Value       string `json:"value"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
}

// Account says where the session's provider credentials come from.
type Account struct {
	// APIKeySource is where the key was found (ANTHROPIC_API_KEY,
	// config.json ...).
	APIKeySource string `json:"apiKeySource"`
	// APIProvider is the provider's type (anthropic, openai ...).
	APIProvider string `json:"apiProvider"`
	// Provider is the provider's key in nova's configuration.
	Provider string `json:"provider,omitempty"`
}

// RefuseInitialize answers req with an error (what nova cannot honour,
// or why it could not start), so the SDK reports it, not a bare exit.
func RefuseInitialize(w io.Writer, req *InitializeRequest, err error) {
	if req == nil {
		return
	}
	(&writer{w: w}).json(controlError(req.RequestID, err.Error()))
}

// turnInput is a user message waiting for its turn.
type turnInput struct {
	msg  llm.Message
	uuid string
	// replay is the message written back (--replay-user-messages) as its
	// turn starts, after the init message, as Claude Code orders them.
	replay *sdkUserMessageReplay
}

// server is one Serve: it reads the input, runs one turn at a time, and is
// the only writer of stdout.
type server struct {
	r   Runner
	o   SDKOptions
	w   *writer
	enc *encoder

	queue []turnInput
	// held are the parts of shouldQuery:false messages, sent with the
	// next message that starts a turn.
	held []llm.Part

	running   bool
	events    <-chan agent.Event
	cancelRun context.CancelFunc
	runStart  time.Time
	done      *agent.Done
	// asks are the can_use_tool requests sent and not answered, by
	// request id.
	asks map[string]*agent.PermissionAsk
	// initialized says the initialize request was answered.
	initialized bool
	// hookCalls are the hook_callback requests sent and not answered.
	hookCalls map[string]*hookCall
	// mcpCalls are the mcp_message requests sent and not answered.
	mcpCalls map[string]*mcpCall
	// mcpWait, while WaitMCP runs, gets what it returns.
	mcpWait chan []string
	// ctx is Serve's.
	ctx context.Context
	// modelSet, while a set_model is carried out, gets its end.
	modelSet chan modelSwitch
	// modelHeld are the set_model requests waiting for the running turn
	// or switch to end.
	modelHeld []*inMessage
}

// Serve runs a session over Claude Code's stream-json protocol until the
// input ends and the queued turns are done (exit 0) or ctx ends (exit 130,
// after the running turn has wound down). User messages queue up and run
// one turn each, in order; every control request is answered.
func Serve(ctx context.Context, r Runner, in *Input, o SDKOptions) int {
	w := &writer{w: o.Stdout}
	if o.Structured != nil {
		r = structuredRunner{r: r, s: o.Structured}
	}
	s := &server{ctx: ctx, r: r, o: o, w: w, enc: newEncoder(w, o.Session, o.Partial), asks: map[string]*agent.PermissionAsk{}, hookCalls: map[string]*hookCall{}, mcpCalls: map[string]*mcpCall{}}
	if o.Debug != nil {
		s.enc.debug = &writer{w: o.Debug}
	}
	s.enc.hooks = o.HookEvents
	defer o.HookEvents.end()
	if in.init != nil {
		s.initialize(in.init)
	}
	inbox := make(chan *inMessage)
	stop := make(chan struct{})
	defer close(stop)
	var hookCalls <-chan *hookCall
	if o.Hooks != nil {
		hookCalls = o.Hooks.calls
		defer close(o.Hooks.gone)
		defer s.failHooks(errors.New("the SDK's session ended before it answered the hook"))
	}
	var mcpCalls <-chan *mcpCall
	if o.MCP != nil {
		mcpCalls = o.MCP.calls
		defer o.MCP.close()
		defer s.failMCP(errors.New("the SDK's session ended before its in-process MCP server answered"))
	}
	if o.WaitMCP != nil {
		s.mcpWait = make(chan []string, 1)
		go func() { s.mcpWait <- o.WaitMCP(ctx) }()
	}
	go func() {
		defer close(inbox)
		for {
			m, err := in.next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				// The input broke: say so, and treat it as ended.
				m = &inMessage{err: fmt.Errorf("read stdin: %w", err)}
			}
			select {
			case inbox <- m:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	eof, interrupted := false, false
	for {
		if w.isBroken() && s.running && s.cancelRun != nil {
			// Nobody reads the output any more: stop the turn.
			s.cancelRun()
		}
		if !interrupted && !w.isBroken() {
			s.startHeldModel()
		}
		if !s.running && !interrupted && len(s.queue) > 0 && !w.isBroken() && s.mcpWait == nil && s.modelSet == nil {
			s.start(ctx)
		}
		// At the end of input, queued turns still wait for the in-process
		// servers' handshakes (which fail now, unanswered).
		if !s.running && s.modelSet == nil && (interrupted || w.isBroken() || (eof && (s.mcpWait == nil || len(s.queue) == 0))) {
			break
		}
		var ctxDone <-chan struct{}
		if !interrupted {
			ctxDone = ctx.Done()
		}
		select {
		case m, ok := <-inbox:
			if !ok {
				eof, inbox = true, nil
				// Nobody is left to answer what was asked.
				s.denyAsks("the SDK closed nova's input: nobody can answer the permission request")
				s.failHooks(errors.New("the SDK closed nova's input before it answered the hook"))
				s.failMCP(errors.New("the SDK closed nova's input before its in-process MCP server answered"))
				continue
			}
			s.handle(m)
		case c := <-hookCalls:
			if eof || w.isBroken() {
				c.reply <- hookReply{err: errors.New("the SDK closed nova's input: nobody can answer the hook")}
				continue
			}
			s.hookCallback(c)
		case c := <-mcpCalls:
			if eof || w.isBroken() {
				c.reply <- mcpReply{err: errors.New("the SDK closed nova's input: nobody runs the in-process MCP server")}
				continue
			}
			s.mcpMessage(c)
		case res := <-s.modelSet:
			s.modelSwitched(res)
		case warns := <-s.mcpWait:
			s.mcpWait = nil
			s.o.Warnings = append(s.o.Warnings, warns...)
		case ev, ok := <-s.events:
			if !ok {
				s.finish()
				continue
			}
			s.event(ev)
		case <-ctxDone:
			interrupted = true
			if s.cancelRun != nil {
				s.cancelRun()
			}
		}
	}
	switch {
	case w.failure() != nil:
		fmt.Fprintf(o.Stderr, "nova: %v\n", w.failure())
		return ExitFailed
	case interrupted:
		return ExitInterrupted
	}
	return ExitOK
}

// handle acts on one input message.
func (s *server) handle(m *inMessage) {
	if m.err != nil {
		fmt.Fprintf(s.o.Stderr, "nova: %v\n", m.err)
		s.enc.informational(nil, "warning", "nova skipped input: "+m.err.Error())
		return
	}
	switch m.Type {
	case "user":
		s.user(m)
	case "control_request":
		s.control(m)
	case "control_response":
		s.answer(m)
	case "control_cancel_request", "keep_alive", "update_environment_variables":
		// Nothing nova sent can be cancelled from the SDK's side, and
		// nova needs no keep-alive.
	default:
		fmt.Fprintf(s.o.Stderr, "nova: ignored an input message of type %q\n", m.Type)
	}
}

func (s *server) user(m *inMessage) {
	msg, skipped, err := userInput(m.Message)
	if len(skipped) > 0 {
		s.enc.informational(nil, "warning", fmt.Sprintf("nova left out content blocks it cannot send: %s", strings.Join(skipped, ", ")))
	}
	if err != nil {
		fmt.Fprintf(s.o.Stderr, "nova: %v\n", err)
		s.enc.informational(nil, "warning", err.Error())
		return
	}
	var replay *sdkUserMessageReplay
	if s.o.ReplayUserMessages {
		replay = &sdkUserMessageReplay{Type: "user", Message: m.Message, SessionID: s.o.Session.SessionID,
			UUID: cmp.Or(m.UUID, newUUID()), Timestamp: s.enc.stamp(), IsReplay: true}
	}
	if m.ShouldQuery != nil && !*m.ShouldQuery {
		if replay != nil {
			s.w.json(replay) // no turn starts for it
		}
		s.held = append(s.held, msg.Parts...)
		return
	}
	if len(s.held) > 0 {
		msg.Parts = append(s.held, msg.Parts...)
		s.held = nil
	}
	s.queue = append(s.queue, turnInput{msg: msg, uuid: m.UUID, replay: replay})
}

// control answers a control request of the SDK's.
func (s *server) control(m *inMessage) {
	sub := controlSubtype(m.Request)
	switch sub {
	case "initialize":
		req, _, err := parseInitialize(m)
		switch {
		case err != nil:
			s.w.json(controlError(m.RequestID, err.Error()))
		case s.initialized:
			s.w.json(controlError(m.RequestID, "the session is already initialized: nova takes one initialize request, the first message of its input"))
		default:
			// An initialize after another message: what it sets up the
			// session with came too late.
			if req.System() != "" || req.AppendSystemPrompt != "" || len(req.MCPServers) > 0 || len(req.SDKMCPServers) > 0 || len(req.Hooks) > 0 {
				s.w.json(controlError(m.RequestID, "initialize must be the first message of nova's input to set the system prompt, MCP servers or hooks"))
				return
			}
			if err := req.Unsupported(); err != nil {
				s.w.json(controlError(m.RequestID, err.Error()))
				return
			}
			s.initialize(req)
		}
	case "interrupt":
		queued := []string{}
		for _, q := range s.queue {
			if q.uuid != "" {
				queued = append(queued, q.uuid)
			}
		}
		if s.running && s.cancelRun != nil {
			s.cancelRun()
		}
		s.w.json(controlSuccess(m.RequestID, interruptResponse{StillQueued: queued}))
	case "set_permission_mode":
		var r setPermissionModeRequest
		_ = json.Unmarshal(m.Request, &r)
		if s.o.SetPermissionMode == nil {
			s.w.json(controlError(m.RequestID, "this session's permission mode cannot be changed"))
			return
		}
		mode, err := s.o.SetPermissionMode(r.Mode)
		if err != nil {
			s.w.json(controlError(m.RequestID, err.Error()))
			return
		}
		s.w.json(controlSuccess(m.RequestID, setPermissionModeResponse{Mode: mode}))
	case "set_model":
		s.setModel(s.ctx, m)
	case "mcp_message":
		s.mcpFromSDK(m)
	case "mcp_status":
		s.w.json(controlSuccess(m.RequestID, mcpStatusResponse{MCPServers: s.o.Session.mcpServers()}))
	default:
		s.w.json(controlError(m.RequestID, fmt.Sprintf("nova does not support the control request %q yet (docs/sdk.md lists what it supports)", sub)))
	}
}

func (s *server) initialize(req *InitializeRequest) {
	s.initialized = true
	ir := s.o.Init
	if ir.Commands == nil {
		ir.Commands = s.o.Session.commands()
	}
	if ir.Agents == nil {
		ir.Agents = []Agent{}
	}
	if ir.Models == nil {
		ir.Models = []Model{}
	}
	reply := initializeResponse{
		Commands: ir.Commands, Agents: ir.Agents, OutputStyle: "default", AvailableOutputStyles: []string{"default"},
		Models: ir.Models, Account: ir.Account, ClaudeCodeVersion: s.o.Session.Version,
		CurrentPermissionMode: s.o.Session.mode(),
		// They were read before the runtime was built.
		MCPServersApplied: len(req.MCPServers) > 0,
	}
	s.w.json(controlSuccess(req.RequestID, reply))
}

// start runs the next queued message.
func (s *server) start(ctx context.Context) {
	next := s.queue[0]
	s.queue = s.queue[1:]
	runCtx, cancel := context.WithCancel(ctx)
	s.running, s.cancelRun, s.runStart, s.done = true, cancel, time.Now(), nil
	s.state("running")
	s.enc.init()
	if next.replay != nil {
		s.enc.afterInit = append(s.enc.afterInit, next.replay)
	}
	s.o.HookEvents.begin(s.w, s.o.Session.SessionID)
	if len(s.o.Warnings) > 0 {
		s.enc.flushInit()
	}
	for _, warn := range s.o.Warnings {
		s.enc.informational(nil, "warning", warn)
	}
	s.o.Warnings = nil
	s.events = s.r.Run(runCtx, next.msg)
}

// event writes the run's event and sends the SDK what it must answer.
func (s *server) event(ev agent.Event) {
	s.enc.event(ev)
	switch ev.Type {
	case agent.EventPermissionAsk:
		if ev.Ask != nil {
			s.canUseTool(ev.Ask, ev.Agent)
		}
	case agent.EventQuestion:
		if ev.Question != nil {
			// The SDK's canUseTool answers AskUserQuestion in Claude Code;
			// nova's questions have no way to it yet.
			ev.Question.Answer(nil)
			s.enc.informational(nil, "notice", "nova cannot put questions to the SDK yet: the question was declined")
		}
	case agent.EventToolResult:
		if ev.Result != nil {
			for id, a := range s.asks {
				if a.ID == ev.Result.ID {
					s.cancelAsk(id)
				}
			}
		}
	case agent.EventDone:
		if ev.ParentToolUseID == "" {
			// A subagent's work is never the turn's result.
			s.done = ev.Done
		}
	}
}

// canUseTool sends an ask to the SDK; the answer comes as a
// control_response (answer). A subagent's ask names it by agent_id, as
// Claude Code's does (the SDK's canUseTool gets it as agentID).
func (s *server) canUseTool(a *agent.PermissionAsk, from *agent.AgentRef) {
	if !s.o.PermissionPrompt {
		a.Answer(agent.PermissionAnswer{Message: "nobody to approve it: start nova with --permission-prompt-tool=stdio (the SDK's canUseTool)"})
		return
	}
	id := newUUID()
	s.asks[id] = a
	s.state("requires_action")
	req := canUseToolRequest{Subtype: "can_use_tool", ToolName: a.Tool, Input: llm.SafeInput(a.Input), ToolUseID: a.ID,
		DecisionReason: a.Decision.Reason, DecisionReasonType: string(a.Decision.Layer),
		PermissionSuggestions: suggestions(a.Suggestions)}
	if len(a.Decision.Writes) > 0 {
		req.BlockedPath = a.Decision.Writes[0]
	}
	if from != nil {
		req.AgentID = from.ID
	}
	s.w.json(controlRequest(id, req))
}

// answer routes the SDK's answer to the ask it is for.
func (s *server) answer(m *inMessage) {
	var r controlAnswer
	if err := json.Unmarshal(m.Response, &r); err != nil {
		fmt.Fprintf(s.o.Stderr, "nova: a control response does not decode: %v\n", err)
		return
	}
	if s.hookAnswer(r.RequestID, r.Subtype, r.Response, r.Error) || s.mcpAnswer(r.RequestID, r.Subtype, r.Response, r.Error) {
		return
	}
	a, ok := s.asks[r.RequestID]
	if !ok {
		return // an answer to a request withdrawn or never made
	}
	delete(s.asks, r.RequestID)
	if s.running {
		s.state("running")
	}
	if r.Subtype != "success" {
		a.Answer(agent.PermissionAnswer{Message: "the SDK's permission callback failed: " + r.Error})
		return
	}
	var d permissionResult
	if err := json.Unmarshal(r.Response, &d); err != nil {
		a.Answer(agent.PermissionAnswer{Message: "the SDK's permission answer does not decode: " + err.Error()})
		return
	}
	switch d.Behavior {
	case "allow":
		ans := agent.PermissionAnswer{Allow: true}
		if in := d.UpdatedInput; len(in) > 0 && string(in) != "null" {
			ans.UpdatedInput = in
		}
		for _, note := range s.applyPermissions(d.UpdatedPermissions) {
			fmt.Fprintf(s.o.Stderr, "nova: %s\n", note)
			s.enc.informational(nil, "warning", note)
		}
		a.Answer(ans)
	case "deny":
		a.Answer(agent.PermissionAnswer{Message: d.Message})
		if d.Interrupt && s.cancelRun != nil {
			s.cancelRun()
		}
	default:
		a.Answer(agent.PermissionAnswer{Message: fmt.Sprintf("the SDK answered the permission request with behavior %q, neither allow nor deny", d.Behavior)})
	}
}

// cancelAsk withdraws a can_use_tool request the run no longer waits for.
func (s *server) cancelAsk(id string) {
	delete(s.asks, id)
	s.w.json(sdkControlCancelRequest{Type: "control_cancel_request", RequestID: id})
}

func (s *server) denyAsks(msg string) {
	for id, a := range s.asks {
		delete(s.asks, id)
		a.Answer(agent.PermissionAnswer{Message: msg})
	}
}

// finish ends the run whose events just closed: its result, then idle.
func (s *server) finish() {
	for id := range s.asks {
		s.cancelAsk(id)
	}
	done := s.done
	if done == nil {
		done = &agent.Done{Subtype: agent.SubtypeError, IsError: true, Error: "the agent ended without a result"}
	}
	res := s.enc.result(done, time.Since(s.runStart))
	if s.o.Structured != nil {
		res.StructuredOutput = s.o.Structured.take()
	}
	s.w.json(res)
	s.cancelRun()
	s.running, s.events, s.cancelRun = false, nil, nil
	s.state("idle")
}

// state tells the SDK where the session is (Claude Code's
// session_state_changed; the SDK keeps it to itself).
func (s *server) state(st string) {
	s.w.json(sdkSessionStateChangedMessage{Type: "system", Subtype: "session_state_changed", State: st, SDKHostOnly: true,
		SessionID: s.o.Session.SessionID, UUID: newUUID()})
}
