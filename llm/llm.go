// Package llm holds the provider-neutral model types (messages, parts, tool
// specs, stream events, usage) and the Client interface that every provider
// implements. It knows nothing of tools' implementations: tool specs and tool
// calls travel as data.
package llm

import (
	"context"
	"encoding/json"
)

// Role is who authored a message.
type Role string

// The two roles a conversation carries. Tool results travel in user messages,
// as both Anthropic and the Responses API expect.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// PartType names the kind of a message part.
type PartType string

// The part kinds a message may hold.
const (
	PartText       PartType = "text"
	PartImage      PartType = "image"
	PartThinking   PartType = "thinking"
	PartToolCall   PartType = "tool_call"
	PartToolResult PartType = "tool_result"
	// PartToolReference names a deferred tool (ToolName) inside a tool
	// result's content: the result loads that tool's definition (a
	// ToolSearch answer). It is allowed nowhere else.
	PartToolReference PartType = "tool_reference"
)

// Part is one piece of a message. Exactly the fields of its Type are set.
type Part struct {
	Type PartType `json:"type"`
	// Text is the text of a text or thinking part.
	Text string `json:"text,omitempty"`
	// Signature is the provider's signature of a thinking part; Anthropic
	// requires it back unchanged when thinking precedes a tool call.
	Signature string `json:"signature,omitempty"`
	// MediaType and Data hold an image ("image/png", raw bytes).
	MediaType string `json:"media_type,omitempty"`
	Data      []byte `json:"data,omitempty"`
	// ToolCall is set on tool_call parts.
	ToolCall *ToolCall `json:"tool_call,omitempty"`
	// ToolResult is set on tool_result parts.
	ToolResult *ToolResult `json:"tool_result,omitempty"`
	// ToolName is the tool a tool_reference part loads.
	ToolName string `json:"tool_name,omitempty"`
}

// ToolCall is a complete request by the model to run a tool.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolResult answers one ToolCall. Content holds text, image and
// tool_reference parts.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Name    string `json:"name,omitempty"`
	Content []Part `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Message is one turn of the conversation.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"parts"`
}

// Text returns the concatenated text parts of m.
func (m Message) Text() string {
	var s string
	for _, p := range m.Parts {
		if p.Type == PartText {
			s += p.Text
		}
	}
	return s
}

// ToolCalls returns the tool calls m carries, in order.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if p.Type == PartToolCall && p.ToolCall != nil {
			calls = append(calls, *p.ToolCall)
		}
	}
	return calls
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Type: PartText, Text: s} }

// UserText returns a user message holding one text part.
func UserText(s string) Message { return Message{Role: RoleUser, Parts: []Part{TextPart(s)}} }

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	// Deferred keeps the tool's definition out of the model's context
	// until a tool_reference part in the history loads it (tool search):
	// Anthropic is sent it with defer_loading, so the tool list, and the
	// cached prompt prefix, stay the same when it loads; providers without
	// the feature are sent it only once it is loaded (LoadedTools).
	Deferred bool `json:"deferred,omitempty"`
}

// ToolReference returns a tool_reference part loading the tool name.
func ToolReference(name string) Part { return Part{Type: PartToolReference, ToolName: name} }

// Request is one call to a model.
type Request struct {
	Model     string     `json:"model"`
	System    string     `json:"system,omitempty"`
	Messages  []Message  `json:"messages"`
	Tools     []ToolSpec `json:"tools,omitempty"`
	MaxTokens int        `json:"max_tokens,omitempty"`
	// ThinkingBudget asks for extended thinking with that many tokens when
	// the provider and model support it; 0 turns it off.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
}

// Usage counts tokens of one model response.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}

// StopReason says why the model stopped.
type StopReason string

// Stop reasons, normalised across providers.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopSequence  StopReason = "stop_sequence"
	StopRefusal   StopReason = "refusal"
)

// EventType names a StreamEvent.
type EventType string

// Stream event kinds.
const (
	// EventTextDelta carries new answer text in Text.
	EventTextDelta EventType = "text_delta"
	// EventThinkingDelta carries new thinking text in Text.
	EventThinkingDelta EventType = "thinking_delta"
	// EventThinkingDone closes a thinking block; Signature holds its signature.
	EventThinkingDone EventType = "thinking_done"
	// EventToolCall carries one complete tool call (its input fully parsed).
	EventToolCall EventType = "tool_call"
	// EventUsage carries token counts; it may come more than once and the
	// last one of a response holds the totals.
	EventUsage EventType = "usage"
	// EventStop carries the stop reason; it is the last event of a response.
	EventStop EventType = "stop"
	// EventRetry says a failed attempt is being retried; Retry says why and when.
	EventRetry EventType = "retry"
)

// StreamEvent is one event of a streamed model response.
type StreamEvent struct {
	Type       EventType  `json:"type"`
	Text       string     `json:"text,omitempty"`
	Signature  string     `json:"signature,omitempty"`
	ToolCall   *ToolCall  `json:"tool_call,omitempty"`
	Usage      *Usage     `json:"usage,omitempty"`
	StopReason StopReason `json:"stop_reason,omitempty"`
	Retry      *RetryInfo `json:"retry,omitempty"`
}

// Client streams one model response.
type Client interface {
	// Stream sends req and calls emit for each event of the response, in
	// order, from the calling goroutine. It returns nil after EventStop, or
	// an error (an *APIError where the provider said something) otherwise.
	// Cancelling ctx aborts the request.
	Stream(ctx context.Context, req Request, emit func(StreamEvent)) error
}
