package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIAgentsCommandE2E: /agents lists the session's agent types,
// /agents <name> shows one with its tools, and /agents new <name> user
// writes an agent file in Claude Code's format (the project's, or the
// user's) that the next /agents (and the Agent tool) sees; an existing one
// is not overwritten.
func TestTUIAgentsCommandE2E(t *testing.T) {
	e := newE2E(t)
	tm := e.startTUI()
	tm.waitFor("Ask nova anything")

	tm.typeText("/agents")
	tm.keys("Enter")
	tm.waitForText("general-purpose · built-in")
	tm.waitForText("Explore · built-in")

	tm.typeText("/agents Explore")
	tm.keys("Enter")
	tm.waitForText("Tools: Read, Glob, Grep")

	tm.typeText("/agents new reviewer")
	tm.keys("Enter")
	project := filepath.Join(e.ws, ".claude", "agents", "reviewer.md")
	tm.waitForText("Created " + project)
	tm.typeText("/agents new helper user")
	tm.keys("Enter")
	user := filepath.Join(e.home, ".claude", "agents", "helper.md")
	tm.waitForText("Created " + user)
	for name, path := range map[string]string{"reviewer": project, "helper": user} {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasPrefix(string(b), "---\nname: "+name+"\ndescription: ") {
			t.Fatalf("the agent file %s: %q, %v", path, b, err)
		}
	}
	tm.typeText("/agents new helper user")
	tm.keys("Enter")
	tm.waitForText(user + " exists already")
	tm.typeText("/agents")
	tm.keys("Enter")
	tm.waitForText("reviewer · " + project)
	tm.waitForText("helper · " + user)
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
}
