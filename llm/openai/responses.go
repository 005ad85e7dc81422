package openai

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/nova-dev/nova/llm"
)

// ResponsesClient streams from the OpenAI Responses API.
type ResponsesClient struct {
	base
	svc responses.ResponseService
}

// NewResponses returns a Responses API client for cfg (type openai-response).
func NewResponses(cfg llm.ProviderConfig) *ResponsesClient {
	b := newBase(cfg, DefaultBaseURL)
	return &ResponsesClient{base: b, svc: responses.NewResponseService(b.opts...)}
}

// Stream implements llm.Client.
func (c *ResponsesClient) Stream(ctx context.Context, req llm.Request, emit func(llm.StreamEvent)) error {
	a := &attempt{out: &emitter{emit: emit}}
	stream := c.svc.NewStreaming(ctx, responsesParams(req), a.record())
	defer stream.Close()

	st := &responsesState{out: a.out, calls: map[string]*responsesCall{}}
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "error":
			return c.inStreamError(a, "", ev.Code, ev.Message, nil)
		case "response.failed":
			e := ev.Response.Error
			return c.inStreamError(a, "", string(e.Code), e.Message, nil)
		}
		if st.event(ev) {
			return nil
		}
	}
	if err := stream.Err(); err != nil {
		return c.classify(ctx, a, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: stream: %w", c.provider, err)
	}
	return c.streamError("stream ended before response.completed")
}

// responsesParams builds the request. Nothing is stored server-side
// (store=false): nova keeps the conversation and sends it whole each turn.
func responsesParams(req llm.Request) responses.ResponseNewParams {
	p := responses.ResponseNewParams{
		Model: req.Model,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req.Messages)},
		Store: sdk.Bool(false),
	}
	if req.System != "" {
		p.Instructions = sdk.String(req.System)
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = sdk.Int(int64(req.MaxTokens))
	}
	if req.ThinkingBudget > 0 {
		// The summary is what streams as thinking; raw reasoning is hidden.
		p.Reasoning = shared.ReasoningParam{Effort: effort(req.ThinkingBudget), Summary: shared.ReasoningSummaryAuto}
	}
	// Neither API defers a tool: one loads when the history references it
	// (see llm.LoadedTools), and the tool list grows at its end.
	for _, t := range llm.LoadedTools(req) {
		fn := &responses.FunctionToolParam{
			Name: t.Name, Parameters: schemaMap(t.InputSchema),
			// Strict mode demands schemas nova's tools need not follow.
			Strict: sdk.Bool(false),
		}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	return p
}

// responsesInput converts the conversation to input items: messages,
// function_call items for the assistant's calls and function_call_output
// items (text, or text and images) for their results. Thinking is not sent
// back: without stored responses there is nothing it could refer to.
func responsesInput(msgs []llm.Message) responses.ResponseInputParam {
	var items responses.ResponseInputParam
	for _, m := range msgs {
		if m.Role == llm.RoleAssistant {
			items = append(items, assistantItems(m)...)
			continue
		}
		var content responses.ResponseInputMessageContentListParam
		for _, p := range m.Parts {
			switch p.Type {
			case llm.PartToolResult:
				if p.ToolResult != nil {
					items = append(items, functionOutput(p.ToolResult))
				}
			case llm.PartText:
				content = append(content, responses.ResponseInputContentParamOfInputText(p.Text))
			case llm.PartImage:
				content = append(content, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
					Detail: responses.ResponseInputImageDetailAuto, ImageURL: sdk.String(dataURL(p)),
				}})
			}
		}
		if len(content) > 0 {
			items = append(items, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
		}
	}
	return items
}

// assistantItems converts an assistant turn, keeping text and calls in order.
func assistantItems(m llm.Message) []responses.ResponseInputItemUnionParam {
	var items []responses.ResponseInputItemUnionParam
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			items = append(items, responses.ResponseInputItemParamOfMessage(text.String(), responses.EasyInputMessageRoleAssistant))
			text.Reset()
		}
	}
	for _, p := range m.Parts {
		switch {
		case p.Type == llm.PartText:
			text.WriteString(p.Text)
		case p.Type == llm.PartToolCall && p.ToolCall != nil:
			flush()
			items = append(items, responses.ResponseInputItemParamOfFunctionCall(
				inputString(p.ToolCall.Input), p.ToolCall.ID, p.ToolCall.Name))
		}
	}
	flush()
	return items
}

// functionOutput is the function_call_output item answering one call.
func functionOutput(r *llm.ToolResult) responses.ResponseInputItemUnionParam {
	var item responses.ResponseInputItemUnionParam
	if imgs := resultImages(r); len(imgs) == 0 {
		item = responses.ResponseInputItemParamOfFunctionCallOutput(resultText(r))
	} else {
		list := responses.ResponseFunctionCallOutputItemListParam{{
			OfInputText: &responses.ResponseInputTextContentParam{Text: resultText(r)},
		}}
		for _, img := range imgs {
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{
				OfInputImage: &responses.ResponseInputImageContentParam{
					ImageURL: sdk.String(dataURL(img)), Detail: responses.ResponseInputImageContentDetailAuto,
				},
			})
		}
		item = responses.ResponseInputItemParamOfFunctionCallOutput(list)
	}
	item.OfFunctionCallOutput.CallID = sdk.String(r.CallID)
	return item
}

// responsesCall is a function call being assembled from its deltas.
type responsesCall struct {
	callID, name string
	args         strings.Builder
}

// responsesState turns stream events into llm events.
type responsesState struct {
	out      *emitter
	calls    map[string]*responsesCall // by item id
	sent     int                       // tool calls emitted
	thinking bool
}

// event handles one stream event and reports whether it ended the response.
func (s *responsesState) event(ev responses.ResponseStreamEventUnion) bool {
	switch ev.Type {
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if ev.Delta != "" {
			s.thinking = true
			s.out.send(llm.StreamEvent{Type: llm.EventThinkingDelta, Text: ev.Delta})
		}
	case "response.reasoning_summary_part.added":
		// Summary parts are paragraphs of one thought; keep them apart.
		if s.thinking && ev.SummaryIndex > 0 {
			s.out.send(llm.StreamEvent{Type: llm.EventThinkingDelta, Text: "\n\n"})
		}
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta != "" {
			s.closeThinking()
			s.out.send(llm.StreamEvent{Type: llm.EventTextDelta, Text: ev.Delta})
		}
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			s.closeThinking()
			s.calls[ev.Item.ID] = &responsesCall{callID: ev.Item.CallID, name: ev.Item.Name}
		}
	case "response.function_call_arguments.delta":
		if c := s.calls[ev.ItemID]; c != nil {
			c.args.WriteString(ev.Delta)
		}
	case "response.output_item.done":
		switch ev.Item.Type {
		case "reasoning":
			s.closeThinking()
		case "function_call":
			s.finishCall(ev.Item)
		}
	case "response.completed", "response.incomplete":
		s.closeThinking()
		if ev.Response.JSON.Usage.Valid() {
			u := ev.Response.Usage
			d := u.InputTokensDetails
			s.out.send(llm.StreamEvent{Type: llm.EventUsage, Usage: usage(u.InputTokens, u.OutputTokens, d.CachedTokens, d.CacheWriteTokens)})
		}
		s.out.send(llm.StreamEvent{Type: llm.EventStop, StopReason: s.stopReason(ev.Response)})
		return true
	}
	return false
}

// finishCall emits a completed function call: its arguments from the done
// item, or from the deltas when the item leaves them out.
func (s *responsesState) finishCall(item responses.ResponseOutputItemUnion) {
	c := s.calls[item.ID]
	delete(s.calls, item.ID)
	if c == nil {
		c = &responsesCall{}
	}
	if item.CallID != "" {
		c.callID = item.CallID
	}
	if item.Name != "" {
		c.name = item.Name
	}
	args := item.Arguments.OfString
	if args == "" {
		args = c.args.String()
	}
	s.sent++
	s.out.send(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &llm.ToolCall{
		ID: c.callID, Name: c.name, Input: validInput(args),
	}})
}

func (s *responsesState) closeThinking() {
	if s.thinking {
		s.thinking = false
		s.out.send(llm.StreamEvent{Type: llm.EventThinkingDone})
	}
}

// stopReason derives the stop reason: the Responses API has none, only a
// status with incomplete_details.
func (s *responsesState) stopReason(r responses.Response) llm.StopReason {
	switch r.IncompleteDetails.Reason {
	case "max_output_tokens":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	}
	if s.sent > 0 {
		return llm.StopToolUse
	}
	return llm.StopEndTurn
}
