package agent

import (
	"encoding/json"
	"sync"

	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
)

// EventType names an Event.
type EventType string

// The events of a run, in the order a frontend meets them.
const (
	EventTurnStart     EventType = "turn_start"
	EventTextDelta     EventType = "text_delta"
	EventThinkingDelta EventType = "thinking_delta"
	EventToolCall      EventType = "tool_call"
	EventPermissionAsk EventType = "permission_ask"
	EventQuestion      EventType = "question"
	EventAnswered      EventType = "answered"
	EventToolResult    EventType = "tool_result"
	EventTodos         EventType = "todos"
	EventToolProgress  EventType = "tool_progress"
	EventTurnEnd       EventType = "turn_end"
	EventContext       EventType = "context"
	EventCompaction    EventType = "compaction"
	EventRetry         EventType = "retry"
	EventNotice        EventType = "notice"
	EventError         EventType = "error"
	EventDone          EventType = "done"
	// EventHook is a hook run's start or end, sent only when the agent
	// was asked to (Config.HookEvents).
	EventHook EventType = "hook"
)

// Event is one thing that happened in a run. It is plain data and marshals
// to JSON; only the fields of its Type are set.
type Event struct {
	Type EventType `json:"type"`
	// Turn is the model turn the event belongs to, from 1.
	Turn int `json:"turn,omitempty"`
	// Text is the new text of a delta, or the words of a notice or error.
	Text string `json:"text,omitempty"`
	// ToolCall is set on tool_call events.
	ToolCall *llm.ToolCall `json:"tool_call,omitempty"`
	// Hook is set on hook events.
	Hook *hooks.Observation `json:"hook,omitempty"`
	// Ask is set on permission_ask events; answer it with Ask.Answer.
	Ask *PermissionAsk `json:"ask,omitempty"`
	// Question is set on question events; answer it with Question.Answer.
	Question *QuestionAsk `json:"question,omitempty"`
	// Answered is set on answered events: an ask or a question of the run
	// has had its answer.
	Answered *Answered `json:"answered,omitempty"`
	// Result is set on tool_result events.
	Result *ToolResult `json:"result,omitempty"`
	// Todos is set on todos events: the whole current list.
	Todos []display.Todo `json:"todos,omitempty"`
	// Progress is set on tool_progress events: how far a running call
	// has got.
	Progress *display.Progress `json:"progress,omitempty"`
	// Usage is set on turn_end (that turn) and done (the run's totals).
	Usage *llm.Usage `json:"usage,omitempty"`
	// StopReason is set on turn_end and done.
	StopReason llm.StopReason `json:"stop_reason,omitempty"`
	// Context is set on context events.
	Context *ContextUsage `json:"context,omitempty"`
	// Compaction is set on compaction events.
	Compaction *Compaction `json:"compaction,omitempty"`
	// Retry is set on retry events. With Retry.DiscardPartial the turn's
	// response is starting over: the text, thinking and tool calls it
	// streamed before this event are void (none of the calls ran), and a
	// frontend drops them; the new attempt's events follow.
	Retry *llm.RetryInfo `json:"retry,omitempty"`
	// Done is set on the done event, the last of every run.
	Done *Done `json:"done,omitempty"`
	// ParentToolUseID is set on the events of a subagent's work: the id
	// of the Agent tool call it works for (Claude Code's
	// parent_tool_use_id). A frontend shows them nested under that call,
	// never as the run's own answer, todos or context. A subagent's work
	// sends no done and no context event: the call's tool_result, which
	// has no ParentToolUseID, ends it. Its permission asks and questions
	// are answered like the run's own.
	ParentToolUseID string `json:"parent_tool_use_id,omitempty"`
	// Agent is set with ParentToolUseID: which subagent did it.
	Agent *AgentRef `json:"agent,omitempty"`
}

// AgentRef names the subagent an event comes from.
type AgentRef struct {
	// ID is the subagent's id, unique in the session ("a1b2c3d4").
	ID string `json:"id"`
	// Type is its agent type ("Explore", "general-purpose", a custom
	// agent's name).
	Type string `json:"type"`
	// Description is the call's short description of the task.
	Description string `json:"description,omitempty"`
}

// PermissionAsk is a tool call waiting for a person. Answer it exactly once;
// the agent waits until then or until the run's context ends (a denial).
type PermissionAsk struct {
	ID string `json:"id"` // stable: the tool call id
	// RequestID names this ask, once: a remote answers it by this id.
	RequestID   string              `json:"request_id"`
	Tool        string              `json:"tool"`
	Input       json.RawMessage     `json:"input"`
	Decision    permission.Decision `json:"decision"`
	Suggestions []string            `json:"suggestions,omitempty"`
	// Preview is what the call would change (the diff of an edit), so
	// the person sees what they approve; nil when the tool cannot say.
	Preview *display.Display `json:"preview,omitempty"`
	// Host is the host a sandboxed command asks to reach (the network
	// question); "" for the call's own ask. Denying it refuses that host
	// only: the command goes on, so a "no" need not stop the turn.
	Host string `json:"host,omitempty"`

	once  sync.Once
	reply chan PermissionAnswer
}

// Answer delivers the person's answer; later calls are ignored. It
// reports whether this answer is the one taken: several frontends may
// show the same ask (a terminal shared with browsers), and the first to
// answer wins.
func (a *PermissionAsk) Answer(ans PermissionAnswer) bool {
	taken := false
	a.once.Do(func() { a.reply <- ans; taken = true })
	return taken
}

// PermissionAnswer is a person's answer to a PermissionAsk.
type PermissionAnswer struct {
	Allow bool `json:"allow"`
	// Always, with Allow, saves Rule (one of the ask's suggestions) so the
	// same call is not asked again.
	Always bool   `json:"always,omitempty"`
	Rule   string `json:"rule,omitempty"`
	// Message goes to the model with a denial.
	Message string `json:"message,omitempty"`
	// Interrupt, with a denial, also ends the run at once, as an
	// interrupt does (the TUI's "No"); nothing after the call runs.
	Interrupt bool `json:"interrupt,omitempty"`
	// UpdatedInput, with Allow, is the input to run in place of the
	// model's (the Agent SDK's updatedInput); the call is checked again
	// with it, so what the checker denies outright stays denied.
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"`
}

// approval is what the pipeline does with the answer.
func (a PermissionAnswer) approval() tools.Approval {
	ap := tools.Approval{Allow: a.Allow, Message: a.Message, Stop: !a.Allow && a.Interrupt}
	if a.Allow && len(a.UpdatedInput) > 0 {
		ap.Input = a.UpdatedInput
	}
	if a.Allow && a.Always {
		ap.Rule = a.Rule
	}
	return ap
}

// QuestionAsk carries AskUserQuestion questions to a person.
type QuestionAsk struct {
	ID        string           `json:"id"`
	Questions []tools.Question `json:"questions"`

	once  sync.Once
	reply chan []string
}

// Answer delivers the answers, one per question in order; nil means the
// person declined to answer. Like PermissionAsk.Answer, it reports
// whether these answers are the ones taken (the first given).
func (q *QuestionAsk) Answer(answers []string) bool {
	taken := false
	q.once.Do(func() { q.reply <- answers; taken = true })
	return taken
}

// Answered follows a permission ask or a question once it has its
// answer, whoever gave it. Every frontend that shows the ask closes it
// then: the ones that did not answer learn that another did.
type Answered struct {
	// ID is the ask's: the PermissionAsk's (its tool call's) or the
	// QuestionAsk's.
	ID string `json:"id"`
	// RequestID is the PermissionAsk's; "" for a question.
	RequestID string `json:"request_id,omitempty"`
	// Allow says the call was allowed; false for a denial and for a
	// question.
	Allow bool `json:"allow"`
}

// ToolResult is a finished tool call.
type ToolResult struct {
	ID         string              `json:"id"`
	Name       string              `json:"name"`
	Output     string              `json:"output"`
	IsError    bool                `json:"is_error,omitempty"`
	Denied     bool                `json:"denied,omitempty"`
	Decision   permission.Decision `json:"decision"`
	SpillPath  string              `json:"spill_path,omitempty"`
	DurationMS int64               `json:"duration_ms"`
	Display    *display.Display    `json:"display,omitempty"`
}

// ContextUsage is how full the context window is (seed 000's
// GET /api/sessions/{id}/context).
type ContextUsage struct {
	Used         int `json:"used"`
	Limit        int `json:"limit"`
	Percent      int `json:"percent"`
	MessageCount int `json:"message_count"`
}

// Compaction reports a compaction of history.
type Compaction struct {
	Before int `json:"before_tokens"`
	After  int `json:"after_tokens"`
}

// Done ends a run.
type Done struct {
	// Result is the final answer text.
	Result string `json:"result"`
	// Subtype is "success", "error_max_turns", "error_max_budget_usd",
	// "error_during_execution" or "interrupted".
	Subtype    string         `json:"subtype"`
	IsError    bool           `json:"is_error"`
	Error      string         `json:"error,omitempty"`
	StopReason llm.StopReason `json:"stop_reason,omitempty"`
	NumTurns   int            `json:"num_turns"`
	Usage      llm.Usage      `json:"usage"`
	// CostUSD is what the run's requests cost, in US dollars, when the
	// model's prices are known (Priced); 0 otherwise.
	CostUSD float64 `json:"cost_usd,omitempty"`
	Priced  bool    `json:"priced,omitempty"`
	// Denials lists every call that was denied in the run.
	Denials []Denial `json:"permission_denials"`
}

// Denial is one denied tool call.
type Denial struct {
	ToolName  string           `json:"tool_name"`
	ToolUseID string           `json:"tool_use_id"`
	ToolInput json.RawMessage  `json:"tool_input"`
	Layer     permission.Layer `json:"layer"`
	Reason    string           `json:"reason"`
}

// Done subtypes.
const (
	SubtypeSuccess     = "success"
	SubtypeMaxTurns    = "error_max_turns"
	SubtypeMaxBudget   = "error_max_budget_usd"
	SubtypeError       = "error_during_execution"
	SubtypeInterrupted = "interrupted"
)
