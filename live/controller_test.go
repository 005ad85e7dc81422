package live

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
)

// ctlEnv is a controller on a fake provider, in a temp NOVA_HOME and
// workspace; settings (when not "") is the user's settings.json.
type ctlEnv struct {
	c        *Controller
	srv      *llmtest.Server
	ws       string
	novaHome string
}

func newTestController(t *testing.T, settings string, o Options, turns ...llmtest.Turn) *ctlEnv {
	t.Helper()
	srv := llmtest.New(turns...)
	t.Cleanup(srv.Close)
	home := t.TempDir()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	novaHome := filepath.Join(home, ".nova")
	if settings != "" {
		writeTestFile(t, filepath.Join(novaHome, "settings.json"), settings)
	}
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	o.NovaHome, o.Workdir, o.Home, o.NoSandbox = novaHome, ws, home, true
	o.Getenv = func(k string) string { return env[k] }
	c, err := NewController(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close("") })
	return &ctlEnv{c: c, srv: srv, ws: ws, novaHome: novaHome}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run sends a prompt to the controller's current runtime and waits for
// the run's end.
func (e *ctlEnv) run(t *testing.T, prompt string) {
	t.Helper()
	for range e.c.Runtime().Live.Run(context.Background(), llm.UserText(prompt)) {
	}
}

// last is the body of the last request the provider received.
func (e *ctlEnv) last(t *testing.T) map[string]any {
	t.Helper()
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the provider received no request")
	}
	return reqs[len(reqs)-1].JSON()
}

// The model a switch names is the one the next request asks for, the
// session carried on (its history goes with it); an unknown name is an
// *UnknownModelError listing the known ones and costs nothing.
func TestControllerSetModel(t *testing.T) {
	e := newTestController(t, "", Options{}, llmtest.Turn{Text: "first"}, llmtest.Turn{Text: "second"}, llmtest.Turn{Text: "third"})
	e.run(t, "hello SENTINEL-BEFORE")
	if got := e.last(t)["model"]; got == "claude-haiku-5-5" {
		t.Fatalf("positive control: the first request already named %v", got)
	}
	id := e.c.Runtime().Session.ID()
	if err := e.c.SetModel("haiku"); err != nil {
		t.Fatal(err)
	}
	e.run(t, "again")
	body := e.last(t)
	if got := body["model"]; got != "claude-haiku-5-5" {
		t.Errorf("after SetModel(haiku) the request named %v", got)
	}
	if raw, _ := json.Marshal(body["messages"]); !strings.Contains(string(raw), "SENTINEL-BEFORE") {
		t.Errorf("the switch lost the history: %s", raw)
	}
	if got := e.c.Runtime().Session.ID(); got != id {
		t.Errorf("the switch changed the session %s -> %s", id, got)
	}

	err := e.c.SetModel("anthropic:no-such-model-9")
	var ue *UnknownModelError
	if !errors.As(err, &ue) {
		t.Fatalf("unknown model: %v (%T), want *UnknownModelError", err, err)
	}
	if !slices.Contains(ue.Known, "anthropic:claude-haiku-5-5") || !strings.Contains(err.Error(), "anthropic:claude-haiku-5-5") {
		t.Errorf("the error lists %v: %v", ue.Known, err)
	}
	e.run(t, "still there")
	if got := e.last(t)["model"]; got != "claude-haiku-5-5" {
		t.Errorf("a refused switch changed the model to %v", got)
	}
}

// Plan mode stops a Write (the file is not made); acceptEdits, the
// positive control, lets the same call write it. bypassPermissions is
// refused to a remote caller whatever the session allows.
func TestControllerSetMode(t *testing.T) {
	write := func(name string) llmtest.Turn {
		return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "w_" + name, Name: "Write", Input: `{"file_path": "` + name + `", "content": "x"}`}}}
	}
	e := newTestController(t, "", Options{AllowBypass: true},
		write("accepted.txt"), llmtest.Turn{Text: "ok"}, write("planned.txt"), llmtest.Turn{Text: "ok"})
	if m, err := e.c.SetMode("acceptEdits", false); err != nil || m != permission.ModeAcceptEdits {
		t.Fatalf("acceptEdits: %v %v", m, err)
	}
	e.run(t, "write one")
	if _, err := os.Stat(filepath.Join(e.ws, "accepted.txt")); err != nil {
		t.Fatalf("positive control: acceptEdits did not write: %v", err)
	}
	if _, err := e.c.SetMode("plan", true); err != nil {
		t.Fatal(err)
	}
	if e.c.Mode() != permission.ModePlan {
		t.Fatalf("mode = %s", e.c.Mode())
	}
	e.run(t, "write another")
	if _, err := os.Stat(filepath.Join(e.ws, "planned.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan mode let a Write make the file: %v", err)
	}

	if _, err := e.c.SetMode("bypassPermissions", true); !errors.Is(err, ErrBypassRefused) {
		t.Errorf("remote bypassPermissions: %v, want ErrBypassRefused", err)
	}
	if e.c.Mode() != permission.ModePlan {
		t.Errorf("a refused switch left the mode %s", e.c.Mode())
	}
	if _, err := e.c.SetMode("yolo", false); err == nil {
		t.Error("an unknown mode was accepted")
	}
}

// A mode chosen survives an operation that replaces the runtime.
func TestControllerModeKeptAcrossSwitch(t *testing.T) {
	e := newTestController(t, "", Options{})
	if _, err := e.c.SetMode("plan", false); err != nil {
		t.Fatal(err)
	}
	if err := e.c.SetModel("haiku"); err != nil {
		t.Fatal(err)
	}
	if e.c.Mode() != permission.ModePlan {
		t.Errorf("after a model switch the mode is %s, want plan", e.c.Mode())
	}
}

// Compact summarises the history: the request after it is shorter than
// the one before, and carries the summary instead of the old turn.
func TestControllerCompact(t *testing.T) {
	long := strings.Repeat("SENTINEL-OLD-TURN ", 2000)
	e := newTestController(t, "", Options{},
		llmtest.Turn{Text: long}, llmtest.Turn{Text: "two"},
		llmtest.Turn{Text: "SENTINEL-SUMMARY of the first turn"}, llmtest.Turn{Text: "after"})
	e.run(t, "one")
	e.run(t, "two")
	before := len(e.srv.Requests()[1].Body)
	if err := e.c.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	// The compaction was the session's last run: its frames replay.
	sub, replay, _, ok := e.c.Runtime().Live.Subscribe(0)
	if !ok {
		t.Fatal("the compaction left no run on the session")
	}
	sub.Close()
	sawCompaction := slices.ContainsFunc(replay, func(f Frame[agent.Event]) bool { return f.Value.Type == agent.EventCompaction })
	if !sawCompaction {
		t.Error("no compaction event on the session's stream")
	}
	e.run(t, "three")
	reqs := e.srv.Requests()
	after := string(reqs[len(reqs)-1].Body)
	if len(after) >= before {
		t.Errorf("the request after compaction is %d bytes, before it %d", len(after), before)
	}
	if strings.Contains(after, "SENTINEL-OLD-TURN") || !strings.Contains(after, "SENTINEL-SUMMARY") {
		t.Errorf("the request after compaction does not carry the summary in place of the old turn:\n%.400s", after)
	}
}

// A person's command runs through the pipeline: its output is the
// outcome's, is told to the model with the next request and is kept in
// the transcript; a deny rule holds (the file is not made) while a
// command beside it runs.
func TestControllerShell(t *testing.T) {
	e := newTestController(t, `{"permissions": {"deny": ["Bash(touch:*)"]}}`, Options{}, llmtest.Turn{Text: "seen"})
	out, err := e.c.Shell(context.Background(), "echo SENTINEL-SHELL-OUT")
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 0 || !strings.Contains(out.Output, "SENTINEL-SHELL-OUT") || out.Denied {
		t.Errorf("echo: %+v", out)
	}
	bad, err := e.c.Shell(context.Background(), "false")
	if err != nil || bad.ExitCode != 1 {
		t.Errorf("false: %+v %v, want exit code 1", bad, err)
	}
	denied, err := e.c.Shell(context.Background(), "touch made.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !denied.Denied || denied.ExitCode != -1 {
		t.Errorf("touch under a deny rule: %+v", denied)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the deny rule did not hold: %v", err)
	}
	if _, err := e.c.Shell(context.Background(), "  "); err == nil {
		t.Error("an empty command was run")
	}
	e.run(t, "what did it say")
	if raw, _ := json.Marshal(e.last(t)["messages"]); !strings.Contains(string(raw), "SENTINEL-SHELL-OUT") {
		t.Errorf("the command's output did not reach the model: %s", raw)
	}
	tr, _, err := session.NewStore(e.novaHome).Load(e.c.Runtime().Session.ID())
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(tr.Messages()); !strings.Contains(string(raw), "SENTINEL-SHELL-OUT") {
		t.Errorf("the command's output is not in the session's messages: %s", raw)
	}
}

// The rules listed are the checker's, each with its source and layer;
// a rule added or removed holds for the next call.
func TestControllerRules(t *testing.T) {
	touch := llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "Bash", Input: `{"command": "touch added.txt"}`}}}
	e := newTestController(t, `{"permissions": {"allow": ["Bash(touch:*)"], "deny": ["Read(./secret/**)"]}}`, Options{AllowedTools: []string{"Grep"}},
		touch, llmtest.Turn{Text: "ok"}, touch, llmtest.Turn{Text: "ok"})
	rules := e.c.Rules()
	user := filepath.Join(e.novaHome, "settings.json")
	find := func(rules []Rule, rule string) *Rule {
		for i := range rules {
			if rules[i].Rule == rule {
				return &rules[i]
			}
		}
		return nil
	}
	if r := find(rules, "Read(./secret/**)"); r == nil || r.Behavior != permission.Deny || r.Source != user || r.Layer != "user" || !r.Removable {
		t.Errorf("the user's deny rule: %+v in %+v", r, rules)
	}
	if r := find(rules, "Grep"); r == nil || r.Behavior != permission.Allow || r.Source == "" || r.Removable {
		t.Errorf("the command line's rule: %+v in %+v", r, rules)
	}

	if err := e.c.AddRule(permission.Deny, "Bash(touch added.txt)"); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(e.ws, ".nova", "settings.local.json")
	if r := find(e.c.Rules(), "Bash(touch added.txt)"); r == nil || r.Source != local || r.Layer != "local" {
		t.Errorf("the added rule: %+v", r)
	}
	e.run(t, "touch it")
	if _, err := os.Stat(filepath.Join(e.ws, "added.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the added deny rule did not hold: %v", err)
	}
	r := find(e.c.Rules(), "Bash(touch added.txt)")
	if r == nil {
		t.Fatal("the added rule is gone")
	}
	if err := e.c.RemoveRule(*r); err != nil {
		t.Fatal(err)
	}
	if find(e.c.Rules(), "Bash(touch added.txt)") != nil {
		t.Error("the removed rule is still in force")
	}
	e.run(t, "touch it again")
	if _, err := os.Stat(filepath.Join(e.ws, "added.txt")); err != nil {
		t.Errorf("with the deny rule removed the allowed touch did not run: %v", err)
	}
	if err := e.c.RemoveRule(Rule{Rule: "Grep", Source: "--allowedTools"}); err == nil {
		t.Error("a command line rule was removed")
	}
	if err := e.c.AddRule(permission.Deny, "Bash("); err == nil {
		t.Error("a malformed rule was added")
	}
}

// Clear starts a new session; Resume comes back to the old one with its
// history; a busy session refuses both.
func TestControllerClearResume(t *testing.T) {
	e := newTestController(t, "", Options{}, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	e.run(t, "SENTINEL-FIRST-SESSION")
	first := e.c.Runtime().Session.ID()
	if err := e.c.Clear(); err != nil {
		t.Fatal(err)
	}
	if e.c.Runtime().Session.ID() == first {
		t.Fatal("clear kept the session")
	}
	list, err := e.c.Sessions()
	if err != nil || !slices.ContainsFunc(list, func(m session.Meta) bool { return m.ID == first }) {
		t.Errorf("sessions %v %v lack %s", list, err, first)
	}
	if err := e.c.Resume(first); err != nil {
		t.Fatal(err)
	}
	e.run(t, "back")
	if raw, _ := json.Marshal(e.last(t)["messages"]); !strings.Contains(string(raw), "SENTINEL-FIRST-SESSION") {
		t.Errorf("the resumed session lost its history: %s", raw)
	}
}
