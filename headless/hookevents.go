package headless

import (
	"sync"

	"github.com/nova-dev/nova/hooks"
)

// maxHeldHooks bounds the hook runs kept before the output begins.
const maxHeldHooks = 256

// HookEvents writes a system message for each hook nova runs
// (--include-hook-events, the SDK's includeHookEvents): hook_started as
// it starts, hook_response as it ends, in the SDK's SDKHookStartedMessage
// and SDKHookResponseMessage shapes. nova has no progress of a running
// hook to tell, so it writes no hook_progress. It is made before the
// runtime, whose engine tells it of runs (Observe, hooks.Session's
// Observe), and Run or Serve give it the output. Runs told before the
// output begins (SessionStart's) are written as it begins; runs after it
// ends (SessionEnd's, as nova closes) are not, so the result stays last.
//
// A tool call's hooks start as the call arrives, which can be before the
// encoder has written the assistant message that makes it: their
// messages wait for that message (called), so a host never reads of a
// hook about a call it has not seen.
type HookEvents struct {
	mu        sync.Mutex
	w         *writer
	sessionID string
	held      []hooks.Observation
	ended     bool
	// written are the tool calls whose assistant message is out; waiting
	// are the runs about the others, by call.
	written map[string]bool
	waiting map[string][]hooks.Observation
}

// NewHookEvents returns HookEvents with no output yet.
func NewHookEvents() *HookEvents {
	return &HookEvents{written: map[string]bool{}, waiting: map[string][]hooks.Observation{}}
}

// Observe writes o's message; it is the hook engine's Observe, called
// from the goroutines that run hooks.
func (h *HookEvents) Observe(o hooks.Observation) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.ended:
	case h.w == nil:
		if len(h.held) < maxHeldHooks {
			h.held = append(h.held, o)
		}
	case o.ToolUseID != "" && !h.written[o.ToolUseID]:
		h.waiting[o.ToolUseID] = append(h.waiting[o.ToolUseID], o)
	default:
		h.write(o)
	}
}

// called says the assistant message of tool call id is written: the
// messages of its hooks follow it.
func (h *HookEvents) called(id string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.written[id] = true
	if h.w == nil {
		return
	}
	for _, o := range h.waiting[id] {
		h.write(o)
	}
	delete(h.waiting, id)
}

// begin starts writing on w, for the session: first the runs held.
func (h *HookEvents) begin(w *writer, sessionID string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.w != nil || h.ended {
		return
	}
	h.w, h.sessionID = w, sessionID
	held := h.held
	h.held = nil
	for _, o := range held {
		if o.ToolUseID != "" && !h.written[o.ToolUseID] {
			h.waiting[o.ToolUseID] = append(h.waiting[o.ToolUseID], o)
			continue
		}
		h.write(o)
	}
}

// setSession names the session later messages belong to (a set_model
// that had to start a new one).
func (h *HookEvents) setSession(id string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sessionID = id
}

// end stops writing: the output is about to end. Runs still waiting
// for their call's message (a call the model's response never finished)
// are written first: they did run.
func (h *HookEvents) end() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.w != nil {
		for _, runs := range h.waiting {
			for _, o := range runs {
				h.write(o)
			}
		}
	}
	h.ended, h.w, h.held, h.waiting = true, nil, nil, nil
}

// write writes o's message; mu is held.
func (h *HookEvents) write(o hooks.Observation) {
	if !o.Done {
		h.w.json(sdkHookStartedMessage{Type: "system", Subtype: "hook_started", HookID: o.ID, HookName: o.Name,
			HookEvent: string(o.Event), UUID: newUUID(), SessionID: h.sessionID})
		return
	}
	h.w.json(sdkHookResponseMessage{Type: "system", Subtype: "hook_response", HookID: o.ID, HookName: o.Name,
		HookEvent: string(o.Event), Output: o.Output, Stdout: o.Stdout, Stderr: o.Stderr, ExitCode: o.ExitCode,
		Outcome: o.Outcome, UUID: newUUID(), SessionID: h.sessionID})
}
