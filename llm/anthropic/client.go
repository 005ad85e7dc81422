// Package anthropic is nova's llm.Client for the Anthropic Messages API,
// built on the official SDK and always streaming.
package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/nova-dev/nova/llm"
)

// defaultKeyHint names where the key usually comes from, for auth errors
// when the config does not say.
const defaultKeyHint = "ANTHROPIC_API_KEY"

// Client streams Messages API responses as llm.StreamEvents.
type Client struct {
	sdk      sdk.Client
	provider string
	keyHint  string
}

// New returns a Client for cfg. The SDK does not retry (llm.WithRetry does,
// with events the user can see) and reads nothing from the environment:
// everything comes from cfg.
func New(cfg llm.ProviderConfig) *Client {
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(llm.NewHTTPClient(cfg)),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		// x-api-key is the Messages API's documented header for API keys;
		// this SDK version's WithAPIKey sends the key as a bearer token.
		opts = append(opts, option.WithHeader("x-api-key", cfg.APIKey))
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	provider := cfg.Key
	if provider == "" {
		provider = string(llm.ProviderAnthropic)
	}
	hint := cfg.KeyHint
	if hint == "" {
		hint = defaultKeyHint
	}
	return &Client{sdk: sdk.NewClient(opts...), provider: provider, keyHint: hint}
}

var _ llm.Client = (*Client)(nil)

// block is what a content block has accumulated so far. Tool input and the
// thinking signature arrive in pieces and are only complete at its stop.
type block struct {
	kind      string
	id, name  string
	input     strings.Builder
	start     any // the tool_use input of content_block_start, used when no deltas follow
	signature strings.Builder
	data      string // redacted_thinking payload
}

// Stream implements llm.Client.
func (c *Client) Stream(ctx context.Context, req llm.Request, emit func(llm.StreamEvent)) error {
	params, err := buildParams(req)
	if err != nil {
		return fmt.Errorf("%s: build request: %w", c.provider, err)
	}
	stream := c.sdk.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	// started says output reached the caller: before that, a stream that
	// breaks (even after message_start) is safe to retry.
	started := false
	inner := emit
	emit = func(ev llm.StreamEvent) {
		started = true
		inner(ev)
	}

	var (
		usage  llm.Usage
		stop   llm.StopReason
		blocks = map[int64]*block{}
		// counted says message_start gave the request's input counts.
		counted bool
	)
	// An interrupted response was still billed for its prompt: the counts
	// message_start gave go out before the cancellation does. Only then,
	// since output stops a failure from being retried.
	interrupted := func(err error) error {
		if counted {
			u := usage
			emit(llm.StreamEvent{Type: llm.EventUsage, Usage: &u})
		}
		return fmt.Errorf("%s: stream: %w", c.provider, err)
	}
	for stream.Next() {
		if err := ctx.Err(); err != nil {
			return interrupted(err)
		}
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			usage = llm.Usage{
				InputTokens:      int(u.InputTokens),
				OutputTokens:     int(u.OutputTokens),
				CacheReadTokens:  int(u.CacheReadInputTokens),
				CacheWriteTokens: int(u.CacheCreationInputTokens),
			}
			counted = true
		case "content_block_start":
			b := &block{kind: ev.ContentBlock.Type}
			blocks[ev.Index] = b
			cb := ev.ContentBlock
			switch b.kind {
			case "text":
				if cb.Text != "" {
					emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: cb.Text})
				}
			case "thinking":
				if cb.Thinking != "" {
					emit(llm.StreamEvent{Type: llm.EventThinkingDelta, Text: cb.Thinking})
				}
				b.signature.WriteString(cb.Signature)
			case "redacted_thinking":
				b.data = cb.Data
			case "tool_use":
				b.id, b.name, b.start = cb.ID, cb.Name, cb.Input
			}
		case "content_block_delta":
			b := blocks[ev.Index]
			if b == nil {
				return c.streamError("content_block_delta for unknown block %d", ev.Index)
			}
			d := ev.Delta
			switch d.Type {
			case "text_delta":
				emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: d.Text})
			case "thinking_delta":
				emit(llm.StreamEvent{Type: llm.EventThinkingDelta, Text: d.Thinking})
			case "signature_delta":
				b.signature.WriteString(d.Signature)
			case "input_json_delta":
				b.input.WriteString(d.PartialJSON)
			}
		case "content_block_stop":
			b := blocks[ev.Index]
			if b == nil {
				return c.streamError("content_block_stop for unknown block %d", ev.Index)
			}
			delete(blocks, ev.Index)
			switch b.kind {
			case "thinking":
				emit(llm.StreamEvent{Type: llm.EventThinkingDone, Signature: b.signature.String()})
			case "redacted_thinking":
				emit(llm.StreamEvent{Type: llm.EventThinkingDone, Signature: redactedPrefix + b.data})
			case "tool_use":
				emit(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &llm.ToolCall{
					ID: b.id, Name: b.name, Input: b.toolInput(),
				}})
			}
		case "message_delta":
			stop = normaliseStop(ev.Delta.StopReason)
			// message_delta carries cumulative counts; the input side is
			// only restated when the server revised it.
			if ev.Usage.OutputTokens > 0 {
				usage.OutputTokens = int(ev.Usage.OutputTokens)
			}
			if ev.Usage.InputTokens > 0 {
				usage.InputTokens = int(ev.Usage.InputTokens)
			}
			if ev.Usage.CacheReadInputTokens > 0 {
				usage.CacheReadTokens = int(ev.Usage.CacheReadInputTokens)
			}
			if ev.Usage.CacheCreationInputTokens > 0 {
				usage.CacheWriteTokens = int(ev.Usage.CacheCreationInputTokens)
			}
		case "message_stop":
			if stop == "" {
				stop = llm.StopEndTurn
			}
			// Usage goes out once, at the end: an event before any content
			// would count as output and stop llm.WithRetry from retrying a
			// failure that happened before the model said anything.
			u := usage
			emit(llm.StreamEvent{Type: llm.EventUsage, Usage: &u})
			emit(llm.StreamEvent{Type: llm.EventStop, StopReason: stop})
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return interrupted(err)
	}
	if err := stream.Err(); err != nil {
		return c.classify(ctx, err, started)
	}
	return c.streamError("stream ended before message_stop")
}

// toolInput is the complete input of a tool_use block. Invalid JSON is
// passed on as it came: the tool pipeline tells the model what was wrong,
// which works better than failing the whole turn.
func (b *block) toolInput() json.RawMessage {
	if s := strings.TrimSpace(b.input.String()); s != "" {
		return json.RawMessage(s)
	}
	if m, ok := b.start.(map[string]any); ok && len(m) > 0 {
		if raw, err := json.Marshal(m); err == nil {
			return raw
		}
	}
	return json.RawMessage("{}")
}

// normaliseStop maps Anthropic's stop reasons onto nova's.
func normaliseStop(r sdk.StopReason) llm.StopReason {
	switch r {
	case sdk.StopReasonToolUse:
		return llm.StopToolUse
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return llm.StopMaxTokens
	case sdk.StopReasonStopSequence:
		return llm.StopSequence
	case sdk.StopReasonRefusal:
		return llm.StopRefusal
	default:
		return llm.StopEndTurn
	}
}
