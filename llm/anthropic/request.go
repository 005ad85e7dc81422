package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/nova-dev/nova/llm"
)

const (
	// defaultMaxTokens bounds a response when the request does not.
	defaultMaxTokens = 8192
	// minThinkingBudget is the smallest budget the API accepts.
	minThinkingBudget = 1024
	// redactedPrefix marks a thinking_done signature that carries a
	// redacted_thinking block's data. llm.Part has no field for it, and the
	// block must go back unchanged, so it travels in Signature.
	redactedPrefix = "redacted_thinking:"
)

// buildParams maps a provider-neutral request onto the Messages API, with
// the cache breakpoints of cacheBreakpoints.
func buildParams(req llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(req.Model)}

	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = defaultMaxTokens
	}
	if req.ThinkingBudget > 0 {
		budget := max(req.ThinkingBudget, minThinkingBudget)
		// The budget is part of max_tokens, which must exceed it; keep the
		// asked-for room for the answer on top of the thinking.
		if maxTokens <= budget {
			maxTokens += budget
		}
		p.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: &sdk.ThinkingConfigEnabledParam{BudgetTokens: int64(budget)}}
	}
	p.MaxTokens = int64(maxTokens)

	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}

	deferred := deferredTools(req.Tools)
	last := lastLoaded(req.Tools, deferred)
	for i, t := range req.Tools {
		schema, err := toolSchema(t.InputSchema)
		if err != nil {
			return p, fmt.Errorf("tool %q: %w", t.Name, err)
		}
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		if deferred[t.Name] {
			tp.DeferLoading = param.NewOpt(true)
		}
		if i == last {
			tp.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}

	for _, m := range req.Messages {
		blocks, err := contentBlocks(m.Parts, deferred)
		if err != nil {
			return p, err
		}
		if len(blocks) == 0 {
			// The API rejects empty messages; one with nothing sendable
			// (say, only an unsigned thinking part) is left out.
			continue
		}
		switch m.Role {
		case llm.RoleUser:
			p.Messages = append(p.Messages, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: blocks}})
		case llm.RoleAssistant:
			p.Messages = append(p.Messages, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: blocks}})
		default:
			return p, fmt.Errorf("message role %q is not user or assistant", m.Role)
		}
	}
	markPreviousEnd(p.Messages)
	markLastBlock(p.Messages)
	return p, nil
}

// Deferred tools (tool search). A tool the request defers goes out with
// defer_loading: true; the API keeps its definition out of the prompt
// until a tool_reference block in a tool_result names it, and then
// expands the reference into the definition where it stands in the
// conversation, so the tools array, and every cached prefix, stay as they
// were ("Tool search tool", "Tool use with prompt caching"). The API
// refuses a request whose tools are all deferred ("All tools have
// defer_loading set. At least one tool must be non-deferred."), a
// deferred tool that carries cache_control ("Tools with defer_loading
// cannot use prompt caching"), and a reference to a tool the tools array
// does not hold deferred ("Tool reference '...' has no corresponding tool
// definition"). So nothing is deferred when every tool would be (no tool
// could load the others), the tools' breakpoint goes on the last tool
// that is not deferred, and a reference the request cannot honour (its
// tool is gone, or no longer deferred) is left out of the result: a
// history must never hold a request the API refuses for good.

// deferredTools returns the names of the tools sent with defer_loading;
// none when every tool is deferred.
func deferredTools(tools []llm.ToolSpec) map[string]bool {
	deferred := map[string]bool{}
	for _, t := range tools {
		if t.Deferred {
			deferred[t.Name] = true
		}
	}
	if len(deferred) == len(tools) {
		return nil
	}
	return deferred
}

// lastLoaded is the index of the last tool that is not deferred, the one
// that carries the tools' breakpoint; -1 for none.
func lastLoaded(tools []llm.ToolSpec, deferred map[string]bool) int {
	for i := len(tools) - 1; i >= 0; i-- {
		if !deferred[tools[i].Name] {
			return i
		}
	}
	return -1
}

// Cache breakpoints. The API writes a cache entry only at a block marked
// with cache_control, and a later request reads an entry only if it ends
// exactly at one of that request's breakpoints or at most 19 blocks before
// one (the 20-block lookback); four breakpoints at most. nova marks:
//
//  1. the last tool that is not deferred: the tool list, which never
//     changes within a session;
//  2. the system prompt: tools and system, which survive a compaction;
//  3. the end of the previous request: the last block before the newest
//     assistant message, where the previous request put its breakpoint 4.
//     That request wrote an entry there, so this one reads it exactly,
//     however many blocks the turn since added: a turn of 12 parallel tool
//     calls adds 25 (text, calls, results), more than breakpoint 4 alone
//     looks back over;
//  4. the last block of the newest message, written for the next request.
//
// A marker is not part of the cached prefix, so moving one changes no
// entry: the previous request's breakpoint 4 and this one's 3 are one.

// markPreviousEnd puts a breakpoint on the last markable block of the
// message before the newest assistant message: the end of the request that
// the assistant message answered.
func markPreviousEnd(msgs []sdk.MessageParam) {
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].OfAssistant != nil {
			markLast(msgs[i-1])
			return
		}
	}
}

// toolSchema sends a tool's JSON schema verbatim; the SDK's typed schema
// would drop keywords it does not model.
func toolSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return sdk.ToolInputSchemaParam{}, nil // marshals as {"type":"object"}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return sdk.ToolInputSchemaParam{}, fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	return param.Override[sdk.ToolInputSchemaParam](raw), nil
}

// contentBlocks maps message parts to content blocks; deferred are the
// tools a tool reference may load.
func contentBlocks(parts []llm.Part, deferred map[string]bool) ([]sdk.ContentBlockParamUnion, error) {
	var out []sdk.ContentBlockParamUnion
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if p.Text == "" {
				continue // the API rejects empty text blocks
			}
			out = append(out, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: p.Text}})
		case llm.PartImage:
			out = append(out, sdk.ContentBlockParamUnion{OfImage: imageBlock(p)})
		case llm.PartThinking:
			switch {
			case strings.HasPrefix(p.Signature, redactedPrefix):
				out = append(out, sdk.ContentBlockParamUnion{OfRedactedThinking: &sdk.RedactedThinkingBlockParam{
					Data: strings.TrimPrefix(p.Signature, redactedPrefix),
				}})
			case p.Signature != "":
				out = append(out, sdk.ContentBlockParamUnion{OfThinking: &sdk.ThinkingBlockParam{
					Thinking: p.Text, Signature: p.Signature,
				}})
			}
			// Unsigned thinking (from another provider, say) cannot be
			// verified by the API and is dropped rather than rejected.
		case llm.PartToolCall:
			if p.ToolCall == nil {
				return nil, fmt.Errorf("tool_call part without a call")
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{
				ID: p.ToolCall.ID, Name: p.ToolCall.Name, Input: callInput(p.ToolCall.Input),
			}})
		case llm.PartToolResult:
			if p.ToolResult == nil {
				return nil, fmt.Errorf("tool_result part without a result")
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolResult: toolResultBlock(p.ToolResult, deferred)})
		default:
			return nil, fmt.Errorf("unknown part type %q", p.Type)
		}
	}
	return out, nil
}

// callInput is the input of a past tool call as the API wants it: an
// object. A call whose input the model garbled was answered with an error
// already; sending the garbage back would fail the whole request.
func callInput(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return raw
}

func imageBlock(p llm.Part) *sdk.ImageBlockParam {
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data:      base64.StdEncoding.EncodeToString(p.Data),
		MediaType: sdk.Base64ImageSourceMediaType(p.MediaType),
	}}}
}

// toolResultBlock maps a tool result. Its tool references come first:
// the API expands each into the tool's definition, and Claude Code found
// models stop early when a definition ends the prompt (its "Tool loaded."
// text after the references), so the result's own text follows them.
func toolResultBlock(r *llm.ToolResult, deferred map[string]bool) *sdk.ToolResultBlockParam {
	b := &sdk.ToolResultBlockParam{ToolUseID: r.CallID}
	if r.IsError {
		b.IsError = param.NewOpt(true)
	}
	for _, c := range r.Content {
		if c.Type == llm.PartToolReference && deferred[c.ToolName] {
			b.Content = append(b.Content, sdk.ToolResultBlockParamContentUnion{OfToolReference: &sdk.ToolReferenceBlockParam{ToolName: c.ToolName}})
		}
	}
	for _, c := range r.Content {
		switch c.Type {
		case llm.PartText:
			if c.Text != "" {
				b.Content = append(b.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: c.Text}})
			}
		case llm.PartImage:
			b.Content = append(b.Content, sdk.ToolResultBlockParamContentUnion{OfImage: imageBlock(c)})
		}
	}
	return b
}

// markLastBlock puts a cache breakpoint on the newest message.
func markLastBlock(msgs []sdk.MessageParam) {
	if len(msgs) > 0 {
		markLast(msgs[len(msgs)-1])
	}
}

// markLast puts a cache breakpoint on the last block of m that can carry
// one (thinking blocks cannot).
func markLast(m sdk.MessageParam) {
	var blocks []sdk.ContentBlockParamUnion
	switch {
	case m.OfUser != nil:
		blocks = m.OfUser.Content
	case m.OfAssistant != nil:
		blocks = m.OfAssistant.Content
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if cc := blocks[i].GetCacheControl(); cc != nil {
			*cc = sdk.NewCacheControlEphemeralParam()
			return
		}
	}
}
