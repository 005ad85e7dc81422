package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
)

// hookRunner plays a turn with one tool call whose PreToolUse hook runs,
// on goroutines of its own as the engine's do, before the call's event
// reaches the encoder; an async hook is still telling as the run ends.
type hookRunner struct {
	h  *HookEvents
	wg *sync.WaitGroup
}

func (r hookRunner) Run(ctx context.Context, _ llm.Message) <-chan agent.Event {
	ch := make(chan agent.Event)
	go func() {
		defer close(ch)
		ch <- agent.Event{Type: agent.EventTurnStart, Turn: 1}
		var hook sync.WaitGroup
		hook.Add(1)
		go func() {
			defer hook.Done()
			code := 0
			r.h.Observe(hooks.Observation{ID: "h1", Name: "PreToolUse:Bash", Event: hooks.PreToolUse, ToolUseID: "toolu_1"})
			r.h.Observe(hooks.Observation{ID: "h1", Name: "PreToolUse:Bash", Event: hooks.PreToolUse, ToolUseID: "toolu_1", Done: true,
				Stdout: "ok\n", Output: "ok", ExitCode: &code, Outcome: hooks.OutcomeSuccess})
		}()
		hook.Wait() // the hook ran before the encoder saw the call
		ch <- agent.Event{Type: agent.EventToolCall, Turn: 1, ToolCall: &llm.ToolCall{ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}}
		ch <- agent.Event{Type: agent.EventToolResult, Turn: 1, Result: &agent.ToolResult{ID: "toolu_1", Name: "Bash", Output: "a"}}
		ch <- agent.Event{Type: agent.EventTurnEnd, Turn: 1, StopReason: llm.StopToolUse}
		r.wg.Add(1)
		go func() {
			// An async hook telling while the run winds down: its
			// messages go before the result or not at all.
			defer r.wg.Done()
			for range 50 {
				r.h.Observe(hooks.Observation{ID: "h2", Name: "Stop", Event: hooks.Stop})
			}
		}()
		d := agent.Done{Subtype: agent.SubtypeSuccess, Result: "done"}
		ch <- agent.Event{Type: agent.EventDone, Done: &d}
	}()
	return ch
}

// TestHookEventsOrder: a SessionStart run told before the output began
// follows the init message; a tool call's hook messages follow the call's
// assistant message though the hook ran first; the result is the last
// line, whatever hooks tell after it.
func TestHookEventsOrder(t *testing.T) {
	h := NewHookEvents()
	h.Observe(hooks.Observation{ID: "h0", Name: "SessionStart:startup", Event: hooks.SessionStart})
	h.Observe(hooks.Observation{ID: "h0", Name: "SessionStart:startup", Event: hooks.SessionStart, Done: true, Outcome: hooks.OutcomeSuccess})
	var wg sync.WaitGroup
	var out, errOut bytes.Buffer
	code := Run(context.Background(), hookRunner{h: h, wg: &wg}, Options{Prompt: "p", Format: FormatStreamJSON, SessionID: "S", Model: "m:x",
		HookEvents: h, Stdout: &out, Stderr: &errOut})
	wg.Wait()
	h.Observe(hooks.Observation{ID: "h3", Name: "SessionEnd:other", Event: hooks.SessionEnd})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	ms, kinds := messages(t, out.String())
	var got []string
	for i, k := range kinds {
		switch {
		case k == "system/hook_started" || k == "system/hook_response":
			got = append(got, k+"("+ms[i]["hook_id"].(string)+")")
		case k == "system/init" || k == "assistant" || k == "user" || k == "result":
			got = append(got, k)
		}
	}
	s := strings.Join(got, " ")
	s = strings.ReplaceAll(s, " system/hook_started(h2)", "")
	// Claude Code 2.1.333 writes the SessionStart hook's messages ahead of
	// init (testdata/agentsdk/claude/hook-events*.jsonl, and a recording
	// with a SessionStart hook: TestHookEventsAsClaudeCode).
	want := "system/hook_started(h0) system/hook_response(h0) system/init assistant system/hook_started(h1) system/hook_response(h1) user result"
	if s != want {
		t.Errorf("messages:\n got %s\nwant %s", s, want)
	}
	resp := ms[slicesIndex(kinds, "system/hook_response", 2)]
	if resp["session_id"] != "S" || resp["exit_code"] != 0.0 || resp["outcome"] != "success" || resp["stdout"] != "ok\n" || resp["hook_event"] != "PreToolUse" {
		t.Errorf("the tool call's hook_response: %v", resp)
	}
	if strings.Contains(out.String(), `"h3"`) {
		t.Error("a hook told after the output ended was written")
	}
}

// slicesIndex is the index of the nth (from 1) k in kinds.
func slicesIndex(kinds []string, k string, n int) int {
	for i, x := range kinds {
		if x == k {
			if n--; n == 0 {
				return i
			}
		}
	}
	return -1
}
