package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// TestTUIMCPEndToEnd drives the real binary in tmux with a project's
// .mcp.json (the test binary as server "t"): the approval dialog comes
// up, "use this server" is remembered in .nova/settings.local.json and
// starts it, /mcp's dialog shows it connected with its tools and connects
// it again on r, then its prompt runs as a slash command and its resource
// goes with a prompt that mentions it.
func TestTUIMCPEndToEnd(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{Text: "Reviewed main.go."},
		llmtest.Turn{Text: "Reviewing main"}, // the session title, asked for after the first run
		llmtest.Turn{Text: "It says hello."},
	)
	e.write(".mcp.json", mcpJSON())
	e.write("main.go", "package main\n")
	tm := e.startTUI()
	tm.waitFor("New MCP server found in .mcp.json: t")
	tm.waitFor("1. Yes, use this server")
	tm.keys("1")
	tm.waitFor("Using MCP server t: it starts now")

	var local struct {
		Enabled []string `json:"enabledMcpjsonServers"`
	}
	if err := json.Unmarshal([]byte(e.read(".nova/settings.local.json")), &local); err != nil || !slices.Equal(local.Enabled, []string{"t"}) {
		t.Fatalf("settings.local.json: %q (%v)", e.read(".nova/settings.local.json"), err)
	}

	// The server starts in the background; /mcp's dialog shows when it
	// is up without a key pressed, and its tools on enter.
	tm.typeText("/mcp")
	tm.keys("Enter")
	tm.waitFor("MCP servers (1)")
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(tm.screen(), "t · connected") {
		if time.Now().After(deadline) {
			t.Fatalf("t never connected:\n%s", tm.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	tm.waitFor("enter tools · r reconnect")
	tm.keys("Enter")
	tm.waitFor("· mcp__t__echo")
	tm.keys("r")
	tm.waitFor("Reconnected to t:")
	tm.waitFor("t · connected")
	tm.keys("Escape")
	tm.waitGone("MCP servers (1)")

	tm.typeText("/mcp__t__review main.go")
	tm.keys("Enter")
	tm.waitFor("Reviewed main.go.")
	for len(e.srv.Requests()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if reqs := e.srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), "Review main.go") {
		t.Fatalf("the rendered prompt did not reach the model: %d requests", len(reqs))
	}

	tm.typeText("what does @t:" + mcptest.GreetingURI + " say?")
	tm.keys("Enter")
	tm.waitFor("It says hello.")
	tm.waitFor("Attached @t:" + mcptest.GreetingURI)
	if body := string(e.srv.Requests()[2].Body); !strings.Contains(body, mcptest.GreetingText) {
		t.Errorf("the resource did not go with the prompt: %s", body)
	}
	tm.typeText("/exit")
	tm.keys("Enter")
	tm.waitExit()
}
