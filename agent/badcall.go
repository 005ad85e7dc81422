package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/nova-dev/nova/llm"
)

// A call whose input the model garbled, or that the output limit cut off,
// never runs: the pipeline checks the input before anything else. What it
// answers ("input is not valid JSON: unexpected end of JSON input", or a
// denial by a hook that saw the garbage) tells the model nothing it can act
// on, so the agent answers such a call itself, in the words below, both in
// the tool_result event and in the result the model reads.

// badCallText returns what the model is told about call c, which failed,
// and whether c was a call it garbled. last says c was the last call of its
// response; outTokens and limit are the response's output tokens and the
// configured limit (0 when unknown).
func badCallText(c llm.ToolCall, last bool, outTokens, limit int) (string, bool) {
	raw := bytes.TrimSpace(c.Input)
	if len(raw) > 0 && raw[0] == '{' && json.Valid(raw) {
		return "", false
	}
	// History keeps undecodable input as a JSON string (llm.SafeInput):
	// what the model sent is that string's text.
	sent := raw
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		sent = []byte(s)
	}
	if last && truncatedJSON(sent) && (limit <= 0 || outTokens >= limit) {
		n := outTokens
		if n <= 0 {
			n = limit
		}
		at := "the output limit"
		if n > 0 {
			at = fmt.Sprintf("the output limit (%d tokens)", n)
		}
		return fmt.Sprintf("Your call to %s was not run: it was cut off at %s before its input was complete. "+
			"Send the call again, shorter: split a long file or command into several smaller calls.", c.Name, at), true
	}
	return fmt.Sprintf("Your call to %s was not run: its input was not valid JSON (a tool's input must be a JSON object). "+
		"Send the call again with valid JSON input, shorter if it was long.", c.Name), true
}

// truncatedJSON reports whether b is the start of some JSON text that
// stops too soon: what a response cut off mid-call leaves.
func truncatedJSON(b []byte) bool {
	var v any
	return errors.Is(json.NewDecoder(bytes.NewReader(b)).Decode(&v), io.ErrUnexpectedEOF)
}

// lastCalls returns the tool calls of the newest message of history when it
// is the assistant's, which is what tool results being made answer.
func lastCalls(history []llm.Message) []llm.ToolCall {
	if n := len(history); n > 0 && history[n-1].Role == llm.RoleAssistant {
		return history[n-1].ToolCalls()
	}
	return nil
}

// explainLocked returns the text for a failed result of call id, and
// whether there is one: the call is in the newest assistant message, and
// every call there with that id was garbled alike. The caller holds a.mu.
func (a *Agent) explainLocked(id string) (string, bool) {
	calls := lastCalls(a.history)
	var text string
	for i, c := range calls {
		if c.ID != id {
			continue
		}
		t, bad := badCallText(c, i == len(calls)-1, a.last.OutputTokens, a.cfg.MaxTokens)
		if !bad || (text != "" && t != text) {
			return "", false
		}
		text = t
	}
	return text, text != ""
}

// vetEvent makes ev safe to show: a tool call event carries input that
// marshals, and the result event of a garbled call says what went wrong, in
// the same words the model reads (see vetMessageLocked).
func (a *Agent) vetEvent(ev Event) Event {
	switch {
	case ev.Type == EventToolCall && ev.ToolCall != nil:
		if in := llm.SafeInput(ev.ToolCall.Input); !bytes.Equal(in, ev.ToolCall.Input) {
			c := *ev.ToolCall
			c.Input = in
			ev.ToolCall = &c
		}
	case ev.Type == EventToolResult && ev.Result != nil && ev.Result.IsError:
		a.mu.Lock()
		text, ok := a.explainLocked(ev.Result.ID)
		a.mu.Unlock()
		if ok {
			r := *ev.Result
			r.Output = text
			ev.Result = &r
		}
	}
	return ev
}

// vetMessageLocked prepares msg for history and the transcript: tool call
// inputs that marshal, and failed results of garbled calls explained. A
// result is paired with the call it answers by id and, for an id the model
// used twice, by order. The caller holds a.mu.
func (a *Agent) vetMessageLocked(msg llm.Message) llm.Message {
	msg = llm.SafeMessage(msg)
	calls := lastCalls(a.history)
	if msg.Role != llm.RoleUser || len(calls) == 0 {
		return msg
	}
	seen := make(map[string]int)
	copied := false
	for i, p := range msg.Parts {
		r := p.ToolResult
		if p.Type != llm.PartToolResult || r == nil {
			continue
		}
		nth := seen[r.CallID]
		seen[r.CallID]++
		k := -1
		for j, c := range calls {
			if c.ID == r.CallID {
				if nth == 0 {
					k = j
					break
				}
				nth--
			}
		}
		if k < 0 || !r.IsError {
			continue
		}
		text, bad := badCallText(calls[k], k == len(calls)-1, a.last.OutputTokens, a.cfg.MaxTokens)
		if !bad {
			continue
		}
		if !copied {
			msg.Parts = append([]llm.Part(nil), msg.Parts...)
			copied = true
		}
		nr := *r
		nr.Content = []llm.Part{llm.TextPart(text)}
		msg.Parts[i].ToolResult = &nr
	}
	return msg
}
