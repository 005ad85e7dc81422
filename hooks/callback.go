package hooks

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// KindCallback is a hook answered by the program driving nova (the Claude
// Agent SDK's hooks option, through its hook_callback requests) rather
// than by something nova runs.
const KindCallback = "callback"

// Callback answers a callback hook: it gets the event's JSON and returns
// the hook's JSON output, as a command hook would print it.
type Callback func(ctx context.Context, input []byte) ([]byte, error)

// NewCallbackHook returns a hook of event ev whose matcher is read as a
// settings hook's, answered by call within timeout (0: the event's
// default). name tells it apart from the others in messages ("SDK hook
// hook_0"). An event nova does not fire is refused.
func NewCallbackHook(ev Event, matcherText string, timeout time.Duration, name string, call Callback) (Hook, error) {
	s, ok := specs[ev]
	if !ok || !s.fired {
		return Hook{}, fmt.Errorf("nova does not fire %s hooks (docs/hooks.md lists those it fires)", ev)
	}
	m, err := compileMatcher(matcherText)
	if err != nil {
		return Hook{}, err
	}
	h := Hook{Event: ev, Matcher: matcherText, Type: KindCallback, Command: name, Timeout: timeout, Call: call, File: "the SDK's hooks", m: m}
	h.id = h.identity()
	return h, nil
}

// runCallback asks h's callback; an error or a timeout is a hook that
// could not answer.
func (e *Engine) runCallback(ctx context.Context, h *Hook, ev Event, payload []byte) reply {
	limit := timeout(h, ev)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	out, err := h.Call(ctx, payload)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return reply{broken: fmt.Sprintf("timed out after %s", seconds(limit))}
	case err != nil:
		return reply{broken: fmt.Sprintf("failed: %v", err)}
	}
	return reply{stdout: string(out), body: true}
}
