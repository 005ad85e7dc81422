package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/tui"
)

// interactiveWorld is an interactive backend in-process on a temp
// workspace and NOVA_HOME, against a fake provider.
type interactiveWorld struct {
	ws, home, novaHome string
	srv                *llmtest.Server
	b                  *interactiveBackend
}

func newInteractiveWorld(t *testing.T, turns ...llmtest.Turn) *interactiveWorld {
	t.Helper()
	w := &interactiveWorld{ws: t.TempDir(), home: t.TempDir(), srv: llmtest.New(turns...)}
	t.Cleanup(w.srv.Close)
	if ws, err := filepath.EvalSymlinks(w.ws); err == nil {
		w.ws = ws
	}
	w.novaHome = filepath.Join(w.home, ".nova")
	t.Setenv("HOME", w.home)
	t.Chdir(w.ws)
	return w
}

// start builds the backend; files the test wrote before are read now.
func (w *interactiveWorld) start(t *testing.T, opts buildOptions) {
	t.Helper()
	env := map[string]string{"HOME": w.home, "NOVA_HOME": w.novaHome, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": w.srv.URL}
	s := &IOStreams{LookupEnv: envMap(env), Home: w.home, Workdir: w.ws}
	b, err := newInteractiveBackend(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.b = b
	t.Cleanup(b.Close)
}

// run sends prompt and drains the run.
func (w *interactiveWorld) run(t *testing.T, prompt string) *agent.Done {
	t.Helper()
	var done *agent.Done
	for ev := range w.b.Run(context.Background(), llm.UserText(prompt)) {
		if ev.Type == agent.EventDone {
			done = ev.Done
		}
	}
	if done == nil {
		t.Fatal("no done event")
	}
	return done
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, _ := json.Marshal(v)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInteractiveTitle(t *testing.T) {
	prompt := "please say hello to me, and then explain in great detail how the greeting protocol of this project works"
	for _, tc := range []struct {
		name  string
		title llmtest.Turn // the answer to the title request
		want  string
	}{
		{name: "model title", title: llmtest.Turn{Text: "\"Greeting protocol explained.\""}, want: "Greeting protocol explained"},
		{name: "fallback to the prompt", title: llmtest.Turn{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "no"}, want: live.ShortTitle(prompt)},
		{name: "fallback on an empty title", title: llmtest.Turn{Text: ""}, want: live.ShortTitle(prompt)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newInteractiveWorld(t, llmtest.Turn{Text: "Hello! The protocol is simple."}, tc.title)
			w.start(t, buildOptions{})
			w.run(t, prompt)
			w.b.waitTitle()
			rt := w.b.runtime()
			if got := rt.Session.Meta().Title; got != tc.want {
				t.Errorf("title %q, want %q", got, tc.want)
			}
			reqs := w.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want the run's and the title's", len(reqs))
			}
			body := string(reqs[1].Body)
			for _, want := range []string{"You name conversations", "greeting protocol", "The protocol is simple", `"max_tokens":30`} {
				if !strings.Contains(body, want) {
					t.Errorf("title request lacks %q: %s", want, body)
				}
			}
			if strings.Contains(body, "<environment>") || strings.Contains(body, `"tools"`) {
				t.Errorf("title request carries the context or tools: %s", body)
			}

			// Later runs make no further title call.
			w.srv.Push(llmtest.Turn{Text: "Again."})
			w.run(t, "and again")
			w.b.waitTitle()
			if n := len(w.srv.Requests()); n != 3 {
				t.Errorf("%d requests after a second run, want 3", n)
			}
			// The title is in the store, where /resume and nova sessions read it.
			id := rt.Session.ID()
			w.b.Close()
			list, err := session.NewStore(w.novaHome).List(session.Filter{Workspace: w.ws})
			if err != nil || len(list) != 1 || list[0].ID != id || list[0].Title != tc.want {
				t.Errorf("stored sessions %+v, %v", list, err)
			}
		})
	}
}

func TestInteractiveTitleKeptWhenSet(t *testing.T) {
	w := newInteractiveWorld(t, llmtest.Turn{Text: "Hi."})
	w.start(t, buildOptions{})
	if err := w.b.runtime().Session.SetTitle("named already"); err != nil {
		t.Fatal(err)
	}
	w.run(t, "hello")
	w.b.waitTitle()
	if n := len(w.srv.Requests()); n != 1 {
		t.Errorf("%d requests: a titled session got a title call", n)
	}
	if got := w.b.runtime().Session.Meta().Title; got != "named already" {
		t.Errorf("title %q", got)
	}
}

// TestInteractiveTitleOnExit checks a title call cut short by quitting
// still leaves the session named after its prompt.
func TestInteractiveTitleOnExit(t *testing.T) {
	w := newInteractiveWorld(t, llmtest.Turn{Text: "Hi."}, llmtest.Turn{Hang: true})
	w.start(t, buildOptions{})
	w.run(t, "hello there")
	id := w.b.runtime().Session.ID()
	w.b.Close()
	list, err := session.NewStore(w.novaHome).List(session.Filter{Workspace: w.ws})
	if err != nil || len(list) != 1 || list[0].ID != id || list[0].Title != "hello there" {
		t.Errorf("stored sessions %+v, %v", list, err)
	}
}

func TestInteractiveRules(t *testing.T) {
	w := newInteractiveWorld(t)
	local := filepath.Join(w.ws, ".nova", "settings.local.json")
	project := filepath.Join(w.ws, ".nova", "settings.json")
	user := filepath.Join(w.novaHome, "settings.json")
	writeJSON(t, user, map[string]any{"permissions": map[string]any{"deny": []string{"Bash(rm:*)"}}})
	writeJSON(t, project, map[string]any{"permissions": map[string]any{"ask": []string{"Bash(git push:*)"}}})
	writeJSON(t, local, map[string]any{"theme": "dark", "permissions": map[string]any{"allow": []string{"Bash(make deploy)", "Bash(make test)"}}})
	opts := buildOptions{allowedTools: []string{"Bash(make lint)"}, disallowedTools: []string{"WebFetch"}, trust: true}
	w.start(t, opts)

	rules, err := w.b.Rules()
	if err != nil {
		t.Fatal(err)
	}
	want := []tui.RuleInfo{
		{Behavior: permission.Allow, Rule: "Bash(make deploy)", Source: "local .nova/settings.local.json", Path: local, Removable: true},
		{Behavior: permission.Allow, Rule: "Bash(make test)", Source: "local .nova/settings.local.json", Path: local, Removable: true},
		{Behavior: permission.Allow, Rule: "Bash(make lint)", Source: "--allowedTools"},
		{Behavior: permission.Ask, Rule: "Bash(git push:*)", Source: "project .nova/settings.json", Path: project, Removable: true},
		{Behavior: permission.Deny, Rule: "Bash(rm:*)", Source: "user ~/.nova/settings.json", Path: user, Removable: true},
		{Behavior: permission.Deny, Rule: "WebFetch", Source: "--disallowedTools"},
	}
	if !slices.Equal(rules, want) {
		t.Fatalf("rules\n%+v\nwant\n%+v", rules, want)
	}

	check := func(command string) permission.Behavior {
		rt := w.b.runtime()
		return rt.Checker.Check(context.Background(), permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: command, Workdir: rt.Workdir}).Behavior
	}
	if got := check("make deploy"); got != permission.Allow {
		t.Fatalf("before removal: %s", got)
	}
	w.srv.Push(llmtest.Turn{Text: "Hi."}, llmtest.Turn{Text: "Greeting"})
	w.run(t, "hello")
	w.b.waitTitle()
	rt := w.b.runtime()
	id, mode := rt.Session.ID(), permission.ModeAcceptEdits
	rt.Checker.SetMode(mode)

	if err := w.b.RemoveRule(rules[0]); err != nil {
		t.Fatal(err)
	}
	// The live checker no longer applies it; the session and mode carry on.
	if got := check("make deploy"); got == permission.Allow {
		t.Error("the removed rule still applies")
	}
	rt = w.b.runtime()
	if rt.Session.ID() != id || len(rt.Agent.History()) != 2 || rt.Checker.Mode() != mode {
		t.Errorf("after removal: session %s (want %s), %d messages, mode %s", rt.Session.ID(), id, len(rt.Agent.History()), rt.Checker.Mode())
	}
	var doc map[string]any
	data, _ := os.ReadFile(local)
	if err := json.Unmarshal(data, &doc); err != nil || doc["theme"] != "dark" || !strings.Contains(string(data), "Bash(make test)") || strings.Contains(string(data), "deploy") {
		t.Errorf("local settings after removal: %s (%v)", data, err)
	}

	if err := w.b.RemoveRule(rules[2]); err == nil || !strings.Contains(err.Error(), "--allowedTools") {
		t.Errorf("removing a command-line rule: %v", err)
	}
	if got := check("make lint"); got != permission.Allow {
		t.Errorf("the command-line rule was lost: %s", got)
	}
	// A rule gone from its file since it was listed is an error, not a no-op.
	if err := w.b.RemoveRule(rules[0]); err == nil {
		t.Error("removing a rule twice succeeded")
	}
}

// TestInteractiveRulesClaude: /permissions lists the rules of Claude
// Code's files with their layer and file, and does not edit those files.
func TestInteractiveRulesClaude(t *testing.T) {
	w := newInteractiveWorld(t)
	user := filepath.Join(w.home, ".claude", "settings.json")
	project := filepath.Join(w.ws, ".claude", "settings.json")
	writeJSON(t, user, map[string]any{"permissions": map[string]any{"deny": []string{"Bash(curl:*)"}}})
	writeJSON(t, project, map[string]any{"permissions": map[string]any{"ask": []string{"Bash(git push:*)"}}})
	w.start(t, buildOptions{})
	rules, err := w.b.Rules()
	if err != nil {
		t.Fatal(err)
	}
	want := []tui.RuleInfo{
		{Behavior: permission.Ask, Rule: "Bash(git push:*)", Source: "project (Claude Code) .claude/settings.json"},
		{Behavior: permission.Deny, Rule: "Bash(curl:*)", Source: "user (Claude Code) ~/.claude/settings.json"},
	}
	if !slices.Equal(rules, want) {
		t.Fatalf("rules\n%+v\nwant\n%+v", rules, want)
	}
	before, _ := os.ReadFile(user)
	if err := w.b.RemoveRule(rules[1]); err == nil || !strings.Contains(err.Error(), "Claude Code") {
		t.Errorf("removing a Claude Code rule: %v", err)
	}
	if after, _ := os.ReadFile(user); string(after) != string(before) {
		t.Errorf("Claude Code's file was edited: %s", after)
	}
}

// TestInteractiveRemoveRuleFreshSession removes a rule before anything
// was said: the empty session carries on.
func TestInteractiveRemoveRuleFreshSession(t *testing.T) {
	w := newInteractiveWorld(t)
	local := filepath.Join(w.ws, ".nova", "settings.local.json")
	writeJSON(t, local, map[string]any{"permissions": map[string]any{"allow": []string{"Bash(make deploy)"}}})
	w.start(t, buildOptions{trust: true})
	id := w.b.runtime().Session.ID()
	rules, err := w.b.Rules()
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules %+v, %v", rules, err)
	}
	if err := w.b.RemoveRule(rules[0]); err != nil {
		t.Fatal(err)
	}
	if got := w.b.runtime().Session.ID(); got != id {
		t.Errorf("session %s, want %s", got, id)
	}
	if rules, _ := w.b.Rules(); len(rules) != 0 {
		t.Errorf("rules after removal %+v", rules)
	}
}

func TestInteractiveMemoryFiles(t *testing.T) {
	w := newInteractiveWorld(t)
	if err := os.WriteFile(filepath.Join(w.ws, "AGENTS.md"), []byte("be brief\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.start(t, buildOptions{})
	files, err := w.b.MemoryFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || !strings.HasSuffix(files[0], "MEMORY.md") || files[1] != filepath.Join(w.ws, "AGENTS.md") {
		t.Fatalf("files = %v, want MEMORY.md then AGENTS.md", files)
	}
	// The memory file exists so the editor opens something real.
	if got, err := os.ReadFile(files[0]); err != nil || string(got) != "# Memory\n" {
		t.Errorf("MEMORY.md = %q, %v", got, err)
	}
	if !strings.HasPrefix(files[0], w.novaHome) {
		t.Errorf("memory file %s is not under NOVA_HOME", files[0])
	}
}

// TestInteractiveUntrusted checks a folder the person did not trust: its
// local allow rule is neither listed nor in force, its deny rule is both,
// and the notice names what was ignored.
func TestInteractiveUntrusted(t *testing.T) {
	w := newInteractiveWorld(t)
	local := filepath.Join(w.ws, ".nova", "settings.local.json")
	writeJSON(t, local, map[string]any{"permissions": map[string]any{"allow": []string{"Bash(make deploy)"}, "deny": []string{"Bash(make clean)"}}})
	w.start(t, buildOptions{})
	rules, err := w.b.Rules()
	if err != nil {
		t.Fatal(err)
	}
	want := []tui.RuleInfo{{Behavior: permission.Deny, Rule: "Bash(make clean)", Source: "local .nova/settings.local.json", Path: local, Removable: true}}
	if !slices.Equal(rules, want) {
		t.Errorf("rules %+v, want only the deny rule", rules)
	}
	rt := w.b.runtime()
	check := func(command string) permission.Behavior {
		return rt.Checker.Check(context.Background(), permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: command, Workdir: rt.Workdir}).Behavior
	}
	if got := check("make deploy"); got == permission.Allow {
		t.Error("the untrusted allow rule is in force")
	}
	if got := check("make clean"); got != permission.Deny {
		t.Errorf("make clean: %s, want the deny rule", got)
	}
	if n := ignoredNotice(rt); !strings.Contains(n, "ignoring permissions.allow in .nova/settings.local.json") {
		t.Errorf("notice %q", n)
	}
}

// TestInteractiveShellThroughThePipeline: !cmd goes through the session's
// one pipeline as a command the person typed. What would ask runs (their
// own words); what is denied stays denied; and it is the checker that
// decides, not a second path around it.
func TestInteractiveShellThroughThePipeline(t *testing.T) {
	w := newInteractiveWorld(t)
	writeJSON(t, filepath.Join(w.novaHome, "settings.json"), map[string]any{"permissions": map[string]any{"deny": []string{"Bash(curl:*)"}}})
	w.start(t, buildOptions{trust: true, noSandbox: true})
	victim := filepath.Join(w.ws, "victim.txt")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// rm asks when the model runs it; typed, it runs.
	if _, err := w.b.Shell(context.Background(), "rm -f victim.txt"); err != nil {
		t.Fatalf("typed rm: %v", err)
	}
	if _, err := os.Stat(victim); err == nil {
		t.Error("typed rm did not run")
	}
	out, err := w.b.Shell(context.Background(), "echo typed")
	if err != nil || !strings.Contains(out, "typed") {
		t.Errorf("typed echo: %q %v", out, err)
	}
	// A deny rule and a dangerous command still stop it, and nothing runs.
	sentinel := filepath.Join(w.ws, "ran")
	for _, cmd := range []string{"curl -s http://127.0.0.1:1 ; touch ran", "rm -rf / ; touch ran"} {
		if _, err := w.b.Shell(context.Background(), cmd); err == nil || !strings.Contains(err.Error(), "denied") {
			t.Errorf("%q: %v", cmd, err)
		}
		if _, err := os.Stat(sentinel); err == nil {
			t.Fatalf("%q ran", cmd)
		}
	}
	// The model's own call of the same command still asks (and, with
	// nobody to answer here, is refused): typing is what approves it.
	rt := w.b.runtime()
	if d := rt.Checker.Check(context.Background(), permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: "rm -f x", Workdir: rt.Workdir}); d.Behavior != permission.Ask {
		t.Errorf("the model's rm: %+v", d)
	}
}

// The history the TUI shows, live or resumed, is the person's: the first
// message without the context nova sent the model ahead of it.
func TestInteractiveHistoryLeavesOutContext(t *testing.T) {
	w := newInteractiveWorld(t, llmtest.Turn{Text: "Hello."}, llmtest.Turn{Text: "Greeting"})
	os.WriteFile(filepath.Join(w.ws, "AGENTS.md"), []byte("Answer in haiku.\n"), 0o644)
	w.start(t, buildOptions{})
	w.run(t, "say hello")
	w.b.waitTitle()
	if first := w.b.runtime().Agent.History()[0]; len(first.Parts) != 2 || !session.IsContext(first.Parts[0]) {
		t.Fatalf("the agent's first message = %+v, want the context then the prompt", first)
	}
	id := w.b.runtime().Session.ID()
	check := func(what string) {
		t.Helper()
		h := w.b.History()
		if len(h) != 2 || len(h[0].Parts) != 1 || h[0].Text() != "say hello" || h[1].Text() != "Hello." {
			t.Errorf("%s: History = %+v, want the prompt and the answer alone", what, h)
		}
	}
	check("live")
	if err := w.b.Resume(id); err != nil {
		t.Fatal(err)
	}
	check("resumed")
}

// After a compaction the history starts with the summary, and nova's
// context, rebuilt ahead of it, is not shown either.
func TestInteractiveHistoryAfterCompaction(t *testing.T) {
	w := newInteractiveWorld(t, llmtest.Turn{Text: "Hello."}, llmtest.Turn{Text: "Greeting"}, llmtest.Turn{Text: "More."}, llmtest.Turn{Text: "## Goal\nsay hello"})
	os.WriteFile(filepath.Join(w.ws, "AGENTS.md"), []byte("Answer in haiku.\n"), 0o644)
	w.start(t, buildOptions{})
	w.run(t, "say hello")
	w.b.waitTitle()
	w.run(t, "and more")
	if err := w.b.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if first := w.b.runtime().Agent.History()[0]; !session.IsContext(first.Parts[0]) || !session.IsSummary(first) {
		t.Fatalf("the agent's first message after compaction = %+v, want the context, then the summary", first)
	}
	id := w.b.runtime().Session.ID()
	check := func(what string) {
		t.Helper()
		h := w.b.History()
		if len(h) != 3 || len(h[0].Parts) != 1 || !strings.Contains(h[0].Text(), "## Goal\nsay hello") || h[1].Text() != "and more" {
			t.Errorf("%s: History = %+v, want the summary alone, then the kept turn", what, h)
		}
		for _, m := range h {
			if strings.Contains(m.Text(), "haiku") || strings.Contains(m.Text(), "Working directory") {
				t.Errorf("%s: the history shows nova's context: %q", what, m.Text())
			}
		}
	}
	check("live")
	if err := w.b.Resume(id); err != nil {
		t.Fatal(err)
	}
	check("resumed")
}
