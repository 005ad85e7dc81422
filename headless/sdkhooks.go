package headless

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/nova-dev/nova/hooks"
)

// HookBridge carries the SDK's hooks (initialize's hooks): each callback
// the SDK registered becomes a hook of nova's engine, answered by the
// SDK's reply to a hook_callback control request. It is made before the
// runtime, whose engine holds the hooks, and Serve carries its requests.
type HookBridge struct {
	calls chan *hookCall
	gone  chan struct{} // closed when Serve ends: nobody answers any more
}

// hookCall is one hook_callback waiting for the SDK's answer.
type hookCall struct {
	id        string // the SDK's callback id
	input     json.RawMessage
	toolUseID string
	reply     chan hookReply
}

type hookReply struct {
	out []byte
	err error
}

// NewHookBridge returns a bridge with nothing registered.
func NewHookBridge() *HookBridge {
	return &HookBridge{calls: make(chan *hookCall), gone: make(chan struct{})}
}

// sdkHookMatcher is one of initialize's hooks entries.
type sdkHookMatcher struct {
	Matcher         string   `json:"matcher"`
	HookCallbackIDs []string `json:"hookCallbackIds"`
	Timeout         float64  `json:"timeout"` // seconds
}

// Hooks returns the request's hooks as hooks of nova's engine; an event
// nova does not fire, or a matcher it cannot read, is refused.
func (b *HookBridge) Hooks(req *InitializeRequest) ([]hooks.Hook, error) {
	events := make([]string, 0, len(req.Hooks))
	for ev := range req.Hooks {
		events = append(events, ev)
	}
	sort.Strings(events)
	var out []hooks.Hook
	for _, ev := range events {
		var ms []sdkHookMatcher
		if err := json.Unmarshal(req.Hooks[ev], &ms); err != nil {
			return nil, fmt.Errorf("initialize: hooks.%s is not a list of matchers: %v", ev, err)
		}
		for _, m := range ms {
			for _, id := range m.HookCallbackIDs {
				h, err := hooks.NewCallbackHook(hooks.Event(ev), m.Matcher, time.Duration(m.Timeout*float64(time.Second)), "SDK hook "+id, b.callback(id))
				if err != nil {
					return nil, fmt.Errorf("initialize: hooks.%s: %v", ev, err)
				}
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// callback asks the SDK to run its hook id, through Serve.
func (b *HookBridge) callback(id string) hooks.Callback {
	return func(ctx context.Context, input []byte) ([]byte, error) {
		var fields struct {
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal(input, &fields)
		c := &hookCall{id: id, input: input, toolUseID: fields.ToolUseID, reply: make(chan hookReply, 1)}
		select {
		case b.calls <- c:
		case <-b.gone:
			return nil, errors.New("the SDK's session has ended: nobody to answer the hook")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case r := <-c.reply:
			return r.out, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// hookCallback sends the SDK a hook_callback request for c; the answer
// comes as a control_response (answer).
func (s *server) hookCallback(c *hookCall) {
	id := newUUID()
	s.hookCalls[id] = c
	s.w.json(controlRequest(id, hookCallbackRequest{Subtype: "hook_callback", CallbackID: c.id, Input: c.input, ToolUseID: c.toolUseID}))
}

// hookAnswer delivers the SDK's answer to hook_callback request id; it
// reports false when id is no such request.
func (s *server) hookAnswer(id, subtype string, response json.RawMessage, msg string) bool {
	c, ok := s.hookCalls[id]
	if !ok {
		return false
	}
	delete(s.hookCalls, id)
	if subtype != "success" {
		c.reply <- hookReply{err: fmt.Errorf("the SDK's hook callback failed: %s", msg)}
		return true
	}
	if len(response) == 0 || string(response) == "null" {
		response = json.RawMessage(`{}`)
	}
	c.reply <- hookReply{out: response}
	return true
}

// failHooks answers every hook_callback still waiting with err.
func (s *server) failHooks(err error) {
	for id, c := range s.hookCalls {
		delete(s.hookCalls, id)
		c.reply <- hookReply{err: err}
	}
}
