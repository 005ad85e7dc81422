package agent

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/nova-dev/nova/llm"
)

// scripted is a fake llm.Client: each Stream call plays the next response.
type scripted struct {
	mu    sync.Mutex
	resps []func(ctx context.Context, emit func(llm.StreamEvent)) error
	reqs  []llm.Request
}

// add appends scripted responses.
func (s *scripted) add(rs ...func(context.Context, func(llm.StreamEvent)) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resps = append(s.resps, rs...)
}

// requests returns a copy of the requests received so far.
func (s *scripted) requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.reqs...)
}

// Stream implements llm.Client.
func (s *scripted) Stream(ctx context.Context, req llm.Request, emit func(llm.StreamEvent)) error {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.resps) == 0 {
		s.mu.Unlock()
		return errors.New("no scripted response left")
	}
	r := s.resps[0]
	s.resps = s.resps[1:]
	s.mu.Unlock()
	return r(ctx, emit)
}

// reply streams text and tool calls, then stops.
func reply(text string, calls ...llm.ToolCall) func(context.Context, func(llm.StreamEvent)) error {
	return func(ctx context.Context, emit func(llm.StreamEvent)) error {
		if text != "" {
			emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: text})
		}
		for i := range calls {
			emit(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &calls[i]})
		}
		emit(llm.StreamEvent{Type: llm.EventUsage, Usage: &llm.Usage{InputTokens: 100, OutputTokens: 10}})
		stop := llm.StopEndTurn
		if len(calls) > 0 {
			stop = llm.StopToolUse
		}
		emit(llm.StreamEvent{Type: llm.EventStop, StopReason: stop})
		return nil
	}
}

func drain(ch <-chan Event, onAsk func(*PermissionAsk)) []Event {
	var evs []Event
	for ev := range ch {
		if ev.Type == EventPermissionAsk && onAsk != nil {
			onAsk(ev.Ask)
		}
		evs = append(evs, ev)
	}
	return evs
}

func last(evs []Event) *Done { return evs[len(evs)-1].Done }

func call(id, name, input string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}
