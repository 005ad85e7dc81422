package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// engineHooks is a real hook engine as the agent's Hooks: SessionStart
// runs when the agent first asks, as if the session had just opened.
type engineHooks struct{ *hooks.Engine }

func (e engineHooks) Started(ctx context.Context) hooks.Outcome {
	return e.Fire(ctx, hooks.SessionStartInput("startup", "m"))
}

// withHooks gives h's agent a hook engine over hooksJSON (a settings
// "hooks" object) whose scripts run in dir, and writes scripts there.
func withHooks(t *testing.T, h *harness, hooksJSON string, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := hooks.Parse([]hooks.Source{{File: "settings.json", Hooks: json.RawMessage(hooksJSON)}})
	if err != nil {
		t.Fatal(err)
	}
	e := hooks.New(cfg, hooks.Session{ID: "s1", ProjectDir: dir})
	t.Cleanup(e.Close)
	h.agent.cfg.Hooks = engineHooks{e}
	h.agent.cfg.Pipeline.Hooks = e.Tools()
	return dir
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func texts(m llm.Message) []string {
	var out []string
	for _, p := range m.Parts {
		if p.Type == llm.PartText {
			out = append(out, p.Text)
		}
	}
	return out
}

// TestPromptHooksAddContext: SessionStart's context rides with the
// agent's first prompt only; UserPromptSubmit's with every prompt, after
// it, as a system reminder naming the hook; both reach the model.
func TestPromptHooksAddContext(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	dir := withHooks(t, h, `{
		"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo started >> starts.log; echo 'Current branch: main'"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "python3 ctx.py"}]}]}`,
		map[string]string{"ctx.py": `import json, sys
p = json.load(sys.stdin)["prompt"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "you said " + p.upper()}}))
`})
	h.client.add(reply("one"), reply("two"))
	for _, p := range []string{"first", "second"} {
		if d := last(drain(h.agent.Run(context.Background(), llm.UserText(p)), nil)); d.IsError {
			t.Fatalf("done = %+v", d)
		}
	}
	reqs := h.client.requests()
	first := texts(reqs[0].Messages[0])
	if len(first) != 4 || first[0] != "<environment>ctx</environment>" || !strings.Contains(first[1], "SessionStart:startup hook additional context: Current branch: main") ||
		first[2] != "first" || !strings.Contains(first[3], "UserPromptSubmit hook additional context: you said FIRST") || !strings.HasPrefix(first[3], "<system-reminder>") {
		t.Errorf("first prompt = %q", first)
	}
	second := texts(reqs[1].Messages[len(reqs[1].Messages)-1])
	if len(second) != 2 || second[0] != "second" || !strings.Contains(second[1], "you said SECOND") {
		t.Errorf("second prompt = %q", second)
	}
	if got := readFile(t, filepath.Join(dir, "starts.log")); got != "started\n" {
		t.Errorf("SessionStart ran %q, want once", got)
	}
}

// TestUserPromptSubmitBlocks: a blocked prompt never reaches the model
// nor the history, and the run says why.
func TestUserPromptSubmitBlocks(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	withHooks(t, h, `{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo 'prompts must name a ticket' >&2; exit 2"}]}]}`, nil)
	d := last(drain(h.agent.Run(context.Background(), llm.UserText("refactor everything")), nil))
	if !d.IsError || !strings.Contains(d.Error, "prompts must name a ticket") {
		t.Errorf("done = %+v", d)
	}
	if n := len(h.client.requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if hist := h.agent.History(); len(hist) != 0 {
		t.Errorf("history = %+v", hist)
	}
}

// TestStopHookGoesOn: a Stop hook that blocks sends the model back to work
// with its reason, and is told stop_hook_active the second time.
func TestStopHookGoesOn(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	dir := withHooks(t, h, `{"Stop": [{"hooks": [{"type": "command", "command": "python3 stop.py"}]}]}`,
		map[string]string{"stop.py": `import json, sys
d = json.load(sys.stdin)
open("stops.log", "a").write("%s %s\n" % (d["stop_hook_active"], d["last_assistant_message"]))
if not d["stop_hook_active"]:
    print("run the tests before you stop", file=sys.stderr)
    sys.exit(2)
`})
	h.client.add(reply("done"), reply("tests pass"))
	d := last(drain(h.agent.Run(context.Background(), llm.UserText("fix the bug")), nil))
	if d.IsError || d.Result != "tests pass" || d.NumTurns != 2 {
		t.Fatalf("done = %+v", d)
	}
	reqs := h.client.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[1].Messages
	if got := msgs[len(msgs)-1].Text(); got != "Stop hook feedback:\nrun the tests before you stop" {
		t.Errorf("the model was sent %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "stops.log")); got != "False done\nTrue tests pass\n" {
		t.Errorf("stops.log = %q", got)
	}
}

// TestStopHookCap: a Stop hook that never lets the model stop is
// overruled after eight continuations.
func TestStopHookCap(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	withHooks(t, h, `{"Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"not yet\"}'"}]}]}`, nil)
	for range stopHookCap + 1 {
		h.client.add(reply("done"))
	}
	evs := drain(h.agent.Run(context.Background(), llm.UserText("go")), nil)
	if d := last(evs); d.IsError || d.NumTurns != stopHookCap+1 {
		t.Fatalf("done = %+v", d)
	}
	if n := len(h.client.requests()); n != stopHookCap+1 {
		t.Errorf("%d requests, want %d", n, stopHookCap+1)
	}
	if !hasNotice(evs, "8 times in a row") {
		t.Errorf("no notice of the cap")
	}
}

func hasNotice(evs []Event, s string) bool {
	for _, ev := range evs {
		if ev.Type == EventNotice && strings.Contains(ev.Text, s) {
			return true
		}
	}
	return false
}

// TestTurnHooks: TurnStart and TurnEnd fire around every turn, and a
// continue:false from one stops the run there.
func TestTurnHooks(t *testing.T) {
	r := &fakeTool{name: "R", kind: permission.KindRead}
	h := newHarness(t, permission.ModeDefault, false, r)
	dir := withHooks(t, h, `{
		"TurnStart": [{"hooks": [{"type": "command", "command": "python3 turn.py"}]}],
		"TurnEnd": [{"hooks": [{"type": "command", "command": "python3 turn.py"}]}]}`,
		map[string]string{"turn.py": `import json, sys
d = json.load(sys.stdin)
open("turns.log", "a").write("%s %d %s\n" % (d["hook_event_name"], d["turn"], d.get("stop_reason", "-")))
if d["hook_event_name"] == "TurnStart" and d["turn"] == 3:
    print(json.dumps({"continue": False, "stopReason": "two turns are enough"}))
`})
	h.client.add(reply("", call("c1", "R", `{}`)), reply("", call("c2", "R", `{}`)), reply("never sent"))
	evs := drain(h.agent.Run(context.Background(), llm.UserText("go")), nil)
	if d := last(evs); d.IsError || d.NumTurns != 2 {
		t.Fatalf("done = %+v", d)
	}
	if n := len(h.client.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	want := "TurnStart 1 -\nTurnEnd 1 tool_use\nTurnStart 2 -\nTurnEnd 2 tool_use\nTurnStart 3 -\n"
	if got := readFile(t, filepath.Join(dir, "turns.log")); got != want {
		t.Errorf("turns.log = %q, want %q", got, want)
	}
	if !hasNotice(evs, "a TurnStart hook stopped the run: two turns are enough") {
		t.Errorf("no notice of the stop")
	}
}

// TestToolHookStopsTheRun: a PostToolUse continue:false ends the run
// after the call's result is in history, with no further request.
func TestToolHookStopsTheRun(t *testing.T) {
	r := &fakeTool{name: "R", kind: permission.KindRead}
	h := newHarness(t, permission.ModeDefault, false, r)
	withHooks(t, h, `{"PostToolUse": [{"matcher": "R", "hooks": [{"type": "command", "command": "echo '{\"continue\": false, \"stopReason\": \"found it\"}'"}]}]}`, nil)
	h.client.add(reply("", call("c1", "R", `{}`)), reply("never sent"))
	evs := drain(h.agent.Run(context.Background(), llm.UserText("go")), nil)
	if d := last(evs); d.IsError {
		t.Fatalf("done = %+v", d)
	}
	if n := len(h.client.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	hist := h.agent.History()
	if res := hist[len(hist)-1]; len(res.Parts) != 1 || res.Parts[0].ToolResult == nil {
		t.Errorf("the call's result is not last in history: %+v", res)
	}
	if !hasNotice(evs, "stopped the run: found it") {
		t.Errorf("no notice of the stop")
	}
}

// TestCompactHooks: a PreCompact hook can block a compaction (history is
// kept, no summary is asked for); otherwise PostCompact gets the summary
// and SessionStart's "compact" context joins it.
func TestCompactHooks(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	rec := &memRecorder{}
	h.agent.cfg.Recorder = rec
	dir := withHooks(t, h, `{
		"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "test -f allow || { echo 'a release is in progress' >&2; exit 2; }"}]}],
		"PostCompact": [{"hooks": [{"type": "command", "command": "python3 -c 'import json,sys; open(\"summary.txt\",\"w\").write(json.load(sys.stdin)[\"compact_summary\"])'"}]}],
		"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "echo 'remember: release on Friday'"}]}]}`, nil)
	h.client.add(reply("a"), reply("b"), reply("c"))
	for _, p := range []string{"one", "two", "three"} {
		drain(h.agent.Run(context.Background(), llm.UserText(p)), nil)
	}
	before := len(h.agent.History())
	if err := h.agent.Compact(context.Background(), ""); !errors.Is(err, ErrCompactionBlocked) || !strings.Contains(err.Error(), "a release is in progress") {
		t.Fatalf("Compact = %v, want blocked", err)
	}
	if len(h.agent.History()) != before || len(h.client.requests()) != 3 {
		t.Fatalf("a blocked compaction changed history or asked the model")
	}
	if err := os.WriteFile(filepath.Join(dir, "allow"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h.client.add(reply("## Goal\nthe summary"))
	if err := h.agent.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "summary.txt")); got != "## Goal\nthe summary" {
		t.Errorf("PostCompact got %q", got)
	}
	if !strings.Contains(rec.summary, "the summary") || !strings.Contains(rec.summary, "SessionStart:compact hook additional context: remember: release on Friday") {
		t.Errorf("summary = %q", rec.summary)
	}
}
