package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestPublicMarketplace adds a real public marketplace, unchanged
// (wshobson/agents, MIT: plugins/testdata/public/wshobson-agents holds
// two of its 92 plugins and its marketplace.json), the way its README
// does, installs two plugins from it and uses what they supply: a
// command with $ARGUMENTS, a plugin agent whose file says `model:
// sonnet`, and a skill. A plugin the marketplace lists but the copy
// lacks fails to install with the path that is missing.
func TestPublicMarketplace(t *testing.T) {
	w := newPluginWorld(t)
	w.servePublicMarket()

	for _, args := range [][]string{
		{"plugin", "marketplace", "add", gitHost + "agents.git"},
		{"plugin", "install", "debugging-toolkit@claude-code-workflows"},
		{"plugin", "install", "block-no-verify@claude-code-workflows"},
	} {
		if r := w.exec(args...); r.code != 0 {
			t.Fatalf("nova %s: exit %d: %s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
	r := w.exec("plugin", "install", "code-documentation@claude-code-workflows")
	if r.code == 0 || !strings.Contains(r.stderr, "code-documentation") {
		t.Errorf("installing a listed plugin whose directory is missing: exit %d, %q", r.code, r.stderr)
	}

	// The command expands with the arguments in both of its places.
	got := w.commandText("/debugging-toolkit:smart-debug TypeError in checkout.js")
	for _, want := range []string{"Process issue from: TypeError in checkout.js", "Issue to debug: TypeError in checkout.js", "automated root cause analysis"} {
		if !strings.Contains(got, want) {
			t.Errorf("the command's text sent lacks %q:\n%.600s", want, got)
		}
	}

	// The session offers the plugins' agent, commands and skill.
	w.srv.Push(llmtest.Turn{Text: "listed"})
	r = w.exec("-p", "list", "--output-format", "stream-json", "--verbose")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var init struct {
		Agents        []string `json:"agents"`
		SlashCommands []string `json:"slash_commands"`
		Skills        []string `json:"skills"`
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, `"subtype":"init"`) {
			if err := json.Unmarshal([]byte(line), &init); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	has := func(list []string, name string) bool {
		for _, s := range list {
			if s == name {
				return true
			}
		}
		return false
	}
	if !has(init.Agents, "debugging-toolkit:debugging-toolkit-debugger") {
		t.Errorf("system/init agents %v lack the plugin's debugger", init.Agents)
	}
	for _, c := range []string{"debugging-toolkit:smart-debug", "block-no-verify:block-no-verify"} {
		if !has(init.SlashCommands, c) {
			t.Errorf("system/init slash_commands lack %s: %v", c, init.SlashCommands)
		}
	}

	// The agent runs with its file's prompt, on the model `sonnet` names.
	before := len(w.srv.Requests())
	w.srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_d", Name: "Agent", Input: jsonInput(map[string]any{"description": "debug", "prompt": "Find why checkout fails.", "subagent_type": "debugging-toolkit:debugging-toolkit-debugger"})}}})
	w.srv.Push(llmtest.Turn{Text: "The total is computed before the discount.", Match: "You are an expert debugger specializing in root cause analysis."})
	w.srv.Push(llmtest.Turn{Text: "done"})
	r = w.exec("-p", "debug checkout")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sub []byte
	for _, q := range w.srv.Requests()[before:] {
		if strings.Contains(string(q.Body), "You are an expert debugger specializing in root cause analysis.") {
			sub = q.Body
		}
	}
	if sub == nil {
		t.Fatal("no request carried the plugin agent's prompt")
	}
	var body struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(sub, &body)
	if body.Model != "claude-sonnet-5-5" {
		t.Errorf("the agent's `model: sonnet` ran on %q, not what the sonnet alias names", body.Model)
	}
	if got := toolResults(t, w.srv.Requests()[before:])["toolu_d"]; !strings.Contains(got, "computed before the discount") {
		t.Errorf("the agent's answer did not reach the model: %q", got)
	}
}

// servePublicMarket serves plugins/testdata/public/wshobson-agents as the
// git repository gitHost+"agents.git".
func (w *pluginWorld) servePublicMarket() {
	w.t.Helper()
	repo := filepath.Join(filepath.Dir(w.market), "agents.git")
	copyDir(w.t, filepath.Join("..", "..", "plugins", "testdata", "public", "wshobson-agents"), repo)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "copy"}} {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = w.env
		if out, err := cmd.CombinedOutput(); err != nil {
			w.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestTUIPluginInstallLoadsNow: /plugin in the terminal UI adds the public
// marketplace and installs from it, and the plugin's command works in the
// same session, with no restart, as after Claude Code's /plugin install.
func TestTUIPluginInstallLoadsNow(t *testing.T) {
	w := newPluginWorld(t, llmtest.Turn{Text: "Looking into it."})
	w.servePublicMarket()
	tm := w.startTUI()
	tm.waitFor("Ask nova anything")
	tm.typeText("/plugin marketplace add " + gitHost + "agents.git")
	tm.keys("Enter")
	tm.waitFor("Added marketplace claude-code-workflows")
	tm.typeText("/plugin install debugging-toolkit@claude-code-workflows")
	tm.keys("Enter")
	tm.waitFor("Reloaded the session")
	tm.typeText("/debugging-toolkit:smart-debug TypeError in checkout.js")
	tm.keys("Enter")
	tm.waitFor("Looking into it.")
	reqs := w.srv.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "Process issue from: TypeError in checkout.js") {
		t.Fatalf("the plugin's command did not reach the model in the same session: %d requests", len(reqs))
	}
	tm.typeText("/plugin")
	tm.keys("Enter")
	tm.waitFor("/plugin marketplace add <git URL")
	if sc := tm.scrollback(); !strings.Contains(sc, "debugging-toolkit@claude-code-workflows") {
		t.Errorf("/plugin does not list the installed plugin:\n%s", sc)
	}
	tm.typeText("/exit")
	tm.keys("Enter")
	tm.waitExit()
}
