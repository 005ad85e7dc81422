package headless

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools/display"
)

var explore = &agent.AgentRef{ID: "a1b2c3d4", Type: "Explore", Description: "look around"}

// sub marks ev as the work of the Explore subagent of call toolu_A.
func sub(ev agent.Event) agent.Event {
	ev.ParentToolUseID, ev.Agent = "toolu_A", explore
	return ev
}

// subagentRun is a run whose model hands a task to a subagent (call
// toolu_A) while its own response is still open: the subagent's events
// come between the run's, and end with the call's result.
func subagentRun() replay {
	return replay{
		{Type: agent.EventTurnStart, Turn: 1},
		{Type: agent.EventTextDelta, Turn: 1, Text: "Delegating."},
		{Type: agent.EventToolCall, Turn: 1, ToolCall: &llm.ToolCall{ID: "toolu_A", Name: "Agent", Input: json.RawMessage(`{"description":"look around","prompt":"find it","subagent_type":"Explore"}`)}},
		sub(agent.Event{Type: agent.EventTurnStart, Turn: 1}),
		sub(agent.Event{Type: agent.EventThinkingDelta, Turn: 1, Text: "Where?"}),
		sub(agent.Event{Type: agent.EventTextDelta, Turn: 1, Text: "Reading a.txt."}),
		sub(agent.Event{Type: agent.EventToolCall, Turn: 1, ToolCall: &llm.ToolCall{ID: "toolu_s1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.txt"}`)}}),
		// The run's own response ends while the subagent works.
		{Type: agent.EventTurnEnd, Turn: 1, StopReason: llm.StopToolUse, Usage: &llm.Usage{OutputTokens: 9}},
		sub(agent.Event{Type: agent.EventToolProgress, Progress: &display.Progress{CallID: "toolu_s1", Progress: 1}}),
		sub(agent.Event{Type: agent.EventToolResult, Turn: 1, Result: &agent.ToolResult{ID: "toolu_s1", Name: "Read", Output: "it is here"}}),
		sub(agent.Event{Type: agent.EventTurnEnd, Turn: 1, StopReason: llm.StopToolUse, Usage: &llm.Usage{OutputTokens: 4}}),
		sub(agent.Event{Type: agent.EventTodos, Todos: []display.Todo{{Content: "the subagent's own", Status: "pending"}}}),
		sub(agent.Event{Type: agent.EventContext, Context: &agent.ContextUsage{Used: 10, Limit: 100}}),
		sub(agent.Event{Type: agent.EventTurnStart, Turn: 2}),
		sub(agent.Event{Type: agent.EventTextDelta, Turn: 2, Text: "SUBAGENT REPORT: it is in a.txt"}),
		sub(agent.Event{Type: agent.EventTurnEnd, Turn: 2, StopReason: llm.StopEndTurn, Usage: &llm.Usage{OutputTokens: 6}}),
		// A done that strays from a subagent is not the run's.
		sub(done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "SUBAGENT REPORT: it is in a.txt"})),
		{Type: agent.EventToolResult, Turn: 1, Result: &agent.ToolResult{ID: "toolu_A", Name: "Agent", Output: "it is in a.txt"}},
		{Type: agent.EventTurnStart, Turn: 2},
		{Type: agent.EventTextDelta, Turn: 2, Text: "Found it in a.txt."},
		{Type: agent.EventTurnEnd, Turn: 2, StopReason: llm.StopEndTurn, Usage: &llm.Usage{OutputTokens: 5}},
		done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "Found it in a.txt.", NumTurns: 2, StopReason: llm.StopEndTurn}),
	}
}

// TestSubagentMessagesNest: in stream-json a subagent's assistant, user
// and stream_event messages carry the Agent call's id as
// parent_tool_use_id, as Claude Code writes a subagent's; its response is
// its own (block indexes from 0) beside the run's; its todos and context
// are not the run's; the result is the run's own answer.
func TestSubagentMessagesNest(t *testing.T) {
	var out, errOut strings.Builder
	code := Run(context.Background(), subagentRun(), Options{Prompt: "p", Format: FormatStreamJSON, SessionID: "S", Model: "m:x",
		Partial: true, Stdout: &out, Stderr: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	ms, kinds := messages(t, out.String())
	var subTexts, mainTexts []string
	subStarts := 0
	for i, m := range ms {
		parent, has := m["parent_tool_use_id"]
		k := kinds[i]
		if k == "assistant" || k == "user" || strings.HasPrefix(k, "stream_event") || k == "tool_progress" {
			if !has {
				t.Errorf("%s lacks parent_tool_use_id: %v", k, m)
			}
		}
		isSub := parent == "toolu_A"
		if parent != nil && !isSub {
			t.Errorf("%s has parent_tool_use_id %v", k, parent)
		}
		switch {
		case k == "assistant":
			b := blockOf(m)
			if b["type"] == "text" {
				if isSub {
					subTexts = append(subTexts, b["text"].(string))
				} else {
					mainTexts = append(mainTexts, b["text"].(string))
				}
			}
		case k == "user":
			id := blockOf(m)["tool_use_id"]
			if (id == "toolu_s1") != isSub {
				t.Errorf("tool_result of %v has parent_tool_use_id %v", id, parent)
			}
		case k == "stream_event/message_start" && isSub:
			subStarts++
		case k == "stream_event/content_block_start" && isSub && subStarts == 1:
			if idx := m["event"].(map[string]any)["index"]; subStarts == 1 && idx.(float64) > 2 {
				t.Errorf("the subagent's block index %v: its response numbers its own blocks", idx)
			}
		case k == "system/nova_todos" || k == "system/nova_context":
			if isSub {
				t.Errorf("the subagent's %s came out as the run's", k)
			}
		case k == "tool_progress":
			if !isSub {
				t.Errorf("the subagent's call's progress has parent_tool_use_id %v", parent)
			}
		}
	}
	if strings.Join(subTexts, "|") != "Reading a.txt.|SUBAGENT REPORT: it is in a.txt" || subStarts != 2 {
		t.Errorf("subagent texts %q in %d responses", subTexts, subStarts)
	}
	if strings.Join(mainTexts, "|") != "Delegating.|Found it in a.txt." {
		t.Errorf("run texts %q", mainTexts)
	}
	res := ms[len(ms)-1]
	if res["type"] != "result" || res["result"] != "Found it in a.txt." || res["is_error"] != false {
		t.Errorf("result = %v, want the run's own answer", res)
	}
	// The run's first response ends once, with its own stop reason.
	var mainStops []any
	for i, m := range ms {
		if kinds[i] == "stream_event/message_delta" && m["parent_tool_use_id"] == nil {
			mainStops = append(mainStops, m["event"].(map[string]any)["delta"].(map[string]any)["stop_reason"])
		}
	}
	if len(mainStops) != 2 || mainStops[0] != "tool_use" || mainStops[1] != "end_turn" {
		t.Errorf("the run's responses stopped with %v", mainStops)
	}
}

// TestSubagentNotTheAnswer: in text and json output a subagent's work is
// no part of the answer.
func TestSubagentNotTheAnswer(t *testing.T) {
	out, errOut, code := run(t, context.Background(), FormatText, subagentRun())
	if code != ExitOK || out != "Found it in a.txt.\n" {
		t.Errorf("text output %q (exit %d, stderr %s), want the run's answer only", out, code, errOut)
	}
	out, _, code = run(t, context.Background(), FormatJSON, subagentRun())
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitOK {
		t.Fatalf("json output %q (exit %d): %v", out, code, err)
	}
	if res["result"] != "Found it in a.txt." || strings.Contains(out, "SUBAGENT") {
		t.Errorf("json result = %s, want the run's answer only", out)
	}
	// Only the subagent's done: the run has no result of its own.
	lone := replay{sub(done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "SUBAGENT REPORT"}))}
	out, _, code = run(t, context.Background(), FormatText, lone)
	if code != ExitFailed || out != "" {
		t.Errorf("a run with only a subagent's done: output %q exit %d, want nothing and 1", out, code)
	}
}

// subagentRunner makes the real agent's run the work of a subagent: the
// parent's Agent call toolu_A, the agent's events as the subagent's, then
// the call's result and the parent's answer. The asks are the agent's
// own, so they are answered as a real subagent's would be.
type subagentRunner struct{ inner *agent.Agent }

func (r subagentRunner) Run(ctx context.Context, in llm.Message) <-chan agent.Event {
	ch := make(chan agent.Event)
	go func() {
		defer close(ch)
		ch <- agent.Event{Type: agent.EventTurnStart, Turn: 1}
		ch <- agent.Event{Type: agent.EventToolCall, Turn: 1, ToolCall: &llm.ToolCall{ID: "toolu_A", Name: "Agent", Input: json.RawMessage(`{"prompt":"do it"}`)}}
		ch <- agent.Event{Type: agent.EventTurnEnd, Turn: 1, StopReason: llm.StopToolUse, Usage: &llm.Usage{}}
		var report string
		for ev := range r.inner.Run(ctx, in) {
			if ev.Type == agent.EventDone {
				report = ev.Done.Result
				continue // a subagent sends no done
			}
			ch <- sub(ev)
		}
		ch <- agent.Event{Type: agent.EventToolResult, Turn: 1, Result: &agent.ToolResult{ID: "toolu_A", Name: "Agent", Output: report}}
		ch <- done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "The subagent said: " + report, NumTurns: 1})
	}()
	return ch
}

// TestServeSubagentAsk: a subagent's permission ask goes to the SDK as
// can_use_tool like the run's own, naming the subagent by agent_id (the
// SDK's agentID), and the answer is the subagent call's.
func TestServeSubagentAsk(t *testing.T) {
	srv := llmtest.New(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_s1", Name: "Write", Input: `{"file_path":"one.txt","content":"one"}`}}},
		llmtest.Turn{Text: "wrote it"},
	)
	defer srv.Close()
	h := newSDKHarnessWith(t, srv, false, func(a *agent.Agent) Runner { return subagentRunner{inner: a} })
	h.user("delegate")
	seen := h.until("can_use_tool", is("control_request", ""))
	ask := seen[len(seen)-1]
	r, _ := ask["request"].(map[string]any)
	if r["subtype"] != "can_use_tool" || r["tool_use_id"] != "toolu_s1" || r["agent_id"] != explore.ID {
		t.Fatalf("request = %v, want the subagent's Write with agent_id %s", ask, explore.ID)
	}
	h.send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + ask["request_id"].(string) +
		`","response":{"behavior":"allow","toolUseID":"toolu_s1"}}}`)
	rest := h.until("the result", is("result", ""))
	if b, err := os.ReadFile(filepath.Join(h.ws, "one.txt")); err != nil || string(b) != "one" {
		t.Errorf("one.txt = %q (%v): the allowed subagent call did not run", b, err)
	}
	for _, m := range append(seen, rest...) {
		if m["type"] != "user" {
			continue
		}
		id := blockOf(m)["tool_use_id"]
		if want := map[any]any{"toolu_s1": "toolu_A", "toolu_A": nil}[id]; m["parent_tool_use_id"] != want {
			t.Errorf("tool_result of %v: parent_tool_use_id %v, want %v", id, m["parent_tool_use_id"], want)
		}
	}
	if res := rest[len(rest)-1]; res["result"] != "The subagent said: wrote it" {
		t.Errorf("result = %v", res["result"])
	}
	h.exit()
}

// blockOf is the first content block of an assistant or user message.
func blockOf(m map[string]any) map[string]any {
	msg, _ := m["message"].(map[string]any)
	blocks, _ := msg["content"].([]any)
	if len(blocks) == 0 {
		return map[string]any{}
	}
	b, _ := blocks[0].(map[string]any)
	return b
}
