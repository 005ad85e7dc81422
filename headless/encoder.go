package headless

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// encoder writes Claude Code's messages for the events of runs.
type encoder struct {
	w       *writer
	s       *Session
	partial bool // stream_event messages too (--include-partial-messages)
	now     func() time.Time
	// debug, when set, gets nova's own events as JSON lines (-d).
	debug *writer
	// hooks, when set, writes the hooks' runs; it is told as each tool
	// call's assistant message is out, for the messages of its hooks.
	hooks *HookEvents
	// initPending says the init message is due: it goes out before the
	// first message that is not a hook's, as Claude Code writes the
	// SessionStart and UserPromptSubmit hooks' messages ahead of it.
	initPending bool
	// afterInit are messages that follow the init message when it goes
	// out (the prompt's replay, --replay-user-messages).
	afterInit []*sdkUserMessageReplay

	// main is the run's own model response; subs are its subagents'
	// (Agent tool calls at work), by the id of the call each works for.
	// Subagents run beside the run and each other, so each has its own.
	main    *modelResponse
	subs    map[string]*modelResponse
	apiTime time.Duration // of the run so far, subagents' responses included
	calls   map[string]callInfo
}

// modelResponse is one model response being written: the run's own, or a
// subagent's (parent set).
type modelResponse struct {
	// parent is the id of the Agent call the subagent works for, the
	// parent_tool_use_id of its messages; nil for the run's own.
	parent *string
	// agentID is the subagent's id (can_use_tool's agent_id).
	agentID string

	msgID     string
	streaming bool   // a response is open (message_start sent)
	block     string // the open block: "text", "thinking" or ""
	index     int    // the open block's index, or the next one's
	blockText strings.Builder
	toolUse   bool      // the response called a tool
	apiStart  time.Time // when the response began
	// attempt holds the uuids of the response's assistant messages, which
	// a retry that voids the response names in supersedes.
	attempt, supersedes []string
}

type callInfo struct {
	name  string
	start time.Time
}

func newEncoder(w *writer, s *Session, partial bool) *encoder {
	return &encoder{w: w, s: s, partial: partial, now: time.Now, main: &modelResponse{},
		subs: map[string]*modelResponse{}, calls: map[string]callInfo{}}
}

// responseOf is the response ev belongs to: a subagent's when it carries
// a ParentToolUseID.
func (e *encoder) responseOf(ev agent.Event) *modelResponse {
	id := ev.ParentToolUseID
	if id == "" {
		return e.main
	}
	r := e.subs[id]
	if r == nil {
		r = &modelResponse{parent: &id}
		if ev.Agent != nil {
			r.agentID = ev.Agent.ID
		}
		e.subs[id] = r
	}
	return r
}

// header opens a system message of subtype: the session's, and the
// subagent's of r when r is one's.
func (e *encoder) header(r *modelResponse, subtype string) systemHeader {
	h := systemHeader{Type: "system", Subtype: subtype, SessionID: e.s.SessionID, UUID: newUUID()}
	if r != nil && r.parent != nil {
		h.ParentToolUseID = r.parent
		h.AgentID = r.agentID
	}
	return h
}

// informational writes a line for the host to show at level.
func (e *encoder) informational(r *modelResponse, level, content string) {
	e.w.json(sdkInformationalMessage{systemHeader: e.header(r, "informational"), Content: content, Level: level})
}

// init writes the system/init message.
// init makes the init message due (initPending); flushInit writes it.
func (e *encoder) init() { e.initPending = true }

// flushInit writes the init message if it is due.
func (e *encoder) flushInit() {
	if !e.initPending {
		return
	}
	e.initPending = false
	defer func() {
		for _, m := range e.afterInit {
			e.w.json(m)
		}
		e.afterInit = nil
	}()
	e.w.json(sdkSystemMessage{
		Type: "system", Subtype: "init", Cwd: e.s.Cwd, SessionID: e.s.SessionID, Tools: e.s.tools(),
		MCPServers: e.s.mcpServers(), Model: e.s.apiModel(), PermissionMode: e.s.mode(), SlashCommands: e.s.slashCommands(),
		APIKeySource: "none", ClaudeCodeVersion: e.s.Version, OutputStyle: "default",
		Agents: e.s.agents(), Skills: e.s.skills(), Plugins: []string{}, UUID: newUUID(),
	})
}

func (e *encoder) stamp() string { return e.now().UTC().Format("2006-01-02T15:04:05.000Z") }

func (e *encoder) stream(r *modelResponse, ev any) {
	if e.partial {
		e.w.json(sdkPartialAssistantMessage{Type: "stream_event", Event: ev, ParentToolUseID: r.parent, SessionID: e.s.SessionID, UUID: newUUID()})
	}
}

// event writes what ev means in Claude Code's messages. Permission asks
// and questions are the caller's to answer; here they only close the
// response, which has ended when a call waits. A subagent's events come
// out as Claude Code writes a subagent's messages: with the Agent call's
// id as parent_tool_use_id, never as the run's answer, todos or context.
func (e *encoder) event(ev agent.Event) {
	if e.debug != nil {
		e.debug.json(safeEvent(ev))
	}
	if ev.Type == agent.EventHook {
		if ev.Hook != nil && e.hooks != nil {
			e.hooks.Observe(*ev.Hook)
		}
		return
	}
	e.flushInit()
	r := e.responseOf(ev)
	sub := r.parent != nil
	switch ev.Type {
	case agent.EventTurnStart:
		e.endResponse(r, "", nil)
		e.startResponse(r)
	case agent.EventTextDelta:
		e.delta(r, "text", ev.Text)
	case agent.EventThinkingDelta:
		e.delta(r, "thinking", ev.Text)
	case agent.EventToolCall:
		e.toolCall(r, ev.ToolCall)
	case agent.EventPermissionAsk, agent.EventQuestion:
		e.endResponse(r, "", nil)
	case agent.EventToolResult:
		e.endResponse(r, "", nil)
		e.toolResult(r, ev.Result)
		if ev.Result != nil && !sub {
			// The Agent call's result ends its subagent's work.
			e.endSub(ev.Result.ID)
		}
	case agent.EventTurnEnd:
		e.endResponse(r, ev.StopReason, ev.Usage)
	case agent.EventRetry:
		e.retry(r, ev)
	case agent.EventToolProgress:
		e.progress(r, ev)
	case agent.EventTodos:
		if !sub {
			e.w.json(novaTodosMessage{systemHeader: e.header(r, "nova_todos"), Todos: ev.Todos})
		}
	case agent.EventContext:
		if ev.Context != nil && !sub {
			e.w.json(novaContextMessage{systemHeader: e.header(r, "nova_context"), ContextUsage: *ev.Context})
		}
	case agent.EventCompaction:
		if ev.Compaction != nil {
			e.w.json(sdkCompactBoundaryMessage{systemHeader: e.header(r, "compact_boundary"),
				CompactMetadata: compactMetadata{Trigger: "auto", PreTokens: ev.Compaction.Before, PostTokens: ev.Compaction.After}})
		}
	case agent.EventNotice:
		e.informational(r, "notice", ev.Text)
	case agent.EventError:
		e.endResponse(r, "", nil)
		e.informational(r, "warning", ev.Text)
	case agent.EventDone:
		if sub {
			return // a subagent's work ends with its call's result
		}
		e.endResponse(r, "", nil)
		for id := range e.subs {
			// A run that ended (interrupted) with subagents at work.
			e.endSub(id)
		}
	}
}

// endSub ends the subagent's response working for call id, if any.
func (e *encoder) endSub(id string) {
	if r := e.subs[id]; r != nil {
		e.endResponse(r, "", nil)
		delete(e.subs, id)
	}
}

func (e *encoder) startResponse(r *modelResponse) {
	r.msgID = "msg_nova_" + strings.ReplaceAll(newUUID(), "-", "")[:24]
	r.streaming, r.block, r.index, r.toolUse = true, "", 0, false
	r.apiStart = e.now()
	r.attempt = nil
	e.stream(r, messageStartEvent{Type: "message_start", Message: e.apiMessage(r, nil)})
}

func (e *encoder) apiMessage(r *modelResponse, content []any) apiMessage {
	if content == nil {
		content = []any{}
	}
	return apiMessage{ID: r.msgID, Type: "message", Role: "assistant", Model: e.s.apiModel(), Content: content}
}

// delta adds text to the open block of its kind, ending another kind's.
func (e *encoder) delta(r *modelResponse, kind, text string) {
	if !r.streaming {
		e.startResponse(r)
	}
	if r.block != kind {
		e.endBlock(r, false)
		r.block = kind
		r.blockText.Reset()
		if kind == "text" {
			e.stream(r, contentBlockStartEvent{Type: "content_block_start", Index: r.index, ContentBlock: textBlock{Type: "text"}})
		} else {
			e.stream(r, contentBlockStartEvent{Type: "content_block_start", Index: r.index, ContentBlock: thinkingBlock{Type: "thinking"}})
		}
	}
	r.blockText.WriteString(text)
	if kind == "text" {
		e.stream(r, contentBlockDeltaEvent{Type: "content_block_delta", Index: r.index, Delta: textDelta{Type: "text_delta", Text: text}})
	} else {
		e.stream(r, contentBlockDeltaEvent{Type: "content_block_delta", Index: r.index, Delta: thinkingDelta{Type: "thinking_delta", Thinking: text}})
	}
}

// endBlock ends the open text or thinking block: its assistant message,
// then (as Claude Code orders them) its content_block_stop. aborted says
// the response broke off in it.
func (e *encoder) endBlock(r *modelResponse, aborted bool) {
	if r.block == "" {
		return
	}
	if r.block == "text" {
		e.assistant(r, textBlock{Type: "text", Text: r.blockText.String()}, aborted)
	} else {
		e.assistant(r, thinkingBlock{Type: "thinking", Thinking: r.blockText.String()}, aborted)
	}
	e.stream(r, contentBlockStopEvent{Type: "content_block_stop", Index: r.index})
	r.block = ""
	r.blockText.Reset()
	r.index++
}

func (e *encoder) assistant(r *modelResponse, block any, aborted bool) {
	id := newUUID()
	r.attempt = append(r.attempt, id)
	e.w.json(sdkAssistantMessage{Type: "assistant", Message: e.apiMessage(r, []any{block}), ParentToolUseID: r.parent,
		SessionID: e.s.SessionID, UUID: id, Timestamp: e.stamp(), Supersedes: r.supersedes, Aborted: aborted})
	r.supersedes = nil
}

func (e *encoder) toolCall(r *modelResponse, c *llm.ToolCall) {
	if c == nil {
		return
	}
	if !r.streaming {
		e.startResponse(r)
	}
	e.endBlock(r, false)
	r.toolUse = true
	e.calls[c.ID] = callInfo{name: c.Name, start: e.now()}
	input := llm.SafeInput(c.Input)
	e.stream(r, contentBlockStartEvent{Type: "content_block_start", Index: r.index,
		ContentBlock: toolUseBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: json.RawMessage(`{}`)}})
	e.stream(r, contentBlockDeltaEvent{Type: "content_block_delta", Index: r.index,
		Delta: inputJSONDelta{Type: "input_json_delta", PartialJSON: string(input)}})
	e.assistant(r, toolUseBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input}, false)
	e.hooks.called(c.ID)
	e.stream(r, contentBlockStopEvent{Type: "content_block_stop", Index: r.index})
	r.index++
}

// endResponse ends the response in progress, if any: the model has
// stopped (stop is "" while a turn's calls run: they follow its end).
func (e *encoder) endResponse(r *modelResponse, stop llm.StopReason, usage *llm.Usage) {
	if !r.streaming {
		return
	}
	if stop == "" && r.toolUse {
		stop = llm.StopToolUse
	}
	// A response that ends with no reason and no call broke off.
	e.endBlock(r, stop == "")
	var reason *string
	if stop != "" {
		s := string(stop)
		reason = &s
	}
	var u llm.Usage
	if usage != nil {
		u = *usage
	}
	e.stream(r, messageDeltaEvent{Type: "message_delta", Delta: messageDeltaBody{StopReason: reason}, Usage: usageOf(u)})
	e.stream(r, messageStopEvent{Type: "message_stop"})
	e.apiTime += e.now().Sub(r.apiStart)
	r.streaming = false
}

func (e *encoder) toolResult(r *modelResponse, res *agent.ToolResult) {
	if res == nil {
		return
	}
	if res.Denied {
		e.w.json(sdkPermissionDeniedMessage{systemHeader: e.header(r, "permission_denied"), ToolName: res.Name, ToolUseID: res.ID,
			DecisionReasonType: res.Decision.Layer, DecisionReason: res.Decision.Reason, Message: res.Output})
	}
	e.w.json(novaToolResultMessage{systemHeader: e.header(r, "nova_tool_result"), ToolUseID: res.ID, ToolName: res.Name,
		IsError: res.IsError, Denied: res.Denied, DurationMS: res.DurationMS, SpillPath: res.SpillPath,
		Decision: novaDecision{Behavior: res.Decision.Behavior, Layer: res.Decision.Layer, Reason: res.Decision.Reason, Rule: res.Decision.Rule}})
	e.w.json(sdkUserMessage{Type: "user", Message: apiUserMessage{Role: "user", Content: []any{
		toolResultBlock{Type: "tool_result", ToolUseID: res.ID, Content: res.Output, IsError: res.IsError}}},
		ParentToolUseID: r.parent, SessionID: e.s.SessionID, UUID: newUUID(), Timestamp: e.stamp()})
	delete(e.calls, res.ID)
}

// retry reports a retry as Claude Code's api_retry. One that voids the
// response ends what was streamed of it, and the next assistant message
// supersedes the messages it had sent.
func (e *encoder) retry(r *modelResponse, ev agent.Event) {
	ri := ev.Retry
	if ri == nil {
		e.w.json(apiRetryNote{systemHeader: e.header(r, "api_retry"), Text: ev.Text})
		return
	}
	if ri.DiscardPartial {
		r.block = "" // a void block gets no message
		r.blockText.Reset()
		e.endResponse(r, "", nil)
		r.supersedes = append(r.supersedes, r.attempt...)
		r.attempt = nil
	}
	e.w.json(sdkAPIRetryMessage{systemHeader: e.header(r, "api_retry"), Attempt: ri.Attempt, MaxRetries: ri.MaxAttempts,
		RetryDelayMS: ri.Delay.Milliseconds(), Error: retryError(ri.Kind), DiscardPartial: ri.DiscardPartial, Text: ev.Text})
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

func (e *encoder) progress(r *modelResponse, ev agent.Event) {
	p := ev.Progress
	if p == nil {
		return
	}
	c := e.calls[p.CallID]
	elapsed := 0.0
	if !c.start.IsZero() {
		elapsed = e.now().Sub(c.start).Seconds()
	}
	e.w.json(sdkToolProgressMessage{Type: "tool_progress", ToolUseID: p.CallID, ToolName: c.name, ParentToolUseID: r.parent,
		ElapsedTimeSeconds: elapsed, Progress: p.Progress, Total: p.Total, Message: p.Message, SessionID: e.s.SessionID, UUID: newUUID()})
}

// result builds the result message of a run that took d since start.
func (e *encoder) result(d *agent.Done, took time.Duration) Result {
	e.flushInit()
	res := Result{
		Type: "result", Subtype: d.Subtype, IsError: d.IsError, DurationMS: took.Milliseconds(),
		DurationAPIMS: e.apiTime.Milliseconds(), NumTurns: d.NumTurns, Result: d.Result, SessionID: e.s.SessionID,
		Usage: usageOf(d.Usage), PermissionDenials: safeDenials(d.Denials), UUID: newUUID(), Error: d.Error,
		IgnoredProjectSettings: []IgnoredSetting{}, Model: e.s.Model, TotalCostUSD: d.CostUSD,
		ModelUsage: map[string]ModelUsage{e.s.apiModel(): {InputTokens: d.Usage.InputTokens, OutputTokens: d.Usage.OutputTokens,
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
