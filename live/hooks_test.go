package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// hookWorld is a NOVA_HOME whose settings.json holds hooks, a workspace,
// and the fake provider.
type hookWorld struct {
	t                  *testing.T
	novaHome, ws, home string
	srv                *llmtest.Server
}

func newHookWorld(t *testing.T, hooks string, turns ...llmtest.Turn) *hookWorld {
	t.Helper()
	w := &hookWorld{t: t, home: t.TempDir(), ws: t.TempDir(), srv: llmtest.New(turns...)}
	t.Cleanup(w.srv.Close)
	if ws, err := filepath.EvalSymlinks(w.ws); err == nil {
		w.ws = ws
	}
	w.novaHome = filepath.Join(w.home, ".nova")
	if err := os.MkdirAll(w.novaHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.novaHome, "settings.json"), []byte(`{"hooks": `+hooks+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *hookWorld) build(o Options) (*Runtime, error) {
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": w.srv.URL}
	o.NovaHome, o.Workdir, o.Home, o.NoSandbox = w.novaHome, w.ws, w.home, true
	o.Getenv = func(k string) string { return env[k] }
	return Build(context.Background(), o)
}

func (w *hookWorld) log() string {
	b, _ := os.ReadFile(filepath.Join(w.ws, "hooks.log"))
	return string(b)
}

// logHook is a hook that appends the event's name and field to hooks.log.
func logHook(field string) string {
	return `[{"hooks": [{"type": "command", "command": "python3 -c 'import json,sys; d=json.load(sys.stdin); open(\"hooks.log\",\"a\").write(d[\"hook_event_name\"]+\" \"+str(d.get(\"` + field + `\"))+\"\\n\")'"}]}]`
}

// TestSessionHooks: SessionStart runs as the session opens (startup, or
// resume when resuming), Notification as a permission ask is put to a
// person, SessionEnd as the runtime closes, with the reason it was given.
func TestSessionHooks(t *testing.T) {
	hooks := `{"SessionStart": ` + logHook("source") + `, "Notification": ` + logHook("notification_type") + `, "SessionEnd": ` + logHook("reason") + `}`
	w := newHookWorld(t, hooks,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "Bash", Input: `{"command":"touch made.txt"}`}}},
		llmtest.Turn{Text: "ok"},
		llmtest.Turn{Text: "again, ok"}) // the resumed run's: without it, it retried a missing turn for 13 s
	rt, err := w.build(Options{Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	for ev := range rt.Live.Run(context.Background(), llm.UserText("make a file")) {
		if ev.Type == agent.EventPermissionAsk {
			ev.Ask.Answer(agent.PermissionAnswer{Allow: false, Message: "not now"})
		}
	}
	rt.EndReason = "clear"
	id := rt.Session.ID()
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := w.log(), "SessionStart startup\nNotification permission_prompt\nSessionEnd clear\n"; got != want {
		t.Errorf("hooks.log = %q, want %q", got, want)
	}
	rt, err = w.build(Options{Resume: id})
	if err != nil {
		t.Fatal(err)
	}
	for range rt.Live.Run(context.Background(), llm.UserText("again")) {
	}
	rt.Close()
	if got := w.log(); !strings.HasSuffix(got, "SessionStart resume\nSessionEnd other\n") {
		t.Errorf("hooks.log = %q, want a resume and an end", got)
	}
}

// TestHookConfigErrors: hooks nova cannot read stop the start, naming the
// file; hooks it will not run are warned about.
func TestHookConfigErrors(t *testing.T) {
	w := newHookWorld(t, `{"PreToolUse": [{"hooks": [{"type": "command"}]}]}`)
	_, err := w.build(Options{})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), filepath.Join(w.novaHome, "settings.json")) {
		t.Errorf("err = %v, want a ConfigError naming the file", err)
	}
	w = newHookWorld(t, `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "mcp_tool", "server": "s", "tool": "t"}]}]}`)
	rt, err := w.build(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if !strings.Contains(strings.Join(rt.Warnings, "\n"), `nova has no "mcp_tool" hooks`) {
		t.Errorf("warnings = %q", rt.Warnings)
	}
}
