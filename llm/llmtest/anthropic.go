package llmtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
)

// anthropicFormat speaks the Anthropic Messages streaming wire format, event
// for event as the real API sends it, so the official SDK's parser is what
// the tests exercise.
type anthropicFormat struct{}

// anthropicDefaultErrorType is the error type Anthropic uses for a status
// when the turn does not name one.
func anthropicDefaultErrorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == 529:
		return "overloaded_error"
	case status >= 500:
		return "api_error"
	default:
		return "invalid_request_error"
	}
}

// anthropicDefaultMessage is a plausible message for an error type, so a
// test that only sets Status still sees a provider message.
func anthropicDefaultMessage(errType string) string {
	switch errType {
	case "authentication_error":
		return "invalid x-api-key"
	case "rate_limit_error":
		return "Number of request tokens has exceeded your per-minute rate limit"
	case "overloaded_error":
		return "Overloaded"
	case "api_error":
		return "Internal server error"
	default:
		return "Invalid request"
	}
}

// anthropicError builds Anthropic's error object from the turn, with
// defaults derived from status.
func anthropicError(t Turn, status int) map[string]any {
	errType := t.ErrorType
	if errType == "" {
		errType = anthropicDefaultErrorType(status)
	}
	msg := t.ErrorMessage
	if msg == "" {
		msg = anthropicDefaultMessage(errType)
	}
	return map[string]any{
		"type":  "error",
		"error": map[string]any{"type": errType, "message": msg},
	}
}

func (anthropicFormat) errorBody(t Turn) []byte {
	b, _ := json.Marshal(anthropicError(t, t.Status))
	return b
}

// AnthropicSignature is the signature the fake Anthropic server gives a
// thinking block with that text, so tests can check it travels back unchanged.
func AnthropicSignature(thinking string) string {
	sum := sha256.Sum256([]byte(thinking))
	return base64.StdEncoding.EncodeToString(sum[:])
}

func (anthropicFormat) stream(w *sseWriter, t Turn, reqBody []byte) {
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(reqBody, &req)
	sum := sha256.Sum256(reqBody)

	input, output := t.InputTokens, t.OutputTokens
	if input == 0 {
		input = 10 + len(reqBody)/100
	}
	if output == 0 {
		output = 1 + (len(t.Thinking)+len(t.Text))/4
		for _, c := range t.ToolCalls {
			output += 5 + len(c.Input)/4
		}
	}

	w.Event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id":            "msg_llmtest_" + hex.EncodeToString(sum[:8]),
			"type":          "message",
			"role":          "assistant",
			"model":         req.Model,
			"content":       []any{},
			"stop_reason":   nil,
			"stop_sequence": nil,
			"usage": map[string]any{
				"input_tokens":                input,
				"cache_creation_input_tokens": t.CacheWriteTokens,
				"cache_read_input_tokens":     t.CacheReadTokens,
				"output_tokens":               1,
			},
		},
	})
	w.Event("ping", map[string]any{"type": "ping"})

	index := 0
	block := func(start map[string]any, deltas []map[string]any) {
		w.Event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start})
		for _, d := range deltas {
			ev := map[string]any{"type": "content_block_delta", "index": index, "delta": d}
			if d["type"] == "text_delta" {
				w.TextEvent("content_block_delta", ev)
			} else {
				w.Event("content_block_delta", ev)
			}
		}
		w.Event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}

	if t.Thinking != "" {
		var deltas []map[string]any
		for _, s := range SplitText(t.Thinking, 3) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": s})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": AnthropicSignature(t.Thinking)})
		block(map[string]any{"type": "thinking", "thinking": "", "signature": ""}, deltas)
	}
	if t.Text != "" {
		var deltas []map[string]any
		for _, s := range SplitText(t.Text, 4) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": s})
		}
		block(map[string]any{"type": "text", "text": ""}, deltas)
	}
	for _, c := range t.ToolCalls {
		var deltas []map[string]any
		// An empty input still gets its one delta.
		for _, s := range SplitText(c.Input, max(3, len(c.Input)/8)) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": s})
		}
		block(map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}, deltas)
	}

	if t.StreamError {
		e := t
		if e.ErrorType == "" {
			e.ErrorType = "overloaded_error"
		}
		w.Event("error", anthropicError(e, 529))
		return
	}

	stop := t.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(t.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	w.Event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": output},
	})
	w.Event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicToolsRefusal is the 400 the Messages API answers a request
// whose tool search does not hold together, or "" when it does. The API's
// rules ("Tool search tool", its error handling; the 400 that a
// defer_loading tool with cache_control gets):
//
//   - at least one tool is not deferred;
//   - a deferred tool carries no cache_control;
//   - every tool_reference in a tool_result names a tool of the tools
//     array that has defer_loading: true.
//
// The wording is the API's, except for a reference to a tool that is in
// the array but not deferred: the documentation requires defer_loading
// there without quoting the error, so that message is llmtest's own.
func anthropicToolsRefusal(body []byte) string {
	var req struct {
		Tools []struct {
			Name         string          `json:"name"`
			DeferLoading bool            `json:"defer_loading"`
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"tools"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	deferred := map[string]bool{}
	for _, t := range req.Tools {
		deferred[t.Name] = t.DeferLoading
		if t.DeferLoading && len(t.CacheControl) > 0 && string(t.CacheControl) != "null" {
			return fmt.Sprintf("Tool '%s' cannot have both defer_loading=true and cache_control set. Tools with defer_loading cannot use prompt caching.", t.Name)
		}
	}
	if n := len(req.Tools); n > 0 {
		all := true
		for _, t := range req.Tools {
			all = all && t.DeferLoading
		}
		if all {
			return "All tools have defer_loading set. At least one tool must be non-deferred."
		}
	}
	for _, m := range req.Messages {
		for _, raw := range contentBlocks(m.Content) {
			var b struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(raw, &b) != nil || b.Type != "tool_result" {
				continue
			}
			for _, inner := range contentBlocks(b.Content) {
				var ref struct {
					Type     string `json:"type"`
					ToolName string `json:"tool_name"`
				}
				if json.Unmarshal(inner, &ref) != nil || ref.Type != "tool_reference" {
					continue
				}
				d, ok := deferred[ref.ToolName]
				switch {
				case !ok:
					return fmt.Sprintf("Tool reference '%s' has no corresponding tool definition", ref.ToolName)
				case !d:
					return fmt.Sprintf("Tool reference '%s' names a tool without defer_loading: true", ref.ToolName)
				}
			}
		}
	}
	return ""
}

// anthropicCheck turns a scripted success into the API's 400 when the
// request breaks its tool search rules. A turn that fails or hangs
// anyway is left as scripted, as the cache model leaves it.
func anthropicCheck(t Turn, body []byte) Turn {
	if t.Hang || (t.Status != 0 && t.Status != http.StatusOK) {
		return t
	}
	if msg := anthropicToolsRefusal(body); msg != "" {
		return Turn{Status: http.StatusBadRequest, ErrorType: "invalid_request_error", ErrorMessage: msg}
	}
	return t
}
