package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestAgentFlagFindsPluginAgents: --agent runs the main session as an
// agent a plugin brings (--plugin-dir), as Claude Code's --agent does:
// the provider gets the plugin agent's prompt and, of the built-in tools,
// only its own.
func TestAgentFlagFindsPluginAgents(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Reviewed."}, llmtest.Turn{Text: "Reviewed."})
	fixture := filepath.Join(t.TempDir(), "guard-kit")
	copyDir(t, filepath.Join("..", "..", "plugins", "testdata", "guard-kit"), fixture)
	// The name the plugin's agent goes by is what system/init lists.
	r := e.run("", "-p", "--output-format", "stream-json", "--verbose", "--no-sandbox", "--plugin-dir", fixture, "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	name := ""
	for _, a := range initAgents(t, r.stdout) {
		if strings.HasSuffix(a, "reviewer") {
			name = a
		}
	}
	if name == "" {
		t.Fatalf("system/init lists no reviewer from the plugin: %v", initAgents(t, r.stdout))
	}
	r = e.run("", "-p", "--no-sandbox", "--plugin-dir", fixture, "--agent", name, "review it")
	if r.code != 0 {
		t.Fatalf("--agent %s: exit %d: %s", name, r.code, r.stderr)
	}
	req := e.srv.Requests()[1]
	if s := requestSystem(req); !strings.HasPrefix(s, "You review changes.") {
		t.Errorf("system prompt = %.200q, want the plugin agent's prompt", s)
	}
	// The built-in tools are the agent's; MCP tools are the servers' to
	// offer, as with --tools (docs/claude-code.md).
	got := slices.DeleteFunc(offeredTools(req), func(n string) bool { return strings.HasPrefix(n, "mcp__") })
	slices.Sort(got)
	if !slices.Equal(got, []string{"Grep", "Read"}) {
		t.Errorf("built-in tools offered = %v, want the plugin agent's Read and Grep", got)
	}
}
