package hooks

import (
	"encoding/json"
	"strings"
)

// Input is one firing of an event: its own fields, with Claude Code's
// names, which the engine sends over the fields every event carries
// (session_id, transcript_path, cwd, permission_mode, hook_event_name).
// Build it with the constructors below.
type Input struct {
	Event  Event
	Fields map[string]any
}

// match is the value the event's matcher is tested against.
func (in Input) match() string {
	s, _ := in.Fields[specs[in.Event].match].(string)
	return s
}

// ToolInput is a PreToolUse firing: the call's name, input and id.
func ToolInput(name string, input json.RawMessage, id string) Input {
	return Input{Event: PreToolUse, Fields: map[string]any{"tool_name": name, "tool_input": rawOrEmpty(input), "tool_use_id": id}}
}

// PostToolInput is a PostToolUse firing: the call and what it returned.
// response is the tool's result as hooks see it (for Bash the object
// Claude Code gives: stdout, stderr, interrupted, isImage).
func PostToolInput(name string, input json.RawMessage, id string, response any) Input {
	return Input{Event: PostToolUse, Fields: map[string]any{"tool_name": name, "tool_input": rawOrEmpty(input), "tool_use_id": id,
		"tool_response": response}}
}

// FailureInput is a PostToolUseFailure firing: the call, the error the
// model is shown, and whether it was an interruption.
func FailureInput(name string, input json.RawMessage, id, errText string, interrupt bool) Input {
	return Input{Event: PostToolUseFailure, Fields: map[string]any{"tool_name": name, "tool_input": rawOrEmpty(input), "tool_use_id": id,
		"error": errText, "is_interrupt": interrupt}}
}

// PermissionInput is a PermissionRequest firing: the call (no id, as
// Claude Code's) and the rules "allow always" would save, in Claude
// Code's permission_suggestions shape.
func PermissionInput(name string, input json.RawMessage, suggestions []string) Input {
	f := map[string]any{"tool_name": name, "tool_input": rawOrEmpty(input)}
	if len(suggestions) > 0 {
		var rules []map[string]string
		for _, s := range suggestions {
			r := map[string]string{"toolName": s}
			if tool, spec, ok := strings.Cut(s, "("); ok && strings.HasSuffix(spec, ")") {
				r = map[string]string{"toolName": tool, "ruleContent": strings.TrimSuffix(spec, ")")}
			}
			rules = append(rules, r)
		}
		f["permission_suggestions"] = []map[string]any{{"type": "addRules", "rules": rules, "behavior": "allow", "destination": "localSettings"}}
	}
	return Input{Event: PermissionRequest, Fields: f}
}

// PromptInput is a UserPromptSubmit firing.
func PromptInput(prompt string) Input {
	return Input{Event: UserPromptSubmit, Fields: map[string]any{"prompt": prompt}}
}

// StopInput is a Stop firing: active says the agent is already going on
// because a Stop hook blocked; last is the final answer's text.
func StopInput(active bool, last string) Input {
	return Input{Event: Stop, Fields: map[string]any{"stop_hook_active": active, "last_assistant_message": last}}
}

// SessionStartInput is a SessionStart firing: source is "startup",
// "resume", "clear" or "compact".
func SessionStartInput(source, model string) Input {
	f := map[string]any{"source": source}
	if model != "" {
		f["model"] = model
	}
	return Input{Event: SessionStart, Fields: f}
}

// SessionEndInput is a SessionEnd firing: reason is "clear", "resume",
// "prompt_input_exit" or "other".
func SessionEndInput(reason string) Input {
	return Input{Event: SessionEnd, Fields: map[string]any{"reason": reason}}
}

// NotificationInput is a Notification firing; typ is its
// notification_type ("permission_prompt").
func NotificationInput(message, title, typ string) Input {
	return Input{Event: Notification, Fields: map[string]any{"message": message, "title": title, "notification_type": typ}}
}

// PreCompactInput is a PreCompact firing: trigger is "manual" or "auto";
// custom_instructions is null when none were given.
func PreCompactInput(trigger, instructions string) Input {
	var ci any
	if instructions != "" {
		ci = instructions
	}
	return Input{Event: PreCompact, Fields: map[string]any{"trigger": trigger, "custom_instructions": ci}}
}

// PostCompactInput is a PostCompact firing, with the summary made.
func PostCompactInput(trigger, summary string) Input {
	return Input{Event: PostCompact, Fields: map[string]any{"trigger": trigger, "compact_summary": summary}}
}

// TurnInput is a TurnStart or TurnEnd firing: the turn number from 1 and,
// at the end, why the model stopped.
func TurnInput(ev Event, turn int, stopReason string) Input {
	f := map[string]any{"turn": turn}
	if ev == TurnEnd {
		f["stop_reason"] = stopReason
	}
	return Input{Event: ev, Fields: f}
}

// rawOrEmpty keeps a tool input that is not JSON (a garbled call) from
// making the whole event unencodable: the hook gets {} then.
func rawOrEmpty(in json.RawMessage) json.RawMessage {
	if len(in) == 0 || !json.Valid(in) {
		return json.RawMessage(`{}`)
	}
	return in
}

// SubagentStartInput is a SubagentStart firing: a subagent of type
// agentType (what matchers test) starts, with id agentID.
func SubagentStartInput(agentID, agentType string) Input {
	return Input{Event: SubagentStart, Fields: map[string]any{"agent_id": agentID, "agent_type": agentType}}
}

// SubagentStopInput is a SubagentStop firing: the subagent is done;
// active says it is already going on because a SubagentStop hook
// blocked; transcript is its own transcript's path and last its final
// answer's text.
func SubagentStopInput(active bool, agentID, agentType, transcript, last string) Input {
	return Input{Event: SubagentStop, Fields: map[string]any{"stop_hook_active": active, "agent_id": agentID, "agent_type": agentType,
		"agent_transcript_path": transcript, "last_assistant_message": last}}
}
