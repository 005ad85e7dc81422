package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestSubagentStartsReadOnlyAgentsE2E: a general-purpose subagent has an
// Agent tool, told as starting only Explore and Plan; an Explore it starts
// runs (and has no Agent tool of its own: nesting stops there) and its
// answer comes back to the subagent; a general-purpose one it asks for is
// refused, saying which it may start. The parent is told every type's
// tools by name, not "all tools".
func TestSubagentStartsReadOnlyAgentsE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{agentCall("toolu_gp", map[string]any{
			"description": "survey", "prompt": "Survey the repo (task-G).", "subagent_type": "general-purpose"})}},
		llmtest.Turn{Match: "task-G", ToolCalls: []llmtest.ToolCall{
			agentCall("toolu_ex", map[string]any{"description": "find greet", "prompt": "Find greet.txt (task-E).", "subagent_type": "Explore"}),
		}},
		llmtest.Turn{Match: "task-E", Text: "greet.txt is at the root (found-by-explore)."},
		llmtest.Turn{Match: "task-G", ToolCalls: []llmtest.ToolCall{
			agentCall("toolu_deep", map[string]any{"description": "deeper", "prompt": "Go deeper (task-D).", "subagent_type": "general-purpose"}),
		}},
		llmtest.Turn{Match: "task-G", Text: "Survey done: greet.txt at the root."},
		llmtest.Turn{Text: "The survey found greet.txt."},
	)
	e.write("greet.txt", "hello\n")
	r := e.run("", "-p", "--output-format", "json", "Survey the repository.")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	first := firstText(t, bodyOf(t, reqs[0]))
	if strings.Contains(first, "all tools") || !strings.Contains(first, "Agent (only Explore and Plan)") {
		t.Errorf("the parent is not told which tools each type has:\n%s", first)
	}
	if gp := bodyOf(t, reqs[1]); !slices.Contains(gp.toolNames(), "Agent") {
		t.Errorf("the general-purpose subagent has no Agent tool: %v", gp.toolNames())
	}
	if ex := bodyOf(t, reqs[2]); slices.Contains(ex.toolNames(), "Agent") || !strings.Contains(string(reqs[2].Body), "task-E") {
		t.Errorf("the Explore agent it started has an Agent tool or not its task: %v", ex.toolNames())
	}
	if !strings.Contains(string(reqs[3].Body), "found-by-explore") {
		t.Errorf("the Explore agent's answer did not come back to the subagent:\n%s", reqs[3].Body)
	}
	if body := string(reqs[4].Body); !strings.Contains(body, "can start only the read-only agent types Explore and Plan") {
		t.Errorf("a nested general-purpose agent was not refused:\n%s", body)
	}
	if len(requestsWith(e.srv, "task-D")) != 1 {
		t.Errorf("the refused agent ran: task-D reached the model %d times", len(requestsWith(e.srv, "task-D")))
	}
}
