package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestPluginAgentE2E: a plugin's agent is offered as guard-kit:reviewer,
// runs with its file's prompt and tools, and its answer reaches the model.
func TestPluginAgentE2E(t *testing.T) {
	w := newPluginWorld(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_a", Name: "Agent", Input: jsonInput(map[string]any{"description": "review", "prompt": "Review fine.txt.", "subagent_type": "guard-kit:reviewer"})}}},
		llmtest.Turn{Text: "LGTM from the reviewer.", Match: "You review changes."},
		llmtest.Turn{Text: "done"})
	r := w.exec("-p", "review it", "--plugin-dir", w.fixture)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := w.srv.Requests()
	var sub string
	for _, q := range reqs {
		if strings.Contains(string(q.Body), "You review changes.") {
			sub = string(q.Body)
		}
	}
	if sub == "" {
		t.Fatal("no request carried the agent file's prompt")
	}
	if !strings.Contains(sub, `"name":"Read"`) || strings.Contains(sub, `"name":"Bash"`) {
		t.Errorf("the agent's tools are not its file's (Read, Grep): %.400s", sub)
	}
	if got := toolResults(t, reqs)["toolu_a"]; !strings.Contains(got, "LGTM from the reviewer.") {
		t.Errorf("the agent's answer did not reach the model: %q", got)
	}
}

// TestPluginProjectTrust runs the attack of a repository whose
// .claude/settings.json names a marketplace and turns its plugin on: in
// an untrusted folder nothing is fetched or run (the guard's log is the
// sentinel) and the grant is listed as ignored; trusted, print mode
// still fetches nothing and says what to run. The control: once the
// person runs that, the plugin loads in the trusted folder and its guard
// blocks.
func TestPluginProjectTrust(t *testing.T) {
	w := newPluginWorld(t, llmtest.Turn{Text: "hi"}, llmtest.Turn{Text: "hi"})
	w.write(".claude/settings.json", `{
  "extraKnownMarketplaces": {"fixture-market": {"source": {"source": "git", "url": "`+gitHost+`market.git"}}},
  "enabledPlugins": {"guard-kit@fixture-market": true}
}
`)
	fetched := func() bool {
		_, err := os.Stat(filepath.Join(w.home, ".nova", "plugins", "marketplaces", "fixture-market"))
		return err == nil
	}
	r := w.exec("-p", "hi", "--output-format", "json")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "enabledPlugins") {
		t.Errorf("untrusted: exit %d, the ignored grant not told: %s %s", r.code, r.stdout, r.stderr)
	}
	r = w.exec("-p", "hi", "--trust")
	if r.code != 0 || !strings.Contains(r.stderr, "nova plugin marketplace add "+gitHost+"market.git && nova plugin install guard-kit@fixture-market") {
		t.Errorf("trusted print mode: exit %d, stderr %q", r.code, r.stderr)
	}
	if fetched() {
		t.Fatal("the project's marketplace was fetched without the person")
	}
	if log, _ := os.ReadFile(w.guardLog); len(log) > 0 {
		t.Fatalf("the project's plugin ran: %s", log)
	}
	// The control: the person adds the marketplace and installs (an
	// untrusted install is refused, naming what to run).
	if r := w.exec("plugin", "install", "guard-kit@fixture-market"); r.code != 2 {
		t.Errorf("install before the marketplace is added: exit %d %s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"plugin", "marketplace", "add", gitHost + "market.git"}, {"plugin", "install", "guard-kit@fixture-market", "--scope", "local"}, {"trust"}} {
		if r := w.exec(args...); r.code != 0 {
			t.Fatalf("%v: exit %d %s %s", args, r.code, r.stdout, r.stderr)
		}
	}
	w.srv.Push(guardTurns()...)
	got := w.sessionOutcome(filepath.Join(w.home, ".nova", "plugins", "cache", "fixture-market", "guard-kit", "1.0.0"))
	if got["blocked"] != true || got["made blocked.txt"] != false {
		t.Errorf("once installed and trusted, the guard did not block: %v", got)
	}
}

// TestPluginCommandLine: what the commands refuse, and what nova doctor
// and nova plugin list say of a loaded plugin.
func TestPluginCommandLine(t *testing.T) {
	w := newPluginWorld(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-p", "hi", "--plugin-dir", filepath.Join(w.ws, "none")}, 2, "--plugin-dir"},
		{[]string{"plugin", "install", "guard-kit"}, 2, "NAME@MARKETPLACE"},
		{[]string{"plugin", "install", "guard-kit@nowhere"}, 2, "no marketplace"},
		{[]string{"plugin", "enable", "guard-kit@fixture-market", "--scope", "team"}, 2, "unknown scope"},
		{[]string{"plugin", "marketplace", "add", filepath.Join(w.ws, "none")}, 2, "not a plugin marketplace"},
		{[]string{"plugin", "validate", w.fixture}, 0, "supplies: 1 skill (guard-kit:tidy), 2 commands (/guard-kit:greet, /guard-kit:sub:deep), 1 agent (guard-kit:reviewer), 1 hook, 1 MCP server"},
	} {
		r := w.exec(c.args...)
		if r.code != c.code || !strings.Contains(r.stdout+r.stderr, c.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s%s", c.args, r.code, c.code, c.want, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{{"plugin", "marketplace", "add", w.market}, {"plugin", "install", "guard-kit@fixture-market"}} {
		if r := w.exec(args...); r.code != 0 {
			t.Fatalf("%v: %s", args, r.stderr)
		}
	}
	r := w.exec("plugin", "list")
	if !strings.Contains(r.stdout, "guard-kit@fixture-market") || !strings.Contains(r.stdout, "on (") {
		t.Errorf("plugin list:\n%s", r.stdout)
	}
	r = w.exec("doctor")
	if !strings.Contains(r.stdout, "Plugins (1):") || !strings.Contains(r.stdout, "guard-kit@fixture-market 1.0.0 (installed by nova") || !strings.Contains(r.stdout, "1 hook, 1 MCP server") {
		t.Errorf("doctor:\n%s", r.stdout)
	}
}
