package main

import (
	"slices"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// initAgents are the agents of a stream-json run's system/init line.
func initAgents(t *testing.T, stdout string) []string {
	t.Helper()
	var out []string
	for _, a := range parseStream(t, stdout).init["agents"].([]any) {
		out = append(out, a.(string))
	}
	return out
}

// TestInitListsAgentsE2E: stream-json's system/init names the Agent
// tool's types in "agents", as Claude Code's does (headless/testdata
// recordings: ["claude","Explore","general-purpose","Plan",...]): the
// built-in ones and the user's agent files.
func TestInitListsAgentsE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Done."})
	e.writeHome(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews\n---\nReview.\n")
	r := e.run("", "-p", "--output-format", "stream-json", "--verbose", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := initAgents(t, r.stdout)
	for _, want := range []string{"general-purpose", "Explore", "Plan", "reviewer"} {
		if !slices.Contains(got, want) {
			t.Errorf("init agents = %v, lacks %s", got, want)
		}
	}
}
