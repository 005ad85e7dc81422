package remote

import (
	"encoding/json"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// A subagent's work in the AI SDK's UI message stream. The stream has
// one message and no nesting: a subagent's text must not land in the
// answer's text part, and a tool part whose call the SDK did not see
// start is an error. So each subagent is one data-nova-subagent part
// (id "subagent_<Agent call id>") that its events update in place (the
// SDK replaces a data part of the same type and id): what it wrote, and
// its tool calls with their state. Its approvals are the usual
// data-nova-approval-required parts, naming the Agent call.

// subagentData is a data-nova-subagent part's data.
type subagentData struct {
	ParentToolUseID string          `json:"parentToolUseId"`
	Agent           *agent.AgentRef `json:"agent,omitempty"`
	Text            string          `json:"text"`
	Tools           []subagentTool  `json:"tools"`
}

// subagentTool is one tool call of a subagent.
type subagentTool struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	// State is the SDK's tool states: "input-available",
	// "output-available" or "output-error".
	State  string `json:"state"`
	Output string `json:"output,omitempty"`
}

// subagentEvent encodes an event of a subagent's work (ParentToolUseID
// set). Text and thinking only grow the part's text, sent with the next
// change that is not text, or when the Agent call ends.
func (e *uiEncoder) subagentEvent(ev agent.Event) []uiChunk {
	if e.subs == nil {
		e.subs = map[string]*subagentData{}
	}
	d := e.subs[ev.ParentToolUseID]
	if d == nil {
		d = &subagentData{ParentToolUseID: ev.ParentToolUseID, Tools: []subagentTool{}}
		e.subs[ev.ParentToolUseID] = d
	}
	if ev.Agent != nil {
		d.Agent = ev.Agent
	}
	switch ev.Type {
	case agent.EventTextDelta:
		d.Text += ev.Text
		return nil
	case agent.EventToolCall:
		if ev.ToolCall == nil {
			return nil
		}
		d.Tools = append(d.Tools, subagentTool{ToolCallID: ev.ToolCall.ID, ToolName: ev.ToolCall.Name,
			Input: llm.SafeInput(ev.ToolCall.Input), State: "input-available"})
	case agent.EventToolResult:
		if ev.Result == nil {
			return nil
		}
		for i := range d.Tools {
			if t := &d.Tools[i]; t.ToolCallID == ev.Result.ID {
				t.State, t.Output = "output-available", ev.Result.Output
				if ev.Result.IsError || ev.Result.Denied {
					t.State = "output-error"
				}
			}
		}
	case agent.EventPermissionAsk:
		out := []uiChunk{e.subagentPart(d)}
		return append(out, e.approval(ev)...)
	default:
		return nil // its thinking, todos, progress and notices stay out of the answer
	}
	return []uiChunk{e.subagentPart(d)}
}

// subagentDone sends the last state of the subagent that worked for the
// Agent call id, if one did, before that call's result.
func (e *uiEncoder) subagentDone(id string) []uiChunk {
	d := e.subs[id]
	if d == nil {
		return nil
	}
	delete(e.subs, id)
	return []uiChunk{e.subagentPart(d)}
}

func (e *uiEncoder) subagentPart(d *subagentData) uiChunk {
	return uiChunk{Type: "data-nova-subagent", ID: "subagent_" + d.ParentToolUseID, Data: mustJSON(d)}
}
