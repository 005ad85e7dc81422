package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// A history nova builds turn by turn is always one the providers accept,
// but a history read back from disk need not be: a damaged transcript line
// takes a tool call or its result with it, a full disk keeps the small
// messages and loses the large results, a model reuses a call id. The
// providers answer such a history with a 400 on every later request, which
// ends the session for good. So every request is built from a repaired
// history (RepairHistory), one that meets the rules of every provider at
// once (CheckHistory):
//
//   - Anthropic Messages: each tool_use is answered by a tool_result in the
//     very next (user) message, and those results come before any other
//     content of it; a tool_result answers a tool_use of the message just
//     before it; tool_use ids are unique and match ^[a-zA-Z0-9_-]+$; no
//     message and no text block is empty.
//   - OpenAI chat completions: each "tool" message follows the assistant
//     message holding its tool_call_id, and every tool_call is answered.
//   - OpenAI Responses: each function_call_output has a function_call with
//     its call_id, and every function_call has its output.
//
// Roles alternate and the conversation starts with the user, which every
// provider accepts (Anthropic merges consecutive turns; OpenAI-compatible
// servers differ).

// Texts that stand in for what a damaged history lost. They are errors the
// model can read, not inventions: each says what is missing.
const (
	// LostResultText answers a tool call whose result is not in the history.
	LostResultText = "nova has no result for this call: it was lost from the session's transcript " +
		"(a damaged line, or a result that could not be saved). Whether the call ran is unknown; " +
		"check before running it again."
	// LostStartText opens a history whose first user message was lost.
	LostStartText = "[nova: the start of this conversation was lost from the session's transcript.]"
	// LostResultsText ends a history whose last message held only tool
	// results that answer no call, so that it still ends with the user.
	LostResultsText = "[nova: tool results here were dropped: the calls they answered were lost from the session's transcript.]"
)

// SafeInput returns a tool call's input as JSON that can be marshalled and
// sent back: raw itself when it is valid JSON, "{}" when it is empty, and
// otherwise raw's text as a JSON string. json.RawMessage refuses to marshal
// invalid JSON, so a call whose input the model garbled would otherwise be
// lost from transcripts and events; as a string it is kept, and it still
// fails any object schema, so it never runs.
func SafeInput(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(raw) {
		return raw
	}
	b, err := json.Marshal(string(raw))
	if err != nil { // unreachable: a Go string always marshals
		return json.RawMessage("{}")
	}
	return b
}

// SafeMessage returns m with every tool call's input made safe to marshal
// (SafeInput): m itself when none needs it, else a copy that shares the
// parts it does not change.
func SafeMessage(m Message) Message {
	copied := false
	for i, p := range m.Parts {
		if p.ToolCall == nil {
			continue
		}
		in := SafeInput(p.ToolCall.Input)
		if bytes.Equal(in, p.ToolCall.Input) {
			continue
		}
		if !copied {
			m.Parts = append([]Part(nil), m.Parts...)
			copied = true
		}
		c := *p.ToolCall
		c.Input = in
		m.Parts[i].ToolCall = &c
	}
	return m
}

// UniqueCallID returns id as a tool call id that Anthropic accepts (only
// ASCII letters, digits, '_' and '-'; other bytes become '_', an empty id
// becomes "call") and that is not in taken: id itself, else id_2, id_3...
// RepairHistory names duplicate calls this way.
func UniqueCallID(id string, taken map[string]bool) string {
	b := []byte(id)
	for i, c := range b {
		if !idByte(c) {
			b[i] = '_'
		}
	}
	id = string(b)
	if id == "" {
		id = "call"
	}
	if !taken[id] {
		return id
	}
	for n := 2; ; n++ {
		if c := id + "_" + strconv.Itoa(n); !taken[c] {
			return c
		}
	}
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func validID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			return false
		}
	}
	return true
}

func validInput(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) > 0 && json.Valid(raw)
}

// CheckHistory reports the first way msgs breaks the rules above, or nil
// when every provider accepts it. How the history ends is the caller's
// concern: nova's requests end with the user's turn.
func CheckHistory(msgs []Message) error {
	ids := make(map[string]bool)
	answered := make(map[string]bool)
	var calls []ToolCall // of the message before, waiting for their results
	for i, m := range msgs {
		switch {
		case m.Role != RoleUser && m.Role != RoleAssistant:
			return fmt.Errorf("message %d: role %q is neither user nor assistant", i, m.Role)
		case i == 0 && m.Role != RoleUser:
			return fmt.Errorf("message 0: the conversation starts with an %s message", m.Role)
		case i > 0 && msgs[i-1].Role == m.Role:
			return fmt.Errorf("message %d: two %s messages in a row", i, m.Role)
		case len(m.Parts) == 0:
			return fmt.Errorf("message %d: no content", i)
		}
		for j, p := range m.Parts {
			if why := partProblem(m.Role, p); why != "" {
				return fmt.Errorf("message %d, part %d: %s", i, j, why)
			}
		}
		if m.Role == RoleAssistant {
			if !sendable(m.Parts) {
				return fmt.Errorf("message %d: an assistant message with neither text nor tool calls", i)
			}
			calls = calls[:0]
			for _, p := range m.Parts {
				if p.Type == PartToolCall {
					calls = append(calls, *p.ToolCall)
				}
			}
			for _, c := range calls {
				if ids[c.ID] {
					return fmt.Errorf("message %d: tool call id %s is used twice", i, c.ID)
				}
				ids[c.ID] = true
			}
			if i == len(msgs)-1 && len(calls) > 0 {
				return fmt.Errorf("message %d: tool call %s has no result", i, calls[0].ID)
			}
			continue
		}
		clear(answered)
		leading := true
		for _, p := range m.Parts {
			if p.Type != PartToolResult {
				leading = false
				continue
			}
			id := p.ToolResult.CallID
			switch {
			case !leading:
				return fmt.Errorf("message %d: the result for %s comes after other content", i, id)
			case !hasCall(calls, id):
				return fmt.Errorf("message %d: the result for %s answers no call of the message before", i, id)
			case answered[id]:
				return fmt.Errorf("message %d: tool call %s is answered twice", i, id)
			}
			answered[id] = true
		}
		for _, c := range calls {
			if !answered[c.ID] {
				return fmt.Errorf("message %d: tool call %s has no result", i-1, c.ID)
			}
		}
		calls = calls[:0]
	}
	return nil
}

func hasCall(calls []ToolCall, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// partProblem says why p cannot be sent in a message of role, or "".
func partProblem(role Role, p Part) string {
	switch p.Type {
	case PartText:
		if p.Text == "" {
			return "empty text"
		}
	case PartImage:
		if role != RoleUser {
			return "an image outside a user message"
		}
		if len(p.Data) == 0 {
			return "an image without data"
		}
	case PartThinking:
		if role != RoleAssistant {
			return "thinking outside an assistant message"
		}
		if p.Text == "" && p.Signature == "" {
			return "empty thinking"
		}
	case PartToolCall:
		switch {
		case role != RoleAssistant:
			return "a tool call outside an assistant message"
		case p.ToolCall == nil:
			return "a tool_call part without its call"
		case !validID(p.ToolCall.ID):
			return fmt.Sprintf("tool call id %q is not letters, digits, _ and -", p.ToolCall.ID)
		case p.ToolCall.Name == "":
			return fmt.Sprintf("tool call %s has no name", p.ToolCall.ID)
		case !validInput(p.ToolCall.Input):
			return fmt.Sprintf("the input of tool call %s is not JSON", p.ToolCall.ID)
		}
	case PartToolReference:
		return "a tool reference outside a tool result"
	case PartToolResult:
		switch {
		case role != RoleUser:
			return "a tool result outside a user message"
		case p.ToolResult == nil:
			return "a tool_result part without its result"
		}
		for _, c := range p.ToolResult.Content {
			if !resultContentOK(c) {
				return fmt.Sprintf("the result for %s holds a %q part", p.ToolResult.CallID, c.Type)
			}
		}
	default:
		return fmt.Sprintf("unknown part type %q", p.Type)
	}
	return ""
}

func resultContentOK(c Part) bool {
	switch c.Type {
	case PartText:
		return true
	case PartImage:
		return len(c.Data) > 0
	case PartToolReference:
		return c.ToolName != ""
	}
	return false
}

// sendable reports whether an assistant message's parts say anything a
// provider keeps: thinking alone is dropped by some and refused by others.
func sendable(parts []Part) bool {
	for _, p := range parts {
		if p.Type == PartText || p.Type == PartToolCall {
			return true
		}
	}
	return false
}

// RepairHistory returns msgs made valid for every provider (see
// CheckHistory), or msgs itself when it already is. It never modifies
// msgs. The repair:
//
//   - drops what cannot be sent: messages of unknown roles, empty text,
//     images without data, thinking outside assistant messages, parts of
//     unknown types, assistant messages with neither text nor calls;
//   - keeps a call's undecodable input as a JSON string (SafeInput);
//   - merges consecutive messages of one role, and opens with LostStartText
//     when the history does not start with the user;
//   - gives every call a unique, well-formed id (UniqueCallID, in order),
//     renaming the result that answers it alike;
//   - keeps, in the message after each assistant message, one result per
//     call (a call answered twice keeps the first), answers every call left
//     without one with LostResultText, drops results that answer no call
//     there, and puts the results before the rest of that message.
//
// It is deterministic and decides each message from those before it and
// the one after, so a repaired prefix stays the same as the conversation
// grows: the provider's prompt cache keeps working.
func RepairHistory(msgs []Message) []Message {
	if CheckHistory(msgs) == nil {
		return msgs
	}
	return repair(msgs)
}

func repair(msgs []Message) []Message {
	var clean []Message
	for _, m := range msgs {
		parts, ok := cleanParts(m)
		if !ok {
			continue
		}
		if n := len(clean); n > 0 && clean[n-1].Role == m.Role {
			clean[n-1].Parts = append(clean[n-1].Parts, parts...)
			continue
		}
		clean = append(clean, Message{Role: m.Role, Parts: parts})
	}
	if len(clean) > 0 && clean[0].Role != RoleUser {
		clean = append([]Message{UserText(LostStartText)}, clean...)
	}

	taken := make(map[string]bool)
	out := make([]Message, 0, len(clean)+1)
	for i := 0; i < len(clean); i++ {
		m := clean[i]
		if m.Role == RoleUser {
			// Only the first message is a user message that follows no
			// assistant message: whatever results it holds answer nothing.
			m.Parts = answer(nil, m.Parts)
			if len(m.Parts) == 0 {
				m = UserText(LostStartText)
			}
			out = append(out, m)
			continue
		}
		calls := nameCalls(m.Parts, taken)
		next := Message{Role: RoleUser}
		last := i == len(clean)-1
		if !last {
			i++
			next = clean[i]
		}
		next.Parts = answer(calls, next.Parts)
		if n := len(out); n > 0 && out[n-1].Role == RoleAssistant {
			// The user message between was all stray results, now gone.
			out[n-1].Parts = append(out[n-1].Parts, m.Parts...)
		} else {
			out = append(out, m)
		}
		if len(next.Parts) == 0 && !last && i == len(clean)-1 {
			next.Parts = []Part{TextPart(LostResultsText)}
		}
		if len(next.Parts) > 0 {
			out = append(out, next)
		}
	}
	return out
}

// cleanParts returns a fresh copy of m's sendable parts, and whether m is
// worth keeping at all.
func cleanParts(m Message) ([]Part, bool) {
	if m.Role != RoleUser && m.Role != RoleAssistant {
		return nil, false
	}
	parts := make([]Part, 0, len(m.Parts))
	for _, p := range m.Parts {
		if q, ok := cleanPart(m.Role, p); ok {
			parts = append(parts, q)
		}
	}
	if m.Role == RoleAssistant {
		return parts, sendable(parts)
	}
	return parts, len(parts) > 0
}

// cleanPart returns p fit to send in a message of role, copying what it
// changes, or false when nothing of it can be sent.
func cleanPart(role Role, p Part) (Part, bool) {
	switch p.Type {
	case PartText, PartImage, PartThinking:
		return p, partProblem(role, p) == ""
	case PartToolCall:
		if role != RoleAssistant || p.ToolCall == nil {
			return p, false
		}
		if !validInput(p.ToolCall.Input) || p.ToolCall.Name == "" {
			c := *p.ToolCall
			c.Input = SafeInput(c.Input)
			if c.Name == "" {
				c.Name = "unnamed_tool"
			}
			p.ToolCall = &c
		}
		return p, true
	case PartToolResult:
		if role != RoleUser || p.ToolResult == nil {
			return p, false
		}
		for _, c := range p.ToolResult.Content {
			if !resultContentOK(c) {
				r := *p.ToolResult
				r.Content = nil
				for _, c := range p.ToolResult.Content {
					if resultContentOK(c) {
						r.Content = append(r.Content, c)
					}
				}
				p.ToolResult = &r
				break
			}
		}
		return p, true
	}
	return p, false
}

// namedCall is a call of the message being repaired: the id its result
// refers to, and the id it goes out with.
type namedCall struct {
	orig, id, name string
}

// nameCalls gives each call in parts (in place: parts is a fresh copy) an
// id not taken before, and returns the calls in order.
func nameCalls(parts []Part, taken map[string]bool) []namedCall {
	var calls []namedCall
	for i, p := range parts {
		if p.Type != PartToolCall {
			continue
		}
		id := UniqueCallID(p.ToolCall.ID, taken)
		taken[id] = true
		if id != p.ToolCall.ID {
			c := *p.ToolCall
			c.ID = id
			parts[i].ToolCall = &c
		}
		calls = append(calls, namedCall{orig: p.ToolCall.ID, id: id, name: p.ToolCall.Name})
	}
	return calls
}

// answer returns parts with one result for each of calls, in front: the
// first result that refers to each call (renamed with it), then
// LostResultText for each call without one; results that answer none of
// calls are dropped; the other parts follow in their order.
func answer(calls []namedCall, parts []Part) []Part {
	out := make([]Part, 0, len(parts)+len(calls))
	done := make([]bool, len(calls))
	var rest []Part
	for _, p := range parts {
		if p.Type != PartToolResult {
			rest = append(rest, p)
			continue
		}
		k := -1
		for j, c := range calls {
			if !done[j] && c.orig == p.ToolResult.CallID {
				k = j
				break
			}
		}
		if k < 0 {
			continue
		}
		done[k] = true
		if calls[k].id != p.ToolResult.CallID {
			r := *p.ToolResult
			r.CallID = calls[k].id
			p.ToolResult = &r
		}
		out = append(out, p)
	}
	for j, c := range calls {
		if !done[j] {
			out = append(out, Part{Type: PartToolResult, ToolResult: &ToolResult{
				CallID: c.id, Name: c.name, IsError: true, Content: []Part{TextPart(LostResultText)},
			}})
		}
	}
	return append(out, rest...)
}
