// Package hooks runs what a person configured under "hooks" in their
// settings files at the points of a session Claude Code names
// (PreToolUse, Stop, ...), with Claude Code's contract: the event as JSON
// on stdin (a POST body for http hooks, the prompt of a model for prompt
// hooks), and an exit code and optional JSON on stdout that can block,
// allow, rewrite a tool's input, add context for the model or stop the run.
//
// The Engine matches and runs hooks and says what they decided (Outcome);
// it decides nothing itself. The tool pipeline acts on PreToolUse,
// PermissionRequest and PostToolUse (Engine.Tools), the agent on the rest.
package hooks

import "time"

// Event names a point of a session where hooks run.
type Event string

// The events nova fires, with Claude Code's names, and nova's TurnStart
// and TurnEnd.
const (
	SessionStart       Event = "SessionStart"
	SessionEnd         Event = "SessionEnd"
	UserPromptSubmit   Event = "UserPromptSubmit"
	PreToolUse         Event = "PreToolUse"
	PermissionRequest  Event = "PermissionRequest"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	Notification       Event = "Notification"
	Stop               Event = "Stop"
	// SubagentStart and SubagentStop frame a subagent's work (the Agent
	// tool): Start's context goes to the subagent; a Stop that blocks
	// sends the subagent back to work, as Stop does the main agent.
	SubagentStart Event = "SubagentStart"
	SubagentStop  Event = "SubagentStop"
	PreCompact    Event = "PreCompact"
	PostCompact   Event = "PostCompact"
	// TurnStart and TurnEnd are nova's own: before each model request of a
	// run and after its tool calls have run.
	TurnStart Event = "TurnStart"
	TurnEnd   Event = "TurnEnd"
)

// Events lists every event nova knows, in the order of a session.
func Events() []Event {
	return []Event{SessionStart, UserPromptSubmit, TurnStart, PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure,
		Notification, SubagentStart, SubagentStop, TurnEnd, Stop, PreCompact, PostCompact, SessionEnd}
}

// Kinds of hook handler ("type" in the settings).
const (
	KindCommand = "command"
	KindHTTP    = "http"
	KindPrompt  = "prompt"
	// KindAgent has a subagent judge: one with read-only tools, so it
	// can look at the files before it answers as a prompt hook does.
	KindAgent = "agent"
)

// Default timeouts, as Claude Code's where nova follows it: a prompt hook
// and any hook on UserPromptSubmit (which holds up every prompt) get 30
// seconds; everything else 60.
const (
	DefaultTimeout       = 60 * time.Second
	DefaultPromptTimeout = 30 * time.Second
	// DefaultAgentTimeout is an agent hook's, Claude Code's: the
	// subagent may take several turns.
	DefaultAgentTimeout = 60 * time.Second
	promptSubmitTimeout = 30 * time.Second
)

// spec is what nova knows of an event.
type spec struct {
	// match is the input field the matcher is tested against; "" means
	// the event takes no matcher (a configured one is ignored).
	match string
	// kinds are the handler types the event runs, as Claude Code's.
	kinds []string
	// guard says a hook that cannot answer (timed out, could not start,
	// killed, unreachable) blocks: a broken guard must not open the door.
	guard bool
	// plainContext says plain stdout on exit 0 is context for the model.
	plainContext bool
	// fired is false for events nova defines but cannot fire yet.
	fired bool
}

var (
	allKinds     = []string{KindCommand, KindHTTP, KindPrompt, KindAgent}
	commandHTTP  = []string{KindCommand, KindHTTP}
	commandOnly  = []string{KindCommand}
	noAgentKinds = []string{KindCommand, KindHTTP, KindPrompt}
)

// specs is the table of events; nobody writes it.
var specs = map[Event]spec{
	SessionStart:       {match: "source", kinds: commandOnly, plainContext: true, fired: true},
	SessionEnd:         {match: "reason", kinds: commandHTTP, fired: true},
	UserPromptSubmit:   {kinds: allKinds, plainContext: true, fired: true},
	PreToolUse:         {match: "tool_name", kinds: allKinds, guard: true, fired: true},
	PermissionRequest:  {match: "tool_name", kinds: noAgentKinds, guard: true, fired: true},
	PostToolUse:        {match: "tool_name", kinds: allKinds, fired: true},
	PostToolUseFailure: {match: "tool_name", kinds: allKinds, fired: true},
	Notification:       {match: "notification_type", kinds: commandHTTP, fired: true},
	Stop:               {kinds: allKinds, fired: true},
	SubagentStart:      {match: "agent_type", kinds: commandHTTP, fired: true},
	SubagentStop:       {match: "agent_type", kinds: allKinds, fired: true},
	PreCompact:         {match: "trigger", kinds: commandHTTP, fired: true},
	PostCompact:        {match: "trigger", kinds: commandHTTP, fired: true},
	TurnStart:          {kinds: commandHTTP, fired: true},
	TurnEnd:            {kinds: commandHTTP, fired: true},
}

// known reports whether nova knows ev.
func known(ev Event) bool {
	_, ok := specs[ev]
	return ok
}

func (s spec) runs(kind string) bool {
	for _, k := range s.kinds {
		if k == kind {
			return true
		}
	}
	return false
}
