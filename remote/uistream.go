package remote

import (
	"encoding/json"
	"fmt"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
)

// uiChunk is one part of the Vercel AI SDK's UI message stream (v1), as
// the ai package's chunk schema defines it. Only the fields of its type
// are set; field order is fixed, so a replayed frame is byte-identical.
type uiChunk struct {
	Type           string          `json:"type"`
	MessageID      string          `json:"messageId,omitempty"`
	ID             string          `json:"id,omitempty"`
	Delta          *string         `json:"delta,omitempty"`
	ToolCallID     string          `json:"toolCallId,omitempty"`
	ToolName       string          `json:"toolName,omitempty"`
	InputTextDelta *string         `json:"inputTextDelta,omitempty"`
	Input          json.RawMessage `json:"input,omitempty"`
	Output         json.RawMessage `json:"output,omitempty"`
	ErrorText      string          `json:"errorText,omitempty"`
	FinishReason   string          `json:"finishReason,omitempty"`
	Reason         string          `json:"reason,omitempty"`
	Data           json.RawMessage `json:"data,omitempty"`
	Transient      bool            `json:"transient,omitempty"`
}

// approvalData is the data of a data-nova-approval-required part: what a
// client shows before it calls POST /api/chat/approve with RequestID.
type approvalData struct {
	RequestID   string          `json:"requestId"`
	ToolCallID  string          `json:"toolCallId"`
	ToolName    string          `json:"toolName"`
	Command     string          `json:"command,omitempty"`
	Input       json.RawMessage `json:"input"`
	Reason      string          `json:"reason"`
	Suggestions []string        `json:"suggestions,omitempty"`
	// ParentToolUseID and Agent are set on a subagent's ask: the Agent
	// call it works for, and which subagent it is.
	ParentToolUseID string          `json:"parentToolUseId,omitempty"`
	Agent           *agent.AgentRef `json:"agent,omitempty"`
}

// questionData is a data-nova-question part's data: what a client shows
// before it calls POST /api/chat/answer with QuestionID.
type questionData struct {
	QuestionID      string           `json:"questionId"`
	Questions       []tools.Question `json:"questions"`
	ParentToolUseID string           `json:"parentToolUseId,omitempty"`
}

// toolOutput is the output of a tool-output-available part: the text the
// model saw and what frontends show beside it.
type toolOutput struct {
	Text      string           `json:"text"`
	Display   *display.Display `json:"display,omitempty"`
	SpillPath string           `json:"spill_path,omitempty"`
}

// uiEncoder turns one run's events into UI message stream parts. It keeps
// which text or reasoning part is open, so deltas land in one part and
// every part is closed before the step ends.
type uiEncoder struct {
	messageID, sessionID string
	n                    int    // for part ids
	text, reasoning      string // the open part's id, or ""
	inStep               bool
	errSent              bool                     // an error part went out: done does not say it again
	subs                 map[string]*subagentData // by Agent call id (uistream_sub.go)
}

func newUIEncoder(messageID, sessionID string) *uiEncoder {
	return &uiEncoder{messageID: messageID, sessionID: sessionID}
}

// start is what every stream opens with: the message, then the session
// it belongs to (a new session's id is learnt here).
func (e *uiEncoder) start() []uiChunk {
	return []uiChunk{
		{Type: "start", MessageID: e.messageID},
		{Type: "data-nova-session", Data: mustJSON(map[string]string{"sessionId": e.sessionID})},
	}
}

// event encodes one event; most give one part, some none, a few several.
func (e *uiEncoder) event(ev agent.Event) []uiChunk {
	if ev.ParentToolUseID != "" && ev.Type != agent.EventQuestion {
		return e.subagentEvent(ev)
	}
	var out []uiChunk
	switch ev.Type {
	case agent.EventTurnStart:
		out = append(out, e.closeParts()...)
		if e.inStep {
			out = append(out, uiChunk{Type: "finish-step"})
		}
		e.inStep = true
		out = append(out, uiChunk{Type: "start-step"})
	case agent.EventTextDelta:
		if ev.Text == "" {
			break
		}
		out = append(out, e.step()...)
		if e.reasoning != "" {
			out = append(out, uiChunk{Type: "reasoning-end", ID: e.reasoning})
			e.reasoning = ""
		}
		if e.text == "" {
			e.text = e.id("text")
			out = append(out, uiChunk{Type: "text-start", ID: e.text})
		}
		out = append(out, uiChunk{Type: "text-delta", ID: e.text, Delta: strPtr(ev.Text)})
	case agent.EventThinkingDelta:
		if ev.Text == "" {
			break
		}
		out = append(out, e.step()...)
		if e.text != "" {
			out = append(out, uiChunk{Type: "text-end", ID: e.text})
			e.text = ""
		}
		if e.reasoning == "" {
			e.reasoning = e.id("reasoning")
			out = append(out, uiChunk{Type: "reasoning-start", ID: e.reasoning})
		}
		out = append(out, uiChunk{Type: "reasoning-delta", ID: e.reasoning, Delta: strPtr(ev.Text)})
	case agent.EventToolCall:
		if ev.ToolCall == nil {
			break
		}
		out = append(out, e.step()...)
		out = append(out, e.closeParts()...)
		c := ev.ToolCall
		in := llm.SafeInput(c.Input)
		out = append(out,
			uiChunk{Type: "tool-input-start", ToolCallID: c.ID, ToolName: c.Name},
			uiChunk{Type: "tool-input-delta", ToolCallID: c.ID, InputTextDelta: strPtr(string(in))},
			uiChunk{Type: "tool-input-available", ToolCallID: c.ID, ToolName: c.Name, Input: in})
	case agent.EventPermissionAsk:
		out = append(out, e.approval(ev)...)
	case agent.EventQuestion:
		if ev.Question == nil {
			break
		}
		out = append(out, e.closeParts()...)
		out = append(out, uiChunk{Type: "data-nova-question", ID: ev.Question.ID, Data: mustJSON(questionData{
			QuestionID: ev.Question.ID, Questions: ev.Question.Questions, ParentToolUseID: ev.ParentToolUseID})})
	case agent.EventToolResult:
		if ev.Result == nil {
			break
		}
		r := ev.Result
		out = append(out, e.subagentDone(r.ID)...)
		switch {
		case r.Denied:
			out = append(out, uiChunk{Type: "tool-output-error", ToolCallID: r.ID, ErrorText: nonEmpty("denied: "+r.Decision.Reason, r.Output)})
		case r.IsError:
			out = append(out, uiChunk{Type: "tool-output-error", ToolCallID: r.ID, ErrorText: nonEmpty(r.Output, "the tool failed")})
		default:
			out = append(out, uiChunk{Type: "tool-output-available", ToolCallID: r.ID,
				Output: mustJSON(toolOutput{Text: r.Output, Display: r.Display, SpillPath: r.SpillPath})})
		}
	case agent.EventToolProgress:
		if ev.Progress != nil {
			out = append(out, uiChunk{Type: "data-nova-progress", ID: ev.Progress.CallID, Data: mustJSON(ev.Progress), Transient: true})
		}
	case agent.EventTodos:
		out = append(out, uiChunk{Type: "data-nova-todos", ID: "todos", Data: mustJSON(map[string]any{"todos": nonNilTodos(ev.Todos)})})
	case agent.EventContext:
		if ev.Context != nil {
			out = append(out, uiChunk{Type: "data-nova-context", ID: "context", Data: mustJSON(ev.Context), Transient: true})
		}
	case agent.EventCompaction:
		if ev.Compaction != nil {
			out = append(out, uiChunk{Type: "data-nova-compaction", Data: mustJSON(ev.Compaction)})
		}
	case agent.EventNotice:
		out = append(out, uiChunk{Type: "data-nova-notice", Data: mustJSON(map[string]string{"text": ev.Text})})
	case agent.EventRetry:
		if ev.Retry == nil {
			break
		}
		if ev.Retry.DiscardPartial {
			// What the failed attempt streamed is void: the SDK drops
			// the step's parts, and the new attempt streams afresh.
			e.text, e.reasoning = "", ""
			if e.inStep {
				out = append(out, uiChunk{Type: "reset-step"})
			}
		}
		out = append(out, uiChunk{Type: "data-nova-retry", Data: mustJSON(map[string]any{"text": ev.Retry.String(), "retry": ev.Retry}), Transient: true})
	case agent.EventError:
		out = append(out, e.closeParts()...)
		out = append(out, uiChunk{Type: "error", ErrorText: nonEmpty(ev.Text, "error")})
		e.errSent = true
	case agent.EventDone:
		out = append(out, e.done(ev.Done)...)
	}
	return out
}

// approval is a permission ask's data-nova-approval-required part.
func (e *uiEncoder) approval(ev agent.Event) []uiChunk {
	if ev.Ask == nil {
		return nil
	}
	out := e.closeParts()
	a := ev.Ask
	d := approvalData{RequestID: a.RequestID, ToolCallID: a.ID, ToolName: a.Tool, Input: llm.SafeInput(a.Input),
		Reason: a.Decision.Reason, Suggestions: a.Suggestions, ParentToolUseID: ev.ParentToolUseID, Agent: ev.Agent}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(a.Input, &in) == nil {
		d.Command = in.Command
	}
	return append(out, uiChunk{Type: "data-nova-approval-required", ID: a.RequestID, Data: mustJSON(d)})
}

// done closes the stream's last step and says how the run ended: finish
// with the SDK's finish reason, an error before it when the run failed,
// abort when it was interrupted.
func (e *uiEncoder) done(d *agent.Done) []uiChunk {
	out := e.closeParts()
	if e.inStep {
		out = append(out, uiChunk{Type: "finish-step"})
		e.inStep = false
	}
	if d == nil {
		return append(out, uiChunk{Type: "finish", FinishReason: "other"})
	}
	switch {
	case d.Subtype == agent.SubtypeInterrupted:
		return append(out, uiChunk{Type: "abort", Reason: "interrupted"})
	case d.Subtype == agent.SubtypeMaxTurns:
		// Before the error cases: the agent marks a run it stopped at
		// the turn limit IsError (Claude Code's error_max_turns), but
		// nothing failed. The ai package's "other" is a stop for another
		// reason ("length" is the output token limit, "error" makes the
		// client show a failure); the notice says which.
		return append(out, uiChunk{Type: "data-nova-notice", Data: mustJSON(map[string]string{"text": nonEmpty(d.Error, "stopped at the maximum number of turns")})},
			uiChunk{Type: "finish", FinishReason: "other"})
	case (d.IsError || d.Subtype == agent.SubtypeError) && e.errSent:
		// The run's error event already said why; a second error part
		// would show the failure twice.
		return append(out, uiChunk{Type: "finish", FinishReason: "error"})
	case d.IsError || d.Subtype == agent.SubtypeError:
		return append(out, uiChunk{Type: "error", ErrorText: nonEmpty(d.Error, "the run failed")}, uiChunk{Type: "finish", FinishReason: "error"})
	}
	return append(out, uiChunk{Type: "finish", FinishReason: finishReason(d.StopReason)})
}

// step opens a step when a part comes outside one (a run whose first
// event is not a turn start).
func (e *uiEncoder) step() []uiChunk {
	if e.inStep {
		return nil
	}
	e.inStep = true
	return []uiChunk{{Type: "start-step"}}
}

func (e *uiEncoder) closeParts() []uiChunk {
	var out []uiChunk
	if e.text != "" {
		out = append(out, uiChunk{Type: "text-end", ID: e.text})
		e.text = ""
	}
	if e.reasoning != "" {
		out = append(out, uiChunk{Type: "reasoning-end", ID: e.reasoning})
		e.reasoning = ""
	}
	return out
}

func (e *uiEncoder) id(kind string) string {
	e.n++
	return fmt.Sprintf("%s_%s_%d", kind, e.messageID, e.n)
}

// finishReason maps a model stop reason to the SDK's finish reasons.
func finishReason(r llm.StopReason) string {
	switch r {
	case llm.StopEndTurn, llm.StopSequence, "":
		return "stop"
	case llm.StopMaxTokens:
		return "length"
	case llm.StopToolUse:
		return "tool-calls"
	case llm.StopRefusal:
		return "content-filter"
	}
	return "other"
}

func nonNilTodos(t []display.Todo) []display.Todo {
	if t == nil {
		return []display.Todo{}
	}
	return t
}

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func strPtr(s string) *string { return &s }

// mustJSON marshals values that always marshal (plain structs and maps of
// strings); a failure would be a bug here, shown rather than hidden.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return b
}
