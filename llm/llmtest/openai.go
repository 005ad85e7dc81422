package llmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// chatFormat speaks OpenAI chat completions SSE: data-only events, one
// chat.completion.chunk each, a usage chunk and "data: [DONE]". Thinking goes
// out as delta.reasoning_content, as DeepSeek, vLLM and Ollama send it.
type chatFormat struct{}

// responsesFormat speaks OpenAI Responses SSE: named events whose JSON
// carries the same "type" and a sequence_number.
type responsesFormat struct{}

// openaiRequest is the part of a request the fake servers echo back.
type openaiRequest struct {
	Model        string          `json:"model"`
	Instructions *string         `json:"instructions"`
	Tools        json.RawMessage `json:"tools"`
}

func parseOpenAIRequest(body []byte) (openaiRequest, string) {
	var r openaiRequest
	_ = json.Unmarshal(body, &r)
	sum := sha256.Sum256(body)
	return r, hex.EncodeToString(sum[:8])
}

// openaiUsage returns the turn's token counts, made up from the sizes of
// the request and the answer when the turn leaves them zero (as the
// Anthropic format does, so totals look alike across providers).
func openaiUsage(t Turn, reqBody []byte) (input, output int) {
	input, output = t.InputTokens, t.OutputTokens
	if input == 0 {
		input = 10 + len(reqBody)/100
	}
	if output == 0 {
		output = 1 + (len(t.Thinking)+len(t.Text))/4
		for _, c := range t.ToolCalls {
			output += 5 + len(c.Input)/4
		}
	}
	return input, output
}

// openaiErrorFields returns type, code and message of an OpenAI error for
// the turn, defaulting from the status the way the real API answers.
func openaiErrorFields(t Turn, status int) (typ string, code any, msg string) {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		typ, code, msg = "invalid_request_error", "invalid_api_key", "Incorrect API key provided"
	case status == http.StatusTooManyRequests:
		typ, code, msg = "requests", "rate_limit_exceeded", "Rate limit reached for requests"
	case status >= 500:
		typ, code, msg = "server_error", nil, "The server had an error while processing your request"
	default:
		typ, code, msg = "invalid_request_error", nil, "Invalid request"
	}
	if t.ErrorType != "" {
		typ, code = t.ErrorType, t.ErrorType
	}
	if t.ErrorMessage != "" {
		msg = t.ErrorMessage
	}
	return typ, code, msg
}

func openaiErrorBody(t Turn) []byte {
	typ, code, msg := openaiErrorFields(t, t.Status)
	b, _ := json.Marshal(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code},
	})
	return b
}

// stopOrDefault returns the turn's stop reason in llm terms, or the natural one.
func stopOrDefault(t Turn) string {
	if t.StopReason != "" {
		return t.StopReason
	}
	if len(t.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// argPieces is how many pieces a tool call's arguments are streamed in: at
// least three, so clients must really accumulate them.
func argPieces(input string) int { return max(3, len(input)/8) }

// openaiUsageFields returns OpenAI's input count, which includes cached
// tokens unlike Anthropic's input_tokens, and its cache details.
func openaiUsageFields(t Turn, input int) (int, map[string]any) {
	details := map[string]any{"cached_tokens": t.CacheReadTokens}
	if t.CacheWriteTokens > 0 {
		details["cache_write_tokens"] = t.CacheWriteTokens
	}
	return input + t.CacheReadTokens + t.CacheWriteTokens, details
}

func (chatFormat) errorBody(t Turn) []byte { return openaiErrorBody(t) }

// chatFinishReason maps an llm stop reason to a chat finish_reason; other
// values pass through so a test can send any raw reason.
func chatFinishReason(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "refusal":
		return "content_filter"
	}
	return stop
}

func (chatFormat) stream(w *sseWriter, t Turn, reqBody []byte) {
	req, sum := parseOpenAIRequest(reqBody)
	id := "chatcmpl-llmtest" + sum
	created := time.Now().Unix()
	envelope := func(choices []any) map[string]any {
		return map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"system_fingerprint": "fp_llmtest", "choices": choices,
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return envelope([]any{map[string]any{
			"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish,
		}})
	}

	w.Event("", chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil))
	if t.Thinking != "" {
		for _, s := range SplitText(t.Thinking, 3) {
			w.Event("", chunk(map[string]any{"reasoning_content": s}, nil))
		}
	}
	if t.Text != "" {
		for _, s := range SplitText(t.Text, 4) {
			w.TextEvent("", chunk(map[string]any{"content": s}, nil))
		}
	}
	for i, c := range t.ToolCalls {
		w.Event("", chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil))
		for _, s := range SplitText(c.Input, argPieces(c.Input)) {
			w.Event("", chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": s},
			}}}, nil))
		}
	}

	if t.StreamError {
		typ, code, msg := openaiErrorFields(t, http.StatusInternalServerError)
		w.Event("", map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
		return
	}

	w.Event("", chunk(map[string]any{}, chatFinishReason(stopOrDefault(t))))
	input, output := openaiUsage(t, reqBody)
	prompt, details := openaiUsageFields(t, input)
	final := envelope([]any{})
	final["usage"] = map[string]any{
		"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output,
		"prompt_tokens_details":     details,
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
	}
	w.Event("", final)
	w.Event("", "[DONE]")
}

func (responsesFormat) errorBody(t Turn) []byte { return openaiErrorBody(t) }

// responsesStream holds the state of one Responses stream being written.
type responsesStream struct {
	w    *sseWriter
	seq  int
	resp map[string]any
	out  []any // finished output items, for the final response
}

func (s *responsesStream) event(name string, fields map[string]any) {
	fields["type"] = name
	fields["sequence_number"] = s.seq
	s.seq++
	if name == "response.output_text.delta" {
		s.w.TextEvent(name, fields)
		return
	}
	s.w.Event(name, fields)
}

// snapshot returns the response object with the given status and output.
func (s *responsesStream) snapshot(status string) map[string]any {
	r := make(map[string]any, len(s.resp)+2)
	for k, v := range s.resp {
		r[k] = v
	}
	r["status"] = status
	r["output"] = append([]any{}, s.out...)
	return r
}

// item writes an output item's added event, its body, and its done event.
func (s *responsesStream) item(added map[string]any, body func(index int), done map[string]any) {
	index := len(s.out)
	s.event("response.output_item.added", map[string]any{"output_index": index, "item": added})
	body(index)
	s.event("response.output_item.done", map[string]any{"output_index": index, "item": done})
	s.out = append(s.out, done)
}

func (responsesFormat) stream(w *sseWriter, t Turn, reqBody []byte) {
	req, sum := parseOpenAIRequest(reqBody)
	tools := any([]any{})
	if len(req.Tools) > 0 {
		tools = req.Tools
	}
	s := &responsesStream{w: w, resp: map[string]any{
		"id": "resp_llmtest" + sum, "object": "response", "created_at": time.Now().Unix(),
		"model": req.Model, "error": nil, "incomplete_details": nil, "instructions": req.Instructions,
		"metadata": map[string]any{}, "parallel_tool_calls": true, "temperature": 1.0, "top_p": 1.0,
		"tool_choice": "auto", "tools": tools, "usage": nil, "store": false, "background": false,
		"max_output_tokens": nil, "previous_response_id": nil, "service_tier": "default",
		"reasoning": map[string]any{"effort": nil, "summary": nil}, "truncation": "disabled",
		"text": map[string]any{"format": map[string]any{"type": "text"}, "verbosity": "medium"},
	}}

	s.event("response.created", map[string]any{"response": s.snapshot("in_progress")})
	s.event("response.in_progress", map[string]any{"response": s.snapshot("in_progress")})
	if t.Thinking != "" {
		s.reasoning("rs_llmtest"+sum, t.Thinking)
	}
	if t.Text != "" {
		s.message("msg_llmtest"+sum, t.Text)
	}
	for i, c := range t.ToolCalls {
		s.functionCall("fc_llmtest"+sum+"_"+strconv.Itoa(i), c)
	}

	if t.StreamError {
		typ, code, msg := openaiErrorFields(t, http.StatusInternalServerError)
		if code == nil {
			code = typ
		}
		s.event("error", map[string]any{"code": code, "message": msg, "param": nil})
		return
	}

	input, output := openaiUsage(t, reqBody)
	prompt, details := openaiUsageFields(t, input)
	final := s.snapshot("completed")
	final["completed_at"] = time.Now().Unix()
	final["usage"] = map[string]any{
		"input_tokens": prompt, "input_tokens_details": details,
		"output_tokens": output, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": prompt + output,
	}
	name := "response.completed"
	// The Responses API has no finish reason: a cut-short answer is an
	// incomplete response with the reason in incomplete_details.
	switch stopOrDefault(t) {
	case "max_tokens":
		name, final["status"] = "response.incomplete", "incomplete"
		final["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	case "refusal":
		name, final["status"] = "response.incomplete", "incomplete"
		final["incomplete_details"] = map[string]any{"reason": "content_filter"}
	}
	s.event(name, map[string]any{"response": final})
}

// reasoning writes a reasoning item whose summary streams as the thinking.
func (s *responsesStream) reasoning(id, thinking string) {
	part := map[string]any{"type": "summary_text", "text": thinking}
	s.item(map[string]any{"id": id, "type": "reasoning", "summary": []any{}}, func(index int) {
		base := func(k string, v any) map[string]any {
			return map[string]any{"item_id": id, "output_index": index, "summary_index": 0, k: v}
		}
		s.event("response.reasoning_summary_part.added", base("part", map[string]any{"type": "summary_text", "text": ""}))
		for _, d := range SplitText(thinking, 3) {
			s.event("response.reasoning_summary_text.delta", base("delta", d))
		}
		s.event("response.reasoning_summary_text.done", base("text", thinking))
		s.event("response.reasoning_summary_part.done", base("part", part))
	}, map[string]any{"id": id, "type": "reasoning", "summary": []any{part}})
}

// message writes an assistant message item with one output_text part.
func (s *responsesStream) message(id, text string) {
	msg := func(status string, content []any) map[string]any {
		return map[string]any{"id": id, "type": "message", "status": status, "role": "assistant", "content": content}
	}
	part := func(s string) map[string]any {
		return map[string]any{"type": "output_text", "text": s, "annotations": []any{}, "logprobs": []any{}}
	}
	s.item(msg("in_progress", []any{}), func(index int) {
		base := func(k string, v any) map[string]any {
			return map[string]any{"item_id": id, "output_index": index, "content_index": 0, k: v}
		}
		s.event("response.content_part.added", base("part", part("")))
		for _, d := range SplitText(text, 4) {
			e := base("delta", d)
			e["logprobs"] = []any{}
			s.event("response.output_text.delta", e)
		}
		e := base("text", text)
		e["logprobs"] = []any{}
		s.event("response.output_text.done", e)
		s.event("response.content_part.done", base("part", part(text)))
	}, msg("completed", []any{part(text)}))
}

// functionCall writes a function_call item with its arguments in pieces.
func (s *responsesStream) functionCall(id string, c ToolCall) {
	call := func(status, args string) map[string]any {
		return map[string]any{
			"id": id, "type": "function_call", "status": status,
			"call_id": c.ID, "name": c.Name, "arguments": args,
		}
	}
	s.item(call("in_progress", ""), func(index int) {
		for _, d := range SplitText(c.Input, argPieces(c.Input)) {
			s.event("response.function_call_arguments.delta", map[string]any{
				"item_id": id, "output_index": index, "delta": d,
			})
		}
		s.event("response.function_call_arguments.done", map[string]any{
			"item_id": id, "output_index": index, "name": c.Name, "arguments": c.Input,
		})
	}, call("completed", c.Input))
}
