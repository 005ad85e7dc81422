package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/nova-dev/nova/llm"
)

// ChatClient streams chat completions from OpenAI or any OpenAI-compatible
// server (vLLM, DeepSeek, llama.cpp, Ollama's /v1 ...).
type ChatClient struct {
	base
	svc sdk.ChatCompletionService
}

// NewChat returns a chat completions client for cfg (type openai-compatible
// or ollama). Ollama defaults to its local server and needs no key.
func NewChat(cfg llm.ProviderConfig) *ChatClient {
	def := DefaultBaseURL
	if cfg.Type == llm.ProviderOllama {
		def = DefaultOllamaBaseURL
	}
	b := newBase(cfg, def)
	return &ChatClient{base: b, svc: sdk.NewChatCompletionService(b.opts...)}
}

// Stream implements llm.Client.
func (c *ChatClient) Stream(ctx context.Context, req llm.Request, emit func(llm.StreamEvent)) error {
	a := &attempt{out: &emitter{emit: emit}}
	stream := c.svc.NewStreaming(ctx, c.params(req), a.record())
	defer stream.Close()

	st := &chatState{out: a.out}
	for stream.Next() {
		if err := st.chunk(stream.Current()); err != nil {
			return c.streamError("%v", err)
		}
	}
	if err := stream.Err(); err != nil {
		return c.classify(ctx, a, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: stream: %w", c.provider, err)
	}
	// The SDK ends the stream alike on "data: [DONE]" and on a clean close,
	// so the finish_reason is what proves the answer is whole.
	if st.finish == "" {
		return c.streamError("stream ended before the response was complete")
	}
	st.closeThinking()
	st.flushCalls()
	if st.usage != nil {
		st.out.send(llm.StreamEvent{Type: llm.EventUsage, Usage: st.usage})
	}
	st.out.send(llm.StreamEvent{Type: llm.EventStop, StopReason: st.stopReason()})
	return nil
}

// params builds the request. MaxTokens goes out as max_completion_tokens to
// api.openai.com (its reasoning models reject max_tokens) and as max_tokens
// elsewhere, the field every compatible server understands.
func (c *ChatClient) params(req llm.Request) sdk.ChatCompletionNewParams {
	p := sdk.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      chatMessages(req),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if req.MaxTokens > 0 {
		if c.isOpenAI() {
			p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = sdk.Int(int64(req.MaxTokens))
		}
	}
	if req.ThinkingBudget > 0 {
		p.ReasoningEffort = effort(req.ThinkingBudget)
	}
	// Neither API defers a tool: one loads when the history references it
	// (see llm.LoadedTools), and the tool list grows at its end.
	for _, t := range llm.LoadedTools(req) {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schemaMap(t.InputSchema)}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	return p
}

// effort maps a thinking budget to OpenAI's coarser reasoning effort.
func effort(budget int) shared.ReasoningEffort {
	switch {
	case budget <= 4096:
		return shared.ReasoningEffortLow
	case budget <= 16384:
		return shared.ReasoningEffortMedium
	}
	return shared.ReasoningEffortHigh
}

// chatMessages converts the conversation. Tool results become "tool"
// messages; images they carry follow in a user message, since a tool
// message holds only text. Thinking is not sent back: chat completions has
// no field for it (DeepSeek rejects reasoning_content in requests).
func chatMessages(req llm.Request) []sdk.ChatCompletionMessageParamUnion {
	var msgs []sdk.ChatCompletionMessageParamUnion
	if req.System != "" {
		msgs = append(msgs, sdk.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			if am, ok := assistantMessage(m); ok {
				msgs = append(msgs, am)
			}
			continue
		}
		var parts []sdk.ChatCompletionContentPartUnionParam
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartToolResult:
				if p.ToolResult == nil {
					continue
				}
				msgs = append(msgs, sdk.ToolMessage(resultText(p.ToolResult), p.ToolResult.CallID))
				for _, img := range resultImages(p.ToolResult) {
					parts = append(parts, imagePart(img))
				}
			case llm.PartText:
				parts = append(parts, sdk.TextContentPart(p.Text))
			case llm.PartImage:
				parts = append(parts, imagePart(p))
			}
		}
		switch {
		case len(parts) == 0:
		case len(parts) == 1 && parts[0].OfText != nil:
			// Plain string content: some compatible servers reject arrays.
			msgs = append(msgs, sdk.UserMessage(parts[0].OfText.Text))
		default:
			msgs = append(msgs, sdk.UserMessage(parts))
		}
	}
	return msgs
}

func imagePart(p llm.Part) sdk.ChatCompletionContentPartUnionParam {
	return sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: dataURL(p)})
}

// assistantMessage converts an assistant turn: its text and tool calls.
func assistantMessage(m llm.Message) (sdk.ChatCompletionMessageParamUnion, bool) {
	var am sdk.ChatCompletionAssistantMessageParam
	if text := m.Text(); text != "" {
		am.Content.OfString = sdk.String(text)
	}
	for _, tc := range m.ToolCalls() {
		am.ToolCalls = append(am.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID: tc.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name: tc.Name, Arguments: inputString(tc.Input),
				},
			},
		})
	}
	if am.Content.OfString.Valid() || len(am.ToolCalls) > 0 {
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &am}, true
	}
	return sdk.ChatCompletionMessageParamUnion{}, false
}

// chatCall is a tool call being assembled from its deltas.
type chatCall struct {
	index    int64
	id, name string
	args     strings.Builder
}

// chatState turns chunks into llm events.
type chatState struct {
	out      *emitter
	pending  []*chatCall    // calls still receiving arguments, in order
	emitted  map[int64]bool // indexes of calls already sent
	calls    int            // calls sent
	thinking bool           // a thinking block is open
	finish   string
	usage    *llm.Usage
}

func (s *chatState) chunk(ch sdk.ChatCompletionChunk) error {
	if ch.JSON.Usage.Valid() {
		d := ch.Usage.PromptTokensDetails
		s.usage = usage(ch.Usage.PromptTokens, ch.Usage.CompletionTokens, d.CachedTokens, d.CacheWriteTokens)
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue // only one choice is ever asked for
		}
		delta := choice.Delta
		if r := reasoningDelta(delta); r != "" {
			s.thinking = true
			s.out.send(llm.StreamEvent{Type: llm.EventThinkingDelta, Text: r})
		}
		for _, text := range []string{delta.Content, delta.Refusal} {
			if text != "" {
				s.closeThinking()
				s.out.send(llm.StreamEvent{Type: llm.EventTextDelta, Text: text})
			}
		}
		for _, tc := range delta.ToolCalls {
			s.closeThinking()
			if err := s.toolDelta(tc); err != nil {
				return err
			}
		}
		if choice.FinishReason != "" {
			s.finish = choice.FinishReason
		}
	}
	return nil
}

// reasoningDelta reads the thinking text of a delta from its raw JSON: it
// is not in OpenAI's schema. DeepSeek, vLLM and llama.cpp send
// reasoning_content; Ollama and OpenRouter send reasoning.
func reasoningDelta(d sdk.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		f, ok := d.JSON.ExtraFields[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// toolDelta adds one tool call fragment. A fragment for a new index (or
// with a new id at the same index, as some servers send) starts a new call,
// and the calls before it are complete: they are emitted at once so the
// agent can start them while the model streams on.
func (s *chatState) toolDelta(tc sdk.ChatCompletionChunkChoiceDeltaToolCall) error {
	var call *chatCall
	for _, c := range s.pending {
		if c.index == tc.Index && (tc.ID == "" || c.id == "" || c.id == tc.ID) {
			call = c
		}
	}
	if call == nil {
		if tc.ID == "" && s.emitted[tc.Index] {
			return fmt.Errorf("arguments for tool call %d arrived after it was complete", tc.Index)
		}
		s.flushCalls()
		call = &chatCall{index: tc.Index}
		s.pending = append(s.pending, call)
	}
	if tc.ID != "" {
		call.id = tc.ID
	}
	if tc.Function.Name != "" {
		call.name = tc.Function.Name
	}
	call.args.WriteString(tc.Function.Arguments)
	return nil
}

// flushCalls emits every pending call with its complete arguments.
func (s *chatState) flushCalls() {
	for _, c := range s.pending {
		id := c.id
		if id == "" {
			id = fmt.Sprintf("call_%d", s.calls)
		}
		if s.emitted == nil {
			s.emitted = make(map[int64]bool)
		}
		s.emitted[c.index] = true
		s.calls++
		s.out.send(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &llm.ToolCall{
			ID: id, Name: c.name, Input: validInput(c.args.String()),
		}})
	}
	s.pending = nil
}

// closeThinking ends an open thinking block.
func (s *chatState) closeThinking() {
	if s.thinking {
		s.thinking = false
		s.out.send(llm.StreamEvent{Type: llm.EventThinkingDone})
	}
}

// stopReason maps the finish_reason. Some servers (Ollama among them) say
// "stop" after tool calls; the calls decide.
func (s *chatState) stopReason() llm.StopReason {
	switch s.finish {
	case "length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	}
	if s.calls > 0 || s.finish == "tool_calls" || s.finish == "function_call" {
		return llm.StopToolUse
	}
	return llm.StopEndTurn
}
