package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// recordPlugins runs TestPluginsClaudeCode's scenarios against Claude
// Code instead of nova and writes what it did to
// plugins/testdata/claude/*.json (plugins/testdata/README.md).
var recordPlugins = flag.Bool("plugins.record", false, "record what Claude Code does with the plugin fixtures")

// gitHost is the git host the marketplace is served from: a
// url.insteadOf in the test home's .gitconfig points it at a directory,
// so nova's git and Claude Code's clone it with no network.
const gitHost = "https://git.example.test/"

// pluginWorld is one scenario's world: an e2e workspace and home, the
// guard-kit fixture, a marketplace repository under the git host, and the
// program under test (nova, or Claude Code when recording).
type pluginWorld struct {
	*e2e
	exe    string
	claude bool
	// fixture is a copy of the guard-kit plugin; market the marketplace
	// repository (served as gitHost+"market.git"); guardLog where the
	// guard writes the CLAUDE_PLUGIN_ROOT it ran with.
	fixture, market, guardLog string
}

func newPluginWorld(t *testing.T, turns ...llmtest.Turn) *pluginWorld {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 (the fixture's MCP server)")
	}
	w := &pluginWorld{e2e: newE2E(t, turns...), exe: novaBin}
	if *recordPlugins {
		bins, _ := filepath.Glob(filepath.Join("..", "..", "headless", "testdata", "agentsdk", "node_modules", "@anthropic-ai", "claude-agent-sdk-*", "claude"))
		if len(bins) == 0 {
			t.Fatal("no Claude Code binary: npm install in headless/testdata/agentsdk (with its optional dependencies)")
		}
		exe, _ := filepath.Abs(bins[0])
		w.exe, w.claude = exe, true
		w.env = append(w.env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	}
	served := t.TempDir()
	w.fixture = filepath.Join(t.TempDir(), "guard-kit")
	copyDir(t, filepath.Join("..", "..", "plugins", "testdata", "guard-kit"), w.fixture)
	w.market = filepath.Join(served, "market.git")
	copyDir(t, filepath.Join("..", "..", "plugins", "testdata", "guard-kit"), filepath.Join(w.market, "plugins", "guard-kit"))
	writeAt(t, filepath.Join(w.market, ".claude-plugin", "marketplace.json"), `{
  "name": "fixture-market",
  "owner": {"name": "nova tests"},
  "plugins": [{"name": "guard-kit", "source": "./plugins/guard-kit", "description": "A guard hook, a skill, a command and an agent", "version": "1.0.0"}]
}
`)
	writeAt(t, filepath.Join(w.home, ".gitconfig"), "[url \"file://"+served+"/\"]\n\tinsteadOf = "+gitHost+"\n")
	w.env = append(w.env, "GIT_CONFIG_NOSYSTEM=1")
	w.git("init", "-q", "-b", "main")
	w.commit("one")
	w.guardLog = filepath.Join(t.TempDir(), "guard.log")
	w.env = append(w.env, "GUARD_LOG="+w.guardLog)
	return w
}

func copyDir(t *testing.T, src, dest string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", src, dest).CombinedOutput(); err != nil {
		t.Fatalf("cp %s: %v %s", src, err, out)
	}
}

func writeAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w *pluginWorld) git(args ...string) {
	w.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", w.market, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Env = w.env
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (w *pluginWorld) commit(msg string) {
	w.t.Helper()
	w.git("add", "-A")
	w.git("commit", "-q", "-m", msg)
}

// bump makes 1.1.0 the plugin's version, with a new command, in a commit.
func (w *pluginWorld) bump() {
	w.t.Helper()
	for _, f := range []string{filepath.Join(w.market, ".claude-plugin", "marketplace.json"), filepath.Join(w.market, "plugins", "guard-kit", ".claude-plugin", "plugin.json")} {
		b, err := os.ReadFile(f)
		if err != nil {
			w.t.Fatal(err)
		}
		writeAt(w.t, f, strings.Replace(string(b), `"version": "1.0.0"`, `"version": "1.1.0"`, 1))
	}
	writeAt(w.t, filepath.Join(w.market, "plugins", "guard-kit", "commands", "bye.md"), "Say goodbye to $ARGUMENTS.\n")
	w.commit("two")
}

// exec runs the program under test in the workspace.
func (w *pluginWorld) exec(args ...string) runResult {
	w.t.Helper()
	cmd := exec.Command(w.exe, args...)
	cmd.Dir, cmd.Env = w.ws, w.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("run %s: %v", w.exe, err)
	}
	return runResult{stdout: out.String(), stderr: errOut.String(), code: code}
}

// store is the plugin store of the program under test, and settings its
// user settings file.
func (w *pluginWorld) store() string {
	if w.claude {
		return filepath.Join(w.home, ".claude", "plugins")
	}
	return filepath.Join(w.home, ".nova", "plugins")
}

func (w *pluginWorld) settings() string {
	if w.claude {
		return filepath.Join(w.home, ".claude", "settings.json")
	}
	return filepath.Join(w.home, ".nova", "settings.json")
}

// guardTurns is a model that tries a command the guard blocks, then one
// it lets through, calls the plugin's MCP tool and ends. (Claude Code
// 2.1.333 runs an Agent call in the background, so the agent is tried
// on nova alone: TestPluginAgentE2E.)
func guardTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo forbidden > blocked.txt", "description": "try"})}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo fine > fine.txt", "description": "try"})}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_3", Name: "mcp__plugin_guard-kit_where__where", Input: "{}"}}},
		{Text: "done"},
	}
}

// sessionOutcome runs a print-mode session with guardTurns and says what
// happened, in terms both programs can be held to: what the guard
// blocked, which files the commands made, the plugin root the guard and
// the MCP server ran with, and what the model was offered. root is the plugin's directory as it should be seen.
func (w *pluginWorld) sessionOutcome(root string, extra ...string) map[string]any {
	w.t.Helper()
	before := len(w.srv.Requests())
	_ = os.Remove(w.guardLog)
	for _, f := range []string{"blocked.txt", "fine.txt"} {
		_ = os.Remove(filepath.Join(w.ws, f))
	}
	args := append(append([]string{"-p", "try the commands"}, extra...), "--allowedTools", "Bash,mcp__plugin_guard-kit_where__where")
	r := w.exec(args...)
	if r.code != 0 {
		w.t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := w.srv.Requests()[before:]
	out := map[string]any{}
	for _, f := range []string{"blocked.txt", "fine.txt"} {
		_, err := os.Stat(filepath.Join(w.ws, f))
		out["made "+f] = err == nil
	}
	log, _ := os.ReadFile(w.guardLog)
	out["guard ran with"] = strings.ReplaceAll(strings.TrimSpace(string(log)), root, "$ROOT")
	results := toolResults(w.t, reqs)
	out["blocked"] = strings.Contains(results["toolu_1"], "guard-kit blocks forbidden commands")
	out["mcp"] = "absent"
	if strings.HasPrefix(results["toolu_3"], "root=") {
		out["mcp"] = strings.ReplaceAll(results["toolu_3"], root, "$ROOT")
	}
	first := ""
	if len(reqs) > 0 {
		first = string(reqs[0].Body)
	}
	for _, name := range []string{"guard-kit:tidy", "guard-kit:greet", "guard-kit:sub:deep", "guard-kit:reviewer"} {
		out["offered "+name] = strings.Contains(first, name)
	}
	return out
}

// toolResults are the texts of the tool results the model was sent, by
// call id, over all of reqs.
func toolResults(t *testing.T, reqs []llmtest.Request) map[string]string {
	out := map[string]string{}
	for _, r := range reqs {
		for id, res := range toolResultsOf(t, r) {
			out[id] = res.Text
		}
	}
	return out
}

// commandText is the expansion of a slash command in a session: the
// model's first request's last user text.
func (w *pluginWorld) commandText(prompt string, extra ...string) string {
	w.t.Helper()
	before := len(w.srv.Requests())
	w.srv.Push(llmtest.Turn{Text: "Hello."})
	r := w.exec(append([]string{"-p", prompt}, extra...)...)
	if r.code != 0 {
		w.t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := w.srv.Requests()[before:]
	if len(reqs) == 0 {
		w.t.Fatal("no request")
	}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(reqs[0].Body, &body)
	for _, m := range body.Messages {
		if m.Role != "user" || len(m.Content) == 0 {
			continue
		}
		return strings.TrimSpace(m.Content[len(m.Content)-1].Text)
	}
	return ""
}

// state is what the store and the user's settings say, the store's
// paths made $STORE.
func (w *pluginWorld) state() map[string]any {
	w.t.Helper()
	store := w.store()
	var installed struct {
		Plugins map[string][]struct {
			InstallPath string `json:"installPath"`
			Version     string `json:"version"`
		} `json:"plugins"`
	}
	readJSONFile(w.t, filepath.Join(store, "installed_plugins.json"), &installed)
	inst := map[string]any{}
	for id, recs := range installed.Plugins {
		for _, r := range recs {
			inst[id] = strings.ReplaceAll(r.InstallPath, store, "$STORE") + " " + r.Version
		}
	}
	var known map[string]struct {
		InstallLocation string `json:"installLocation"`
	}
	readJSONFile(w.t, filepath.Join(store, "known_marketplaces.json"), &known)
	kn := map[string]any{}
	for name, k := range known {
		kn[name] = strings.ReplaceAll(k.InstallLocation, store, "$STORE")
	}
	var settings struct {
		EnabledPlugins map[string]bool `json:"enabledPlugins"`
	}
	readJSONFile(w.t, w.settings(), &settings)
	en := map[string]any{}
	for id, v := range settings.EnabledPlugins {
		en[id] = v
	}
	return map[string]any{"installed": inst, "known": kn, "enabled": en}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// holdTo writes got as Claude Code's outcome of scenario when recording,
// and otherwise holds got to that recording.
func (w *pluginWorld) holdTo(scenario string, got map[string]any) {
	w.t.Helper()
	path := filepath.Join("..", "..", "plugins", "testdata", "claude", scenario+".json")
	if w.claude {
		b, _ := json.MarshalIndent(got, "", "  ")
		writeAt(w.t, path, string(b)+"\n")
		w.t.Logf("recorded %s", path)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatalf("no recording of Claude Code: %v (go test ./cmd/nova -run TestPluginsClaudeCode -plugins.record)", err)
	}
	var want map[string]any
	if err := json.Unmarshal(b, &want); err != nil {
		w.t.Fatal(err)
	}
	norm, _ := json.Marshal(got)
	var have map[string]any
	_ = json.Unmarshal(norm, &have)
	for _, k := range sortedKeys(want) {
		if !reflect.DeepEqual(have[k], want[k]) {
			w.t.Errorf("%s: %s: nova %v, Claude Code %v", scenario, k, have[k], want[k])
		}
	}
	for k := range have {
		if _, ok := want[k]; !ok {
			w.t.Errorf("%s: %s is not in the recording (record again)", scenario, k)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestPluginsClaudeCode drives a real nova with the guard-kit plugin and
// its marketplace, and holds what happens to what Claude Code did with
// the same files (plugins/testdata/claude): the guard blocks a Bash call
// and lets the next through, the MCP server and the guard run with the
// plugin's root, the skill, commands and agent are offered, a command
// expands; a marketplace in a git repository is added,
// installed from, turned off and on, updated after a new commit and
// removed; a plugin Claude Code installed loads with no step; a project
// that names a marketplace gets nothing fetched or run.
func TestPluginsClaudeCode(t *testing.T) {
	t.Run("plugin-dir", func(t *testing.T) {
		w := newPluginWorld(t, guardTurns()...)
		root, _ := filepath.EvalSymlinks(w.fixture)
		got := w.sessionOutcome(root, "--plugin-dir", w.fixture)
		got["command"] = strings.ReplaceAll(w.commandText("/guard-kit:sub:deep x y", "--plugin-dir", w.fixture), root, "$ROOT")
		w.holdTo("plugin-dir", got)
	})

	t.Run("marketplace", func(t *testing.T) {
		w := newPluginWorld(t, guardTurns()...)
		got := map[string]any{}
		step := func(name string, args ...string) {
			t.Helper()
			r := w.exec(append([]string{"plugin"}, args...)...)
			if r.code != 0 {
				t.Errorf("%s: exit %d: %s%s", name, r.code, r.stdout, r.stderr)
			}
			got[name] = w.state()
		}
		step("1 marketplace add", "marketplace", "add", gitHost+"market.git")
		step("2 install", "install", "guard-kit@fixture-market")
		root := filepath.Join(w.store(), "cache", "fixture-market", "guard-kit", "1.0.0")
		got["3 session"] = w.sessionOutcome(root)
		step("4 disable", "disable", "guard-kit@fixture-market")
		step("5 enable", "enable", "guard-kit@fixture-market")
		w.bump()
		step("6 marketplace update", "marketplace", "update", "fixture-market")
		step("7 update", "update", "guard-kit@fixture-market")
		got["8 new command"] = w.commandText("/guard-kit:bye Ada")
		step("9 uninstall", "uninstall", "guard-kit@fixture-market")
		step("10 marketplace remove", "marketplace", "remove", "fixture-market")
		w.holdTo("marketplace", got)
	})

	t.Run("claude-installed", func(t *testing.T) {
		w := newPluginWorld(t, guardTurns()...)
		if w.claude {
			for _, args := range [][]string{{"plugin", "marketplace", "add", gitHost + "market.git"}, {"plugin", "install", "guard-kit@fixture-market"}} {
				if r := w.exec(args...); r.code != 0 {
					t.Fatalf("%v: %s", args, r.stderr)
				}
			}
			w.recordClaudeHome()
		} else {
			w.layClaudeHome()
		}
		root := filepath.Join(w.home, ".claude", "plugins", "cache", "fixture-market", "guard-kit", "1.0.0")
		w.holdTo("claude-installed", w.sessionOutcome(root))
	})

	t.Run("project-marketplace", func(t *testing.T) {
		w := newPluginWorld(t, guardTurns()...)
		w.write(".claude/settings.json", `{
  "extraKnownMarketplaces": {"fixture-market": {"source": {"source": "git", "url": "`+gitHost+`market.git"}}},
  "enabledPlugins": {"guard-kit@fixture-market": true}
}
`)
		got := w.sessionOutcome(w.fixture)
		for _, store := range []string{filepath.Join(w.home, ".claude", "plugins"), filepath.Join(w.home, ".nova", "plugins")} {
			if _, err := os.Stat(filepath.Join(store, "marketplaces", "fixture-market")); err == nil {
				got["fetched"] = true
			}
		}
		if got["fetched"] == nil {
			got["fetched"] = false
		}
		w.holdTo("project-marketplace", got)
	})
}

// claudeHomeFiles are the files Claude Code writes when it adds the
// marketplace and installs guard-kit.
var claudeHomeFiles = []string{".claude/settings.json", ".claude/plugins/known_marketplaces.json", ".claude/plugins/installed_plugins.json"}

// recordClaudeHome keeps the files Claude Code wrote, the home made
// $HOME, for layClaudeHome.
func (w *pluginWorld) recordClaudeHome() {
	w.t.Helper()
	files := map[string]string{}
	for _, f := range claudeHomeFiles {
		b, err := os.ReadFile(filepath.Join(w.home, f))
		if err != nil {
			w.t.Fatal(err)
		}
		files[f] = strings.ReplaceAll(string(b), w.home, "$HOME")
	}
	b, _ := json.MarshalIndent(files, "", "  ")
	writeAt(w.t, filepath.Join("..", "..", "plugins", "testdata", "claude", "claude-home.json"), string(b)+"\n")
}

// layClaudeHome makes the test home one where Claude Code installed
// guard-kit: the files it wrote (recorded), its clone of the marketplace
// and its copy of the plugin.
func (w *pluginWorld) layClaudeHome() {
	w.t.Helper()
	var files map[string]string
	readJSONFile(w.t, filepath.Join("..", "..", "plugins", "testdata", "claude", "claude-home.json"), &files)
	if len(files) == 0 {
		w.t.Fatal("no recording of Claude Code's home (go test ./cmd/nova -run TestPluginsClaudeCode -plugins.record)")
	}
	for f, content := range files {
		writeAt(w.t, filepath.Join(w.home, f), strings.ReplaceAll(content, "$HOME", w.home))
	}
	plugins := filepath.Join(w.home, ".claude", "plugins")
	cmd := exec.Command("git", "clone", "-q", w.market, filepath.Join(plugins, "marketplaces", "fixture-market"))
	cmd.Env = w.env
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("clone: %v %s", err, out)
	}
	copyDir(w.t, filepath.Join(w.market, "plugins", "guard-kit"), filepath.Join(plugins, "cache", "fixture-market", "guard-kit", "1.0.0"))
}
