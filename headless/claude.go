package headless

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// This file turns nova's events into Claude Code's stream-json messages:
// what `claude -p --output-format stream-json --verbose` prints and what
// the Claude Agent SDK reads. The shapes were taken from Claude Code
// 2.1.333 driven by @anthropic-ai/claude-agent-sdk 0.3.333 against
// llm/llmtest (docs/sdk.md).

// Usage is a result's token counts under Anthropic's names.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

func usageOf(u llm.Usage) Usage {
	return Usage{InputTokens: u.InputTokens, CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens: u.CacheReadTokens, OutputTokens: u.OutputTokens}
}

// ModelUsage is one model's totals in a result's modelUsage.
type ModelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int     `json:"contextWindow"`
	MaxOutputTokens          int     `json:"maxOutputTokens"`
}

// Session describes the session the messages belong to: the init
// message's fields and what results name.
type Session struct {
	SessionID string
	// Model is the model as nova names it (provider:model).
	Model string
	Cwd   string
	// Tools returns the tools the model is offered now (MCP servers add
	// theirs as they connect).
	Tools func() []string
	// MCPServers returns the MCP servers and how each stands.
	MCPServers func() []MCPServer
	// PermissionMode returns the permission mode in force.
	PermissionMode func() string
	// Version is nova's version, the init message's claude_code_version.
	Version string
	// ContextWindow and MaxOutput are the model's limits, in tokens.
	ContextWindow, MaxOutput int
}

// MCPServer is an MCP server as the init message lists it.
type MCPServer struct {
	Name string `json:"name"`
	// Status is Claude Code's word: connected, pending, failed or needs-auth.
	Status string `json:"status"`
}

func (s *Session) tools() []string {
	if s.Tools == nil {
		return []string{}
	}
	if t := s.Tools(); t != nil {
		return t
	}
	return []string{}
}

func (s *Session) mcpServers() []MCPServer {
	if s.MCPServers == nil {
		return []MCPServer{}
	}
	if m := s.MCPServers(); m != nil {
		return m
	}
	return []MCPServer{}
}

func (s *Session) mode() string {
	if s.PermissionMode == nil {
		return "default"
	}
	return s.PermissionMode()
}

// Anthropic content blocks.
type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

// apiMessage is an Anthropic Messages API message.
type apiMessage struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        Usage   `json:"usage"`
}

type assistantMessage struct {
	Type            string     `json:"type"`
	Message         apiMessage `json:"message"`
	ParentToolUseID *string    `json:"parent_tool_use_id"`
	SessionID       string     `json:"session_id"`
	UUID            string     `json:"uuid"`
	Timestamp       string     `json:"timestamp"`
	// Supersedes names the assistant messages of a response that broke
	// off and was asked for again: they never happened.
	Supersedes []string `json:"supersedes,omitempty"`
	// Aborted says the response broke off here (an interrupt, a failure)
	// before the model finished it.
	Aborted bool `json:"aborted,omitempty"`
}

type userContent struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type userMessage struct {
	Type            string      `json:"type"`
	Message         userContent `json:"message"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	SessionID       string      `json:"session_id"`
	UUID            string      `json:"uuid"`
	Timestamp       string      `json:"timestamp"`
}

type streamEvent struct {
	Type            string  `json:"type"`
	Event           any     `json:"event"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

// initMessage is the system/init message that opens every turn.
type initMessage struct {
	Type              string      `json:"type"`
	Subtype           string      `json:"subtype"`
	Cwd               string      `json:"cwd"`
	SessionID         string      `json:"session_id"`
	Tools             []string    `json:"tools"`
	MCPServers        []MCPServer `json:"mcp_servers"`
	Model             string      `json:"model"`
	PermissionMode    string      `json:"permissionMode"`
	SlashCommands     []string    `json:"slash_commands"`
	APIKeySource      string      `json:"apiKeySource"`
	ClaudeCodeVersion string      `json:"claude_code_version"`
	OutputStyle       string      `json:"output_style"`
	Agents            []string    `json:"agents"`
	Skills            []string    `json:"skills"`
	Plugins           []string    `json:"plugins"`
	UUID              string      `json:"uuid"`
}

// Result is the result message of the json and stream-json formats: Claude
// Code's, with nova's own fields after its.
type Result struct {
	Type          string `json:"type"`
	Subtype       string `json:"subtype"`
	IsError       bool   `json:"is_error"`
	DurationMS    int64  `json:"duration_ms"`
	DurationAPIMS int64  `json:"duration_api_ms"`
	NumTurns      int    `json:"num_turns"`
	Result        string `json:"result"`
	// StopReason is the model's last stop reason; null when it gave none.
	StopReason *string `json:"stop_reason"`
	SessionID  string  `json:"session_id"`
	// TotalCostUSD is what the run cost at the model's known prices
	// (config/catalog.go, config.json's); 0 for a model without prices.
	TotalCostUSD      float64               `json:"total_cost_usd"`
	Usage             Usage                 `json:"usage"`
	ModelUsage        map[string]ModelUsage `json:"modelUsage"`
	PermissionDenials []agent.Denial        `json:"permission_denials"`
	// Errors says what went wrong when IsError (the Agent SDK reads it).
	Errors []string `json:"errors,omitempty"`
	UUID   string   `json:"uuid"`
	// Error is Errors in one string, as nova's results always had it.
	Error string `json:"error,omitempty"`
	// IgnoredProjectSettings lists the project grants that did not apply
	// because the folder is not trusted; empty when none.
	IgnoredProjectSettings []IgnoredSetting `json:"ignored_project_settings"`
	Model                  string           `json:"model,omitempty"`
}

// systemMessage is a system message of nova's own: fields merged beside
// type, subtype, session_id and uuid.
func (e *encoder) system(subtype string, fields map[string]any) {
	m := map[string]any{"type": "system", "subtype": subtype, "session_id": e.s.SessionID, "uuid": newUUID()}
	for k, v := range fields {
		m[k] = v
	}
	e.w.json(m)
}

// encoder writes Claude Code's messages for the events of runs.
type encoder struct {
	w       *writer
	s       *Session
	partial bool // stream_event messages too (--include-partial-messages)
	now     func() time.Time
	// debug, when set, gets nova's own events as JSON lines (-d).
	debug *writer

	// The model response in progress.
	msgID     string
	streaming bool   // a response is open (message_start sent)
	block     string // the open block: "text", "thinking" or ""
	index     int    // the open block's index, or the next one's
	blockText strings.Builder
	toolUse   bool          // the response called a tool
	apiStart  time.Time     // when the response began
	apiTime   time.Duration // of the run so far
	// attempt holds the uuids of the response's assistant messages, which
	// a retry that voids the response names in supersedes.
	attempt, supersedes []string
	calls               map[string]callInfo
}

type callInfo struct {
	name  string
	start time.Time
}

func newEncoder(w *writer, s *Session, partial bool) *encoder {
	return &encoder{w: w, s: s, partial: partial, now: time.Now, calls: map[string]callInfo{}}
}

// init writes the system/init message.
func (e *encoder) init() {
	e.w.json(initMessage{
		Type: "system", Subtype: "init", Cwd: e.s.Cwd, SessionID: e.s.SessionID, Tools: e.s.tools(),
		MCPServers: e.s.mcpServers(), Model: e.s.Model, PermissionMode: e.s.mode(), SlashCommands: []string{},
		APIKeySource: "none", ClaudeCodeVersion: e.s.Version, OutputStyle: "default",
		Agents: []string{}, Skills: []string{}, Plugins: []string{}, UUID: newUUID(),
	})
}

func (e *encoder) stamp() string { return e.now().UTC().Format("2006-01-02T15:04:05.000Z") }

func (e *encoder) stream(ev any) {
	if e.partial {
		e.w.json(streamEvent{Type: "stream_event", Event: ev, SessionID: e.s.SessionID, UUID: newUUID()})
	}
}

// event writes what ev means in Claude Code's messages. Permission asks
// and questions are the caller's to answer; here they only close the
// response, which has ended when a call waits.
func (e *encoder) event(ev agent.Event) {
	if e.debug != nil {
		e.debug.json(safeEvent(ev))
	}
	switch ev.Type {
	case agent.EventTurnStart:
		e.endResponse("", nil)
		e.startResponse()
	case agent.EventTextDelta:
		e.delta("text", ev.Text)
	case agent.EventThinkingDelta:
		e.delta("thinking", ev.Text)
	case agent.EventToolCall:
		e.toolCall(ev.ToolCall)
	case agent.EventPermissionAsk, agent.EventQuestion:
		e.endResponse("", nil)
	case agent.EventToolResult:
		e.endResponse("", nil)
		e.toolResult(ev.Result)
	case agent.EventTurnEnd:
		e.endResponse(ev.StopReason, ev.Usage)
	case agent.EventRetry:
		e.retry(ev)
	case agent.EventToolProgress:
		e.progress(ev)
	case agent.EventTodos:
		e.system("nova_todos", map[string]any{"todos": ev.Todos})
	case agent.EventContext:
		if ev.Context != nil {
			e.system("nova_context", map[string]any{"used": ev.Context.Used, "limit": ev.Context.Limit,
				"percent": ev.Context.Percent, "message_count": ev.Context.MessageCount})
		}
	case agent.EventCompaction:
		if ev.Compaction != nil {
			e.system("compact_boundary", map[string]any{"compact_metadata": map[string]any{
				"trigger": "auto", "pre_tokens": ev.Compaction.Before, "post_tokens": ev.Compaction.After}})
		}
	case agent.EventNotice:
		e.system("informational", map[string]any{"content": ev.Text, "level": "notice"})
	case agent.EventError:
		e.endResponse("", nil)
		e.system("informational", map[string]any{"content": ev.Text, "level": "warning"})
	case agent.EventDone:
		e.endResponse("", nil)
	}
}

func (e *encoder) startResponse() {
	e.msgID = "msg_nova_" + strings.ReplaceAll(newUUID(), "-", "")[:24]
	e.streaming, e.block, e.index, e.toolUse = true, "", 0, false
	e.apiStart = e.now()
	e.attempt = nil
	e.stream(map[string]any{"type": "message_start", "message": e.apiMessage(nil)})
}

func (e *encoder) apiMessage(content []any) apiMessage {
	if content == nil {
		content = []any{}
	}
	return apiMessage{ID: e.msgID, Type: "message", Role: "assistant", Model: e.s.Model, Content: content}
}

// delta adds text to the open block of its kind, ending another kind's.
func (e *encoder) delta(kind, text string) {
	if !e.streaming {
		e.startResponse()
	}
	if e.block != kind {
		e.endBlock(false)
		e.block = kind
		e.blockText.Reset()
		if kind == "text" {
			e.stream(map[string]any{"type": "content_block_start", "index": e.index, "content_block": textBlock{Type: "text"}})
		} else {
			e.stream(map[string]any{"type": "content_block_start", "index": e.index, "content_block": thinkingBlock{Type: "thinking"}})
		}
	}
	e.blockText.WriteString(text)
	if kind == "text" {
		e.stream(map[string]any{"type": "content_block_delta", "index": e.index, "delta": map[string]any{"type": "text_delta", "text": text}})
	} else {
		e.stream(map[string]any{"type": "content_block_delta", "index": e.index, "delta": map[string]any{"type": "thinking_delta", "thinking": text}})
	}
}

// endBlock ends the open text or thinking block: its assistant message,
// then (as Claude Code orders them) its content_block_stop. aborted says
// the response broke off in it.
func (e *encoder) endBlock(aborted bool) {
	if e.block == "" {
		return
	}
	if e.block == "text" {
		e.assistant(textBlock{Type: "text", Text: e.blockText.String()}, aborted)
	} else {
		e.assistant(thinkingBlock{Type: "thinking", Thinking: e.blockText.String()}, aborted)
	}
	e.stream(map[string]any{"type": "content_block_stop", "index": e.index})
	e.block = ""
	e.blockText.Reset()
	e.index++
}

func (e *encoder) assistant(block any, aborted bool) {
	id := newUUID()
	e.attempt = append(e.attempt, id)
	e.w.json(assistantMessage{Type: "assistant", Message: e.apiMessage([]any{block}), SessionID: e.s.SessionID,
		UUID: id, Timestamp: e.stamp(), Supersedes: e.supersedes, Aborted: aborted})
	e.supersedes = nil
}

func (e *encoder) toolCall(c *llm.ToolCall) {
	if c == nil {
		return
	}
	if !e.streaming {
		e.startResponse()
	}
	e.endBlock(false)
	e.toolUse = true
	e.calls[c.ID] = callInfo{name: c.Name, start: e.now()}
	input := llm.SafeInput(c.Input)
	e.stream(map[string]any{"type": "content_block_start", "index": e.index,
		"content_block": toolUseBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: json.RawMessage(`{}`)}})
	e.stream(map[string]any{"type": "content_block_delta", "index": e.index,
		"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	e.assistant(toolUseBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input}, false)
	e.stream(map[string]any{"type": "content_block_stop", "index": e.index})
	e.index++
}

// endResponse ends the response in progress, if any: the model has
// stopped (stop is "" while a turn's calls run: they follow its end).
func (e *encoder) endResponse(stop llm.StopReason, usage *llm.Usage) {
	if !e.streaming {
		return
	}
	if stop == "" && e.toolUse {
		stop = llm.StopToolUse
	}
	// A response that ends with no reason and no call broke off.
	e.endBlock(stop == "")
	var reason any
	if stop != "" {
		reason = string(stop)
	}
	var u llm.Usage
	if usage != nil {
		u = *usage
	}
	e.stream(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason, "stop_sequence": nil},
		"usage": usageOf(u)})
	e.stream(map[string]any{"type": "message_stop"})
	e.apiTime += e.now().Sub(e.apiStart)
	e.streaming = false
}

func (e *encoder) toolResult(r *agent.ToolResult) {
	if r == nil {
		return
	}
	decision := map[string]any{"behavior": r.Decision.Behavior, "layer": r.Decision.Layer, "reason": r.Decision.Reason}
	if r.Decision.Rule != "" {
		decision["rule"] = r.Decision.Rule
	}
	if r.Denied {
		e.system("permission_denied", map[string]any{"tool_name": r.Name, "tool_use_id": r.ID,
			"decision_reason_type": r.Decision.Layer, "decision_reason": r.Decision.Reason, "message": r.Output})
	}
	meta := map[string]any{"tool_use_id": r.ID, "tool_name": r.Name, "is_error": r.IsError, "denied": r.Denied,
		"decision": decision, "duration_ms": r.DurationMS}
	if r.SpillPath != "" {
		meta["spill_path"] = r.SpillPath
	}
	e.system("nova_tool_result", meta)
	e.w.json(userMessage{Type: "user", Message: userContent{Role: "user", Content: []any{
		toolResultBlock{Type: "tool_result", ToolUseID: r.ID, Content: r.Output, IsError: r.IsError}}},
		SessionID: e.s.SessionID, UUID: newUUID(), Timestamp: e.stamp()})
	delete(e.calls, r.ID)
}

// retry reports a retry as Claude Code's api_retry. One that voids the
// response ends what was streamed of it, and the next assistant message
// supersedes the messages it had sent.
func (e *encoder) retry(ev agent.Event) {
	r := ev.Retry
	if r == nil {
		e.system("api_retry", map[string]any{"text": ev.Text})
		return
	}
	if r.DiscardPartial {
		e.block = "" // a void block gets no message
		e.blockText.Reset()
		e.endResponse("", nil)
		e.supersedes = append(e.supersedes, e.attempt...)
		e.attempt = nil
	}
	e.system("api_retry", map[string]any{"attempt": r.Attempt, "max_retries": r.MaxAttempts,
		"retry_delay_ms": r.Delay.Milliseconds(), "error_status": nil, "error": retryError(r.Kind),
		"discard_partial": r.DiscardPartial, "text": ev.Text})
}

// retryError is Claude Code's word for what failed.
func retryError(k llm.ErrorKind) string {
	switch k {
	case llm.ErrRateLimit:
		return "rate_limit"
	case llm.ErrOverloaded:
		return "overloaded"
	case llm.ErrAuth:
		return "authentication_failed"
	case llm.ErrServer:
		return "server_error"
	}
	return "unknown"
}

func (e *encoder) progress(ev agent.Event) {
	p := ev.Progress
	if p == nil {
		return
	}
	c := e.calls[p.CallID]
	elapsed := 0.0
	if !c.start.IsZero() {
		elapsed = e.now().Sub(c.start).Seconds()
	}
	m := map[string]any{"type": "tool_progress", "tool_use_id": p.CallID, "tool_name": c.name, "parent_tool_use_id": nil,
		"elapsed_time_seconds": elapsed, "progress": p.Progress, "session_id": e.s.SessionID, "uuid": newUUID()}
	if p.Total > 0 {
		m["total"] = p.Total
	}
	if p.Message != "" {
		m["message"] = p.Message
	}
	e.w.json(m)
}

// result builds the result message of a run that took d since start.
func (e *encoder) result(d *agent.Done, took time.Duration) Result {
	res := Result{
		Type: "result", Subtype: d.Subtype, IsError: d.IsError, DurationMS: took.Milliseconds(),
		DurationAPIMS: e.apiTime.Milliseconds(), NumTurns: d.NumTurns, Result: d.Result, SessionID: e.s.SessionID,
		Usage: usageOf(d.Usage), PermissionDenials: safeDenials(d.Denials), UUID: newUUID(), Error: d.Error,
		IgnoredProjectSettings: []IgnoredSetting{}, Model: e.s.Model, TotalCostUSD: d.CostUSD,
		ModelUsage: map[string]ModelUsage{e.s.Model: {InputTokens: d.Usage.InputTokens, OutputTokens: d.Usage.OutputTokens,
			CacheReadInputTokens: d.Usage.CacheReadTokens, CacheCreationInputTokens: d.Usage.CacheWriteTokens,
			CostUSD: d.CostUSD, ContextWindow: e.s.ContextWindow, MaxOutputTokens: e.s.MaxOutput}},
	}
	if d.StopReason != "" {
		s := string(d.StopReason)
		res.StopReason = &s
	}
	if res.Subtype == agent.SubtypeInterrupted {
		// Claude Code's result subtypes have no "interrupted".
		res.Subtype = agent.SubtypeError
	}
	if d.IsError {
		msg := d.Error
		if msg == "" {
			msg = "the run failed"
		}
		res.Errors = []string{msg}
	}
	e.apiTime = 0
	return res
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// safeEvent returns ev with a tool call input that marshals: the agent
// sends it so, and the debug output does not trust that.
func safeEvent(ev agent.Event) agent.Event {
	if ev.ToolCall != nil {
		c := *ev.ToolCall
		c.Input = llm.SafeInput(c.Input)
		ev.ToolCall = &c
	}
	return ev
}
