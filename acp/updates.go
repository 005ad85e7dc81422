package acp

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	novasession "github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/tools/display"
)

// maxShown bounds the text of a tool result shown in the editor: the
// model saw it whole (or spilled), the person needs the gist.
const maxShown = 8000

// updates are the session updates one event of a run becomes. A
// subagent's text and thinking stay inside its Agent call (its result
// carries its report); its tool calls are shown, so the person sees what
// an ask they answer is about.
func updates(ev agent.Event) []acpsdk.SessionUpdate {
	sub := ev.ParentToolUseID != ""
	switch ev.Type {
	case agent.EventTextDelta:
		if !sub && ev.Text != "" {
			return []acpsdk.SessionUpdate{acpsdk.UpdateAgentMessageText(ev.Text)}
		}
	case agent.EventThinkingDelta:
		if !sub && ev.Text != "" {
			return []acpsdk.SessionUpdate{acpsdk.UpdateAgentThoughtText(ev.Text)}
		}
	case agent.EventToolCall:
		if ev.ToolCall != nil {
			return []acpsdk.SessionUpdate{startCall(*ev.ToolCall)}
		}
	case agent.EventToolResult:
		if r := ev.Result; r != nil {
			return []acpsdk.SessionUpdate{finishCall(r.ID, r.Name, r.Output, r.IsError || r.Denied, r.Display)}
		}
	case agent.EventTodos:
		if !sub {
			return []acpsdk.SessionUpdate{plan(ev.Todos)}
		}
	case agent.EventNotice, agent.EventRetry, agent.EventError:
		if !sub && ev.Text != "" {
			// What nova tells the person beside the answer.
			return []acpsdk.SessionUpdate{acpsdk.UpdateAgentThoughtText("nova: " + ev.Text + "\n")}
		}
	}
	return nil
}

// startCall announces a tool call: its kind, the files it touches and,
// for an edit, the change it makes.
func startCall(c llm.ToolCall) acpsdk.SessionUpdate {
	return acpsdk.StartToolCall(acpsdk.ToolCallId(c.ID), toolTitle(c),
		acpsdk.WithStartKind(toolKind(c.Name)),
		acpsdk.WithStartStatus(acpsdk.ToolCallStatusPending),
		acpsdk.WithStartLocations(locations(c)),
		acpsdk.WithStartContent(callContent(c)),
		acpsdk.WithStartRawInput(rawJSON(c.Input)))
}

// finishCall ends a tool call with what it returned.
func finishCall(id, name, output string, failed bool, d *display.Display) acpsdk.SessionUpdate {
	status := acpsdk.ToolCallStatusCompleted
	if failed {
		status = acpsdk.ToolCallStatusFailed
	}
	opts := []acpsdk.ToolCallUpdateOpt{acpsdk.WithUpdateStatus(status), acpsdk.WithUpdateRawOutput(map[string]any{"output": output})}
	if shown := clip(output, maxShown); shown != "" && (failed || !isEdit(name) || d == nil) {
		opts = append(opts, acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(shown))}))
	}
	return acpsdk.UpdateToolCall(acpsdk.ToolCallId(id), opts...)
}

// plan is the todo list as the session's plan.
func plan(todos []display.Todo) acpsdk.SessionUpdate {
	entries := make([]acpsdk.PlanEntry, 0, len(todos))
	for _, t := range todos {
		st := acpsdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			st = acpsdk.PlanEntryStatusInProgress
		case "completed":
			st = acpsdk.PlanEntryStatusCompleted
		}
		entries = append(entries, acpsdk.PlanEntry{Content: t.Content, Priority: acpsdk.PlanEntryPriorityMedium, Status: st})
	}
	return acpsdk.UpdatePlan(entries...)
}

// callInput is the fields of the tools' inputs that say what a call is
// about.
type callInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Path         string `json:"path"`
	Command      string `json:"command"`
	Pattern      string `json:"pattern"`
	URL          string `json:"url"`
	Description  string `json:"description"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	Content      string `json:"content"`
	Edits        []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	} `json:"edits"`
}

func decodeInput(raw json.RawMessage) callInput {
	var in callInput
	_ = json.Unmarshal(raw, &in)
	return in
}

// toolKind is the ACP kind of a nova tool, for the editor's icon.
func toolKind(name string) acpsdk.ToolKind {
	switch name {
	case "Read", "NotebookRead":
		return acpsdk.ToolKindRead
	case "Edit", "MultiEdit", "Write", "NotebookEdit", "ApplyPatch":
		return acpsdk.ToolKindEdit
	case "Bash", "BashOutput", "KillShell":
		return acpsdk.ToolKindExecute
	case "Grep", "Glob", "LS", "ToolSearch":
		return acpsdk.ToolKindSearch
	case "WebFetch", "WebSearch":
		return acpsdk.ToolKindFetch
	case "TodoWrite", "Agent", "Task", "EnterPlanMode", "ExitPlanMode":
		return acpsdk.ToolKindThink
	}
	return acpsdk.ToolKindOther
}

func isEdit(name string) bool { return toolKind(name) == acpsdk.ToolKindEdit }

// toolTitle is a call in a few words: the tool and what it works on.
func toolTitle(c llm.ToolCall) string {
	in := decodeInput(c.Input)
	for _, what := range []string{in.FilePath, in.NotebookPath, in.Command, in.Pattern, in.URL, in.Path, in.Description} {
		if what != "" {
			return c.Name + " " + clip(firstLine(what), 120)
		}
	}
	return c.Name
}

// locations are the files a call touches, so the editor can follow it.
func locations(c llm.ToolCall) []acpsdk.ToolCallLocation {
	in := decodeInput(c.Input)
	for _, p := range []string{in.FilePath, in.NotebookPath} {
		if p != "" {
			return []acpsdk.ToolCallLocation{{Path: p}}
		}
	}
	if in.Path != "" && toolKind(c.Name) != acpsdk.ToolKindExecute {
		return []acpsdk.ToolCallLocation{{Path: in.Path}}
	}
	return nil
}

// callContent is what an edit will change, as the diffs the editor
// shows: the replaced text and its replacement, or a written file's new
// text.
func callContent(c llm.ToolCall) []acpsdk.ToolCallContent {
	in := decodeInput(c.Input)
	switch c.Name {
	case "Edit":
		if in.FilePath != "" {
			return []acpsdk.ToolCallContent{acpsdk.ToolDiffContent(in.FilePath, in.NewString, in.OldString)}
		}
	case "MultiEdit":
		var out []acpsdk.ToolCallContent
		for _, e := range in.Edits {
			out = append(out, acpsdk.ToolDiffContent(in.FilePath, e.NewString, e.OldString))
		}
		return out
	case "Write":
		if in.FilePath != "" {
			return []acpsdk.ToolCallContent{acpsdk.ToolDiffContent(in.FilePath, in.Content)}
		}
	}
	return nil
}

// rawJSON is a call's input as the client sees it: the JSON itself, or
// its text when the model garbled it.
func rawJSON(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) == nil {
		return v
	}
	return string(raw)
}

// clip cuts s to at most n bytes, at a character's start, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// replay sends a loaded session's history as the updates its runs sent:
// the person's prompts, the answers and thinking, every tool call and
// what it returned.
func (s *session) replay(ctx context.Context) error {
	names := map[string]string{}
	for _, m := range s.rt().Session.Messages() {
		// nova's context message (the environment, the instruction
		// files) is not the person's words.
		m = novasession.WithoutContext(m)
		for _, p := range m.Parts {
			var u acpsdk.SessionUpdate
			switch {
			case p.Type == llm.PartText && m.Role == llm.RoleUser:
				u = acpsdk.UpdateUserMessageText(p.Text)
			case p.Type == llm.PartText:
				u = acpsdk.UpdateAgentMessageText(p.Text)
			case p.Type == llm.PartThinking:
				u = acpsdk.UpdateAgentThoughtText(p.Text)
			case p.Type == llm.PartToolCall && p.ToolCall != nil:
				names[p.ToolCall.ID] = p.ToolCall.Name
				u = startCall(*p.ToolCall)
			case p.Type == llm.PartToolResult && p.ToolResult != nil:
				r := p.ToolResult
				u = finishCall(r.CallID, names[r.CallID], llm.Message{Parts: r.Content}.Text(), r.IsError, nil)
			default:
				continue
			}
			if err := s.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: acpsdk.SessionId(s.id), Update: u}); err != nil {
				return err
			}
		}
	}
	return nil
}
