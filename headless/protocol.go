package headless

import (
	"encoding/json"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// This file is Claude Code's stream-json protocol as Go types: every
// message nova writes and every control request it reads. They are named
// after the Claude Agent SDK's TypeScript types (sdk.d.ts of
// @anthropic-ai/claude-agent-sdk, in testdata/agentsdk), so a field the
// SDK reads is a field here, checked by the golden tests of
// protocol_test.go against Claude Code's recorded output and the SDK's
// types. Payloads that are someone else's contract (a tool's input, an
// MCP server's JSON-RPC, a hook's input and answer) stay json.RawMessage:
// nova passes them through and does not own their shape.

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

// apiMessage is an Anthropic Messages API message. Content holds the
// blocks above; it is []any because a message mixes their types.
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

// sdkAssistantMessage is the SDK's SDKAssistantMessage: one content
// block of a model response, written as the block ends.
type sdkAssistantMessage struct {
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

// apiUserMessage is the user side of an Anthropic message: tool results.
type apiUserMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// sdkUserMessage is the SDK's SDKUserMessage as nova writes it: a tool's
// result going back to the model.
type sdkUserMessage struct {
	Type            string         `json:"type"`
	Message         apiUserMessage `json:"message"`
	ParentToolUseID *string        `json:"parent_tool_use_id"`
	SessionID       string         `json:"session_id"`
	UUID            string         `json:"uuid"`
	Timestamp       string         `json:"timestamp"`
}

// sdkUserMessageReplay is a user message written back
// (--replay-user-messages), the SDK's SDKUserMessageReplay. Message is
// the SDK's own, passed back as given.
type sdkUserMessageReplay struct {
	Type            string          `json:"type"`
	Message         json.RawMessage `json:"message"`
	SessionID       string          `json:"session_id"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	UUID            string          `json:"uuid"`
	Timestamp       string          `json:"timestamp"`
	IsReplay        bool            `json:"isReplay"`
}

// sdkPartialAssistantMessage is the SDK's SDKPartialAssistantMessage
// (type stream_event, --include-partial-messages): one of Anthropic's
// raw stream events, the *Event types below.
type sdkPartialAssistantMessage struct {
	Type            string  `json:"type"`
	Event           any     `json:"event"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

// Anthropic's raw stream events, as the Messages API streams them.
type messageStartEvent struct {
	Type    string     `json:"type"` // message_start
	Message apiMessage `json:"message"`
}

type contentBlockStartEvent struct {
	Type         string `json:"type"` // content_block_start
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"` // an empty block of the kinds above
}

type contentBlockDeltaEvent struct {
	Type  string `json:"type"` // content_block_delta
	Index int    `json:"index"`
	Delta any    `json:"delta"` // textDelta, thinkingDelta or inputJSONDelta
}

type textDelta struct {
	Type string `json:"type"` // text_delta
	Text string `json:"text"`
}

type thinkingDelta struct {
	Type     string `json:"type"` // thinking_delta
	Thinking string `json:"thinking"`
}

type inputJSONDelta struct {
	Type        string `json:"type"` // input_json_delta
	PartialJSON string `json:"partial_json"`
}

type contentBlockStopEvent struct {
	Type  string `json:"type"` // content_block_stop
	Index int    `json:"index"`
}

type messageDeltaEvent struct {
	Type  string           `json:"type"` // message_delta
	Delta messageDeltaBody `json:"delta"`
	Usage Usage            `json:"usage"`
}

type messageDeltaBody struct {
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

type messageStopEvent struct {
	Type string `json:"type"` // message_stop
}

// sdkSystemMessage is the SDK's SDKSystemMessage: the system/init
// message that opens every turn.
type sdkSystemMessage struct {
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

// systemHeader opens every other system message: its subtype, and the
// subagent it comes from, when one does.
type systemHeader struct {
	Type    string `json:"type"` // system
	Subtype string `json:"subtype"`
	// ParentToolUseID and AgentID name the Agent call and the subagent
	// a subagent's message comes from; absent for the run's own.
	ParentToolUseID *string `json:"parent_tool_use_id,omitempty"`
	AgentID         string  `json:"agent_id,omitempty"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

// sdkInformationalMessage is the SDK's SDKInformationalMessage: a line
// for the host to show (a notice, a warning).
type sdkInformationalMessage struct {
	systemHeader
	Content string `json:"content"`
	Level   string `json:"level"` // info, notice, suggestion or warning
}

// sdkCompactBoundaryMessage is the SDK's SDKCompactBoundaryMessage.
type sdkCompactBoundaryMessage struct {
	systemHeader
	CompactMetadata compactMetadata `json:"compact_metadata"`
}

type compactMetadata struct {
	Trigger    string `json:"trigger"` // manual or auto
	PreTokens  int    `json:"pre_tokens"`
	PostTokens int    `json:"post_tokens"`
}

// sdkPermissionDeniedMessage is the SDK's SDKPermissionDeniedMessage.
type sdkPermissionDeniedMessage struct {
	systemHeader
	ToolName           string           `json:"tool_name"`
	ToolUseID          string           `json:"tool_use_id"`
	DecisionReasonType permission.Layer `json:"decision_reason_type"`
	DecisionReason     string           `json:"decision_reason"`
	Message            string           `json:"message"`
}

// sdkAPIRetryMessage is the SDK's SDKAPIRetryMessage, with nova's text
// saying it in words and whether what was streamed is void.
type sdkAPIRetryMessage struct {
	systemHeader
	Attempt      int   `json:"attempt"`
	MaxRetries   int   `json:"max_retries"`
	RetryDelayMS int64 `json:"retry_delay_ms"`
	// ErrorStatus is the HTTP status; nova's errors do not carry it.
	ErrorStatus    *int   `json:"error_status"`
	Error          string `json:"error"`
	DiscardPartial bool   `json:"discard_partial"`
	Text           string `json:"text"`
}

// apiRetryNote is an api_retry nova knows only the words of.
type apiRetryNote struct {
	systemHeader
	Text string `json:"text"`
}

// sdkSessionStateChangedMessage is the SDK's
// SDKSessionStateChangedMessage (sdk_host_only: the SDK keeps it).
type sdkSessionStateChangedMessage struct {
	Type        string `json:"type"`    // system
	Subtype     string `json:"subtype"` // session_state_changed
	State       string `json:"state"`   // idle, running or requires_action
	SDKHostOnly bool   `json:"sdk_host_only"`
	SessionID   string `json:"session_id"`
	UUID        string `json:"uuid"`
}

// sdkToolProgressMessage is the SDK's SDKToolProgressMessage, with the
// progress a tool reported.
type sdkToolProgressMessage struct {
	Type               string  `json:"type"` // tool_progress
	ToolUseID          string  `json:"tool_use_id"`
	ToolName           string  `json:"tool_name"`
	ParentToolUseID    *string `json:"parent_tool_use_id"`
	ElapsedTimeSeconds float64 `json:"elapsed_time_seconds"`
	Progress           float64 `json:"progress"`
	Total              float64 `json:"total,omitempty"`
	Message            string  `json:"message,omitempty"`
	SessionID          string  `json:"session_id"`
	UUID               string  `json:"uuid"`
}

// novaTodosMessage (system/nova_todos) is nova's own: the todo list.
type novaTodosMessage struct {
	systemHeader
	Todos []display.Todo `json:"todos"`
}

// novaContextMessage (system/nova_context) is nova's own: how full the
// context window is.
type novaContextMessage struct {
	systemHeader
	agent.ContextUsage
}

// novaToolResultMessage (system/nova_tool_result) is nova's own: what
// decided a call and how it went, beside the user message of its result.
type novaToolResultMessage struct {
	systemHeader
	ToolUseID  string       `json:"tool_use_id"`
	ToolName   string       `json:"tool_name"`
	IsError    bool         `json:"is_error"`
	Denied     bool         `json:"denied"`
	Decision   novaDecision `json:"decision"`
	DurationMS int64        `json:"duration_ms"`
	SpillPath  string       `json:"spill_path,omitempty"`
}

type novaDecision struct {
	Behavior permission.Behavior `json:"behavior"`
	Layer    permission.Layer    `json:"layer"`
	Reason   string              `json:"reason"`
	Rule     string              `json:"rule,omitempty"`
}

// sdkHookStartedMessage is the SDK's SDKHookStartedMessage: a hook began
// (--include-hook-events). Claude Code's own were never recorded; the
// shape is the SDK's type.
type sdkHookStartedMessage struct {
	Type      string `json:"type"`    // system
	Subtype   string `json:"subtype"` // hook_started
	HookID    string `json:"hook_id"`
	HookName  string `json:"hook_name"`
	HookEvent string `json:"hook_event"`
	UUID      string `json:"uuid"`
	SessionID string `json:"session_id"`
}

// sdkHookResponseMessage is the SDK's SDKHookResponseMessage: the hook
// ended, with what it wrote and how it went.
type sdkHookResponseMessage struct {
	Type      string `json:"type"`    // system
	Subtype   string `json:"subtype"` // hook_response
	HookID    string `json:"hook_id"`
	HookName  string `json:"hook_name"`
	HookEvent string `json:"hook_event"`
	Output    string `json:"output"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	Outcome   string `json:"outcome"` // success, error or cancelled
	UUID      string `json:"uuid"`
	SessionID string `json:"session_id"`
}
