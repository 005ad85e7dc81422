package remote

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
)

// aiParse is what the ai package's own parser made of a stream.
type aiParse struct {
	Rejected []string `json:"rejected"`
	Errors   []string `json:"errors"`
	Types    []string `json:"types"`
	Message  *struct {
		ID    string           `json:"id"`
		Parts []map[string]any `json:"parts"`
	} `json:"message"`
}

// parseWithAISDK feeds body to testdata/aisdk/parse.mjs. The ai package
// is installed there by .ci/run (npm ci); without it the test skips, but
// never in CI.
func parseWithAISDK(t *testing.T, body []byte) aiParse {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("testdata", "aisdk"))
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "ai")); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node and the ai package are needed in CI (run npm ci in %s): %v %v", dir, err, serr)
		}
		t.Skipf("needs node and the ai package (npm ci in %s)", dir)
	}
	cmd := exec.Command(node, filepath.Join(dir, "parse.mjs"))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("parse.mjs: %v\n%s", err, stderr.String())
	}
	var p aiParse
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("parse.mjs output %q: %v", out, err)
	}
	return p
}

// streamOf encodes a run's events as the chat stream sends them.
func streamOf(evs ...agent.Event) []byte {
	e := newUIEncoder("msg_1", "01SESSION")
	var b bytes.Buffer
	seq := int64(0)
	put := func(cs []uiChunk) {
		for _, c := range cs {
			seq++
			b.Write(sseFrame(seq, encodeChunk(c)))
		}
	}
	put(e.start())
	for _, ev := range evs {
		put(e.event(ev))
	}
	b.WriteString(sseDone)
	return b.Bytes()
}

func toolCall(id, name, input string) agent.Event {
	return agent.Event{Type: agent.EventToolCall, ToolCall: &llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}}
}

func doneEv(d agent.Done) agent.Event { return agent.Event{Type: agent.EventDone, Done: &d} }

// The chat stream, parsed by the AI SDK's own code, is accepted chunk by
// chunk and builds the message a useChat client would show.
func TestChatStreamParsesWithAISDK(t *testing.T) {
	t.Parallel()
	turn := func(n int) agent.Event { return agent.Event{Type: agent.EventTurnStart, Turn: n} }
	textEv := func(s string) agent.Event { return agent.Event{Type: agent.EventTextDelta, Text: s} }
	cases := []struct {
		name  string
		evs   []agent.Event
		check func(t *testing.T, p aiParse)
	}{
		{"text", []agent.Event{turn(1), {Type: agent.EventThinkingDelta, Text: "hmm"}, textEv("Hel"), textEv("lo."),
			doneEv(agent.Done{Subtype: agent.SubtypeSuccess, StopReason: llm.StopEndTurn})},
			func(t *testing.T, p aiParse) {
				if text := partText(p, "text"); text != "Hello." {
					t.Errorf("text part = %q", text)
				}
				if r := partText(p, "reasoning"); r != "hmm" {
					t.Errorf("reasoning part = %q", r)
				}
			}},
		{"tool call", []agent.Event{turn(1), textEv("Reading."), toolCall("call_1", "Read", `{"file_path":"a.go"}`),
			{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "call_1", Name: "Read", Output: "package a",
				Display: display.OfSearch(display.Search{Count: 1, Unit: "files"})}},
			{Type: agent.EventTodos, Todos: []display.Todo{{Content: "Read", Status: "completed", ActiveForm: "Reading"}}},
			turn(2), textEv("Done."), doneEv(agent.Done{Subtype: agent.SubtypeSuccess})},
			func(t *testing.T, p aiParse) {
				tool := part(p, "dynamic-tool", "tool-Read")
				if tool == nil || tool["state"] != "output-available" {
					t.Errorf("tool part = %+v", tool)
				}
			}},
		{"approval", []agent.Event{turn(1), toolCall("call_1", "Bash", `{"command":"rm -rf build"}`),
			{Type: agent.EventPermissionAsk, Ask: &agent.PermissionAsk{ID: "call_1", RequestID: "apr_1", Tool: "Bash",
				Input: json.RawMessage(`{"command":"rm -rf build"}`), Decision: permission.Decision{Reason: "rm -rf needs approval"}}},
			{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "call_1", Name: "Bash", Output: "Permission denied", Denied: true,
				Decision: permission.Decision{Reason: "the user denied it"}}},
			doneEv(agent.Done{Subtype: agent.SubtypeSuccess})},
			func(t *testing.T, p aiParse) {
				a := part(p, "data-nova-approval-required")
				if a == nil {
					t.Fatalf("no approval part: %+v", p.Message)
				}
				data, _ := a["data"].(map[string]any)
				if data["requestId"] != "apr_1" || data["command"] != "rm -rf build" || data["toolCallId"] != "call_1" {
					t.Errorf("approval data = %+v", data)
				}
				if tool := part(p, "dynamic-tool", "tool-Bash"); tool == nil || tool["state"] != "output-error" {
					t.Errorf("denied tool part = %+v", tool)
				}
			}},
		{"error", []agent.Event{turn(1), textEv("Partial"), {Type: agent.EventError, Text: "provider: overloaded"},
			doneEv(agent.Done{Subtype: agent.SubtypeError, IsError: true, Error: "provider: overloaded"})},
			func(t *testing.T, p aiParse) {
				if len(p.Errors) == 0 || !strings.Contains(strings.Join(p.Errors, "\n"), "overloaded") {
					t.Errorf("the reader reported no error: %+v", p.Errors)
				}
				if p.Types[len(p.Types)-1] != "finish" {
					t.Errorf("the stream does not end with finish: %v", p.Types)
				}
			}},
		{"interrupt", []agent.Event{turn(1), textEv("Working"), doneEv(agent.Done{Subtype: agent.SubtypeInterrupted})},
			func(t *testing.T, p aiParse) {
				if p.Types[len(p.Types)-1] != "abort" {
					t.Errorf("the stream does not end with abort: %v", p.Types)
				}
			}},
		{"retry voids the partial step", []agent.Event{turn(1), textEv("Half an ans"),
			{Type: agent.EventRetry, Retry: &llm.RetryInfo{Attempt: 2, MaxAttempts: 3, DiscardPartial: true, Reason: "stream cut"}},
			textEv("The whole answer."), doneEv(agent.Done{Subtype: agent.SubtypeSuccess})},
			func(t *testing.T, p aiParse) {
				if text := partText(p, "text"); text != "The whole answer." {
					t.Errorf("text after the retry = %q", text)
				}
			}},
		{"subagent", subagentEvents(),
			func(t *testing.T, p aiParse) {
				if text := partText(p, "text"); text != "Reading first.The subagent found it." {
					t.Errorf("the answer's text = %q: a subagent's text is not the answer", text)
				}
				sub := part(p, "data-nova-subagent")
				if sub == nil {
					t.Fatalf("no subagent part: %+v", p.Message)
				}
				data, _ := sub["data"].(map[string]any)
				tools, _ := data["tools"].([]any)
				if data["parentToolUseId"] != "toolu_agent" || data["text"] != "Looking. Found it in a.go." || len(tools) != 1 {
					t.Fatalf("subagent data = %+v", data)
				}
				if tl, _ := tools[0].(map[string]any); tl["toolCallId"] != "toolu_sub_bash" || tl["state"] != "output-available" {
					t.Errorf("subagent tool = %+v", tl)
				}
				agentRef, _ := data["agent"].(map[string]any)
				if agentRef["type"] != "Explore" {
					t.Errorf("agent = %+v", agentRef)
				}
				a := part(p, "data-nova-approval-required")
				ad, _ := a["data"].(map[string]any)
				if ad["parentToolUseId"] != "toolu_agent" || ad["requestId"] != "apr_sub" {
					t.Errorf("subagent approval = %+v", ad)
				}
				if tool := part(p, "dynamic-tool", "tool-Agent"); tool == nil || tool["state"] != "output-available" {
					t.Errorf("Agent tool part = %+v", tool)
				}
				if tool := part(p, "dynamic-tool", "tool-Bash"); tool != nil {
					t.Errorf("the subagent's call is a tool part of the answer: %+v", tool)
				}
			}},
		{"question", []agent.Event{turn(1), toolCall("call_q", "AskUserQuestion", `{}`),
			{Type: agent.EventQuestion, Question: &agent.QuestionAsk{ID: "q1", Questions: []tools.Question{{Question: "Which?", Options: []tools.Option{{Label: "A"}, {Label: "B"}}}}}},
			{Type: agent.EventAnswered, Answered: &agent.Answered{ID: "q1"}},
			{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "call_q", Name: "AskUserQuestion", Output: "A"}},
			doneEv(agent.Done{Subtype: agent.SubtypeSuccess})},
			func(t *testing.T, p aiParse) {
				q := part(p, "data-nova-question")
				data, _ := q["data"].(map[string]any)
				qs, _ := data["questions"].([]any)
				if data["questionId"] != "q1" || len(qs) != 1 {
					t.Errorf("question part = %+v", q)
				}
			}},
	}
	// The control: the parser does reject a malformed chunk.
	bad := parseWithAISDK(t, []byte("data: {\"type\":\"start\"}\n\ndata: {\"type\":\"text-delta\",\"delta\":\"x\"}\n\n"+sseDone))
	if len(bad.Rejected) == 0 {
		t.Fatal("the parser accepted a text-delta without an id: the check proves nothing")
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			p := parseWithAISDK(t, streamOf(tt.evs...))
			if len(p.Rejected) > 0 {
				t.Fatalf("the ai package rejected chunks: %v", p.Rejected)
			}
			if tt.name != "error" && len(p.Errors) > 0 {
				t.Errorf("reader errors: %v", p.Errors)
			}
			if p.Message == nil || p.Message.ID != "msg_1" {
				t.Fatalf("message = %+v", p.Message)
			}
			if s := part(p, "data-nova-session"); s == nil {
				t.Errorf("no session part")
			}
			tt.check(t, p)
		})
	}
}

func part(p aiParse, types ...string) map[string]any {
	if p.Message == nil {
		return nil
	}
	for _, pt := range p.Message.Parts {
		for _, ty := range types {
			if pt["type"] == ty {
				return pt
			}
		}
	}
	return nil
}

func partText(p aiParse, ty string) string {
	var s string
	if p.Message == nil {
		return ""
	}
	for _, pt := range p.Message.Parts {
		if pt["type"] == ty {
			t, _ := pt["text"].(string)
			s += t
		}
	}
	return s
}

// subagentEvents is a run whose Agent call's subagent writes, asks for
// a Bash call and runs it, as agent.Event's ParentToolUseID describes.
func subagentEvents() []agent.Event {
	ref := &agent.AgentRef{ID: "a1", Type: "Explore", Description: "Find the parser"}
	sub := func(ev agent.Event) agent.Event {
		ev.ParentToolUseID, ev.Agent = "toolu_agent", ref
		return ev
	}
	return []agent.Event{
		{Type: agent.EventTurnStart, Turn: 1},
		{Type: agent.EventTextDelta, Text: "Reading first."},
		toolCall("toolu_agent", "Agent", `{"description":"Find the parser","subagent_type":"Explore","prompt":"find it"}`),
		sub(agent.Event{Type: agent.EventTurnStart, Turn: 1}),
		sub(agent.Event{Type: agent.EventTextDelta, Text: "Looking. "}),
		sub(toolCall("toolu_sub_bash", "Bash", `{"command":"grep -l parse *.go"}`)),
		sub(agent.Event{Type: agent.EventPermissionAsk, Ask: &agent.PermissionAsk{ID: "toolu_sub_bash", RequestID: "apr_sub", Tool: "Bash",
			Input: json.RawMessage(`{"command":"grep -l parse *.go"}`), Decision: permission.Decision{Reason: "Bash needs approval"}}}),
		sub(agent.Event{Type: agent.EventAnswered, Answered: &agent.Answered{ID: "toolu_sub_bash", RequestID: "apr_sub", Allow: true}}),
		sub(agent.Event{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "toolu_sub_bash", Name: "Bash", Output: "a.go"}}),
		sub(agent.Event{Type: agent.EventTextDelta, Text: "Found it in a.go."}),
		sub(agent.Event{Type: agent.EventTurnEnd, Turn: 1}),
		{Type: agent.EventToolResult, Result: &agent.ToolResult{ID: "toolu_agent", Name: "Agent", Output: "The parser is in a.go."}},
		{Type: agent.EventTurnStart, Turn: 2},
		{Type: agent.EventTextDelta, Text: "The subagent found it."},
		doneEv(agent.Done{Subtype: agent.SubtypeSuccess}),
	}
}
