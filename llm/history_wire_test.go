package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/anthropic"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/llm/openai"
)

// The rules below are the providers' own, as their documentation and the
// errors of their APIs state them, checked on the request body the fake
// provider received: what the real API would have been sent.
//
// Anthropic (Messages API, "Handle tool calls"): tool_result blocks must
// immediately follow the assistant message holding their tool_use, come
// first in the user message's content, and answer a tool_use of that
// message; every tool_use is answered; tool_use ids match ^[a-zA-Z0-9_-]+$
// ("tool_use.id: String should match pattern") and are unique; inputs are
// objects; no empty message, no empty text block ("text content blocks
// must be non-empty"); the request does not end with the assistant (no
// prefill). Roles are held to strict alternation, stricter than the API,
// which merges consecutive turns.
//
// OpenAI chat completions: "messages with role 'tool' must be a response to
// a preceding message with 'tool_calls'", and "an assistant message with
// 'tool_calls' must be followed by tool messages responding to each
// 'tool_call_id'".
//
// OpenAI Responses: "No tool call found for function call output with
// call_id ...", and "No tool output found for function call ...".

var toolUseID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	Source    *struct {
		Data string `json:"data"`
	} `json:"source"`
	Content json.RawMessage `json:"content"`
}

// blocks decodes a message's content: a string or a list of blocks.
func blocks(raw json.RawMessage) ([]anthropicBlock, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: &s}}, nil
	}
	var bs []anthropicBlock
	err := json.Unmarshal(raw, &bs)
	return bs, err
}

func checkAnthropic(body []byte) error {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	if len(req.Messages) == 0 {
		return fmt.Errorf("no messages")
	}
	ids := map[string]bool{}
	var calls []string // tool_use ids of the message before
	for i, m := range req.Messages {
		switch {
		case m.Role != "user" && m.Role != "assistant":
			return fmt.Errorf("messages.%d: role %q", i, m.Role)
		case i == 0 && m.Role != "user":
			return fmt.Errorf("messages.0: first message is %s", m.Role)
		case i > 0 && req.Messages[i-1].Role == m.Role:
			return fmt.Errorf("messages.%d: roles do not alternate", i)
		}
		bs, err := blocks(m.Content)
		if err != nil {
			return fmt.Errorf("messages.%d: %v", i, err)
		}
		if len(bs) == 0 {
			return fmt.Errorf("messages.%d: all messages must have non-empty content", i)
		}
		answered := map[string]bool{}
		leading := true
		for j, b := range bs {
			where := fmt.Sprintf("messages.%d.content.%d", i, j)
			switch b.Type {
			case "text":
				if b.Text == nil || *b.Text == "" {
					return fmt.Errorf("%s: text content blocks must be non-empty", where)
				}
			case "image":
				if m.Role != "user" || b.Source == nil || b.Source.Data == "" {
					return fmt.Errorf("%s: bad image", where)
				}
			case "thinking", "redacted_thinking":
				if m.Role != "assistant" || (b.Type == "thinking" && b.Signature == "") || (b.Type == "redacted_thinking" && b.Data == "") {
					return fmt.Errorf("%s: bad %s block", where, b.Type)
				}
			case "tool_use":
				var obj map[string]any
				switch {
				case m.Role != "assistant":
					return fmt.Errorf("%s: tool_use in a %s message", where, m.Role)
				case !toolUseID.MatchString(b.ID):
					return fmt.Errorf("%s.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$': %q", where, b.ID)
				case ids[b.ID]:
					return fmt.Errorf("%s: tool_use ids must be unique: %s", where, b.ID)
				case b.Name == "":
					return fmt.Errorf("%s: tool_use without a name", where)
				case json.Unmarshal(b.Input, &obj) != nil || obj == nil:
					return fmt.Errorf("%s: tool_use input is not an object: %s", where, b.Input)
				}
				ids[b.ID] = true
			case "tool_result":
				switch {
				case m.Role != "user":
					return fmt.Errorf("%s: tool_result in a %s message", where, m.Role)
				case !leading:
					return fmt.Errorf("%s: tool_result blocks must come first in the content", where)
				case !contains(calls, b.ToolUseID):
					return fmt.Errorf("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message", where, b.ToolUseID)
				case answered[b.ToolUseID]:
					return fmt.Errorf("%s: tool_use %s answered twice", where, b.ToolUseID)
				}
				answered[b.ToolUseID] = true
				if len(b.Content) > 0 {
					inner, err := blocks(b.Content)
					if err != nil {
						return fmt.Errorf("%s: %v", where, err)
					}
					for _, c := range inner {
						if (c.Type == "image" && (c.Source == nil || c.Source.Data == "")) || (c.Type == "text" && (c.Text == nil || *c.Text == "")) {
							return fmt.Errorf("%s: empty %s in a tool_result", where, c.Type)
						}
					}
				}
			default:
				return fmt.Errorf("%s: unknown block type %q", where, b.Type)
			}
			if b.Type != "tool_result" {
				leading = false
			}
		}
		if m.Role == "assistant" {
			calls = nil
			for _, b := range bs {
				if b.Type == "tool_use" {
					calls = append(calls, b.ID)
				}
			}
			continue
		}
		for _, c := range calls {
			if !answered[c] {
				return fmt.Errorf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s", i-1, c)
			}
		}
		calls = nil
	}
	if last := req.Messages[len(req.Messages)-1]; last.Role != "user" {
		return fmt.Errorf("the request ends with an assistant message (prefill)")
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// nonEmpty reports whether an OpenAI content field (string or parts) says something.
func nonEmpty(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s != ""
	}
	var parts []json.RawMessage
	return json.Unmarshal(raw, &parts) == nil && len(parts) > 0
}

func checkChat(body []byte) error {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	ids := map[string]bool{}
	pending := map[string]bool{}
	for i, m := range req.Messages {
		where := fmt.Sprintf("messages[%d]", i)
		switch m.Role {
		case "system":
			if i != 0 {
				return fmt.Errorf("%s: system message not first", where)
			}
		case "assistant", "user":
			if len(pending) > 0 {
				return fmt.Errorf("%s: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (%d unanswered)", where, len(pending))
			}
			if m.Role == "user" && !nonEmpty(m.Content) {
				return fmt.Errorf("%s: empty user message", where)
			}
			if m.Role == "assistant" && !nonEmpty(m.Content) && len(m.ToolCalls) == 0 {
				return fmt.Errorf("%s: assistant message with neither content nor tool_calls", where)
			}
			for _, tc := range m.ToolCalls {
				switch {
				case tc.ID == "" || ids[tc.ID]:
					return fmt.Errorf("%s: tool call id %q empty or repeated", where, tc.ID)
				case tc.Function.Name == "":
					return fmt.Errorf("%s: tool call %s without a name", where, tc.ID)
				case !json.Valid([]byte(tc.Function.Arguments)):
					return fmt.Errorf("%s: tool call %s arguments are not JSON: %q", where, tc.ID, tc.Function.Arguments)
				}
				ids[tc.ID] = true
				pending[tc.ID] = true
			}
		case "tool":
			if !pending[m.ToolCallID] {
				return fmt.Errorf("%s: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (%s)", where, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		default:
			return fmt.Errorf("%s: role %q", where, m.Role)
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("the request ends with %d unanswered tool calls", len(pending))
	}
	if n := len(req.Messages); n == 0 || req.Messages[n-1].Role == "assistant" {
		return fmt.Errorf("the request does not end with the user or a tool")
	}
	return nil
}

func checkResponses(body []byte) error {
	var req struct {
		Input []struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	answered := map[string]bool{}
	for i, it := range req.Input {
		where := fmt.Sprintf("input[%d]", i)
		switch it.Type {
		case "function_call":
			switch {
			case it.CallID == "":
				return fmt.Errorf("%s: function_call without call_id", where)
			case answeredOrCalled(answered, it.CallID):
				return fmt.Errorf("%s: call_id %s repeated", where, it.CallID)
			case it.Name == "" || !json.Valid([]byte(it.Arguments)):
				return fmt.Errorf("%s: function_call %s without a name or with arguments %q", where, it.CallID, it.Arguments)
			}
			answered[it.CallID] = false
		case "function_call_output":
			done, called := answered[it.CallID]
			if !called || done {
				return fmt.Errorf("%s: No tool call found for function call output with call_id %s", where, it.CallID)
			}
			answered[it.CallID] = true
		case "message", "":
			if !nonEmpty(it.Content) {
				return fmt.Errorf("%s: empty %s message", where, it.Role)
			}
		default:
			return fmt.Errorf("%s: item type %q", where, it.Type)
		}
	}
	for id, done := range answered {
		if !done {
			return fmt.Errorf("No tool output found for function call %s", id)
		}
	}
	return nil
}

func answeredOrCalled(m map[string]bool, id string) bool {
	_, ok := m[id]
	return ok
}

// wire sends histories through the real provider clients to the fake
// provider and checks the request bodies it receives.
type wire struct {
	srv     *llmtest.Server
	clients []wireClient
}

type wireClient struct {
	name  string
	c     llm.Client
	check func([]byte) error
}

func newWire(t testing.TB) *wire {
	srv := llmtest.New()
	t.Cleanup(srv.Close)
	return &wire{srv: srv, clients: []wireClient{
		{"anthropic", anthropic.New(llm.ProviderConfig{Type: llm.ProviderAnthropic, BaseURL: srv.URL, APIKey: "sk-test"}), checkAnthropic},
		{"chat", openai.NewChat(llm.ProviderConfig{Type: llm.ProviderOpenAICompatible, BaseURL: srv.URL + "/v1", APIKey: "sk-test"}), checkChat},
		{"responses", openai.NewResponses(llm.ProviderConfig{Type: llm.ProviderOpenAIResponse, BaseURL: srv.URL + "/v1", APIKey: "sk-test"}), checkResponses},
	}}
}

var testTools = []llm.ToolSpec{
	{Name: "Read", Description: "read", InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)},
	{Name: "Bash", Description: "run", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
}

// send builds a request from msgs with client c and returns why the
// provider would refuse it: the client could not build it, or its body
// breaks the provider's rules. nil means it would be accepted.
func (w *wire) send(c wireClient, msgs []llm.Message) error {
	before := len(w.srv.Requests())
	w.srv.Push(llmtest.Turn{Text: "ok"})
	err := c.c.Stream(context.Background(), llm.Request{Model: "test-model", Messages: msgs, Tools: testTools, MaxTokens: 256}, func(llm.StreamEvent) {})
	reqs := w.srv.Requests()
	if len(reqs) == before {
		// Never sent: the client refused to build it. Take the turn back.
		w.srv.Push()
		return fmt.Errorf("%s: not sent: %v", c.name, err)
	}
	if cerr := c.check(reqs[len(reqs)-1].Body); cerr != nil {
		return fmt.Errorf("%s: %v", c.name, cerr)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", c.name, err)
	}
	return nil
}
