package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/tools"
)

// TestRunHooks: hooks added for a run (a skill's) fire beside the
// configured ones for that run only, with the skill's directory in their
// environment, and stop when the run ends; another run never sees them.
func TestRunHooks(t *testing.T) {
	w := newWorld(t)
	skillDir := filepath.Join(w.dir, "skills", "guarded")
	if err := os.MkdirAll(skillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skillDir, "guard.sh"), []byte("#!/bin/sh\necho \"$CLAUDE_SKILL_DIR\" > \"$CLAUDE_PROJECT_DIR/dir.txt\"\necho 'the skill forbids rm' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.script("log.sh", "#!/bin/sh\necho configured >> log.txt\n")
	e := w.engine(cmdHooks("PreToolUse", "Bash", "sh log.sh"))
	src := Source{File: filepath.Join(skillDir, "SKILL.md"), Env: map[string]string{"CLAUDE_SKILL_DIR": skillDir},
		Hooks: json.RawMessage(cmdHooks("PreToolUse", "Bash", `"$CLAUDE_SKILL_DIR"/guard.sh`))}

	if _, err := e.AddRun(context.Background(), src); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Errorf("AddRun outside a run: %v, want an error", err)
	}
	ctx, scope := tools.WithRunScope(context.Background())
	other, _ := tools.WithRunScope(context.Background())
	if problems, err := e.AddRun(ctx, src); err != nil || len(problems) != 0 {
		t.Fatalf("AddRun = %q, %v", problems, err)
	}
	if o := e.Fire(ctx, bashCall); !o.Block || o.Ran != 2 || !strings.Contains(o.Reason, "the skill forbids rm") {
		t.Errorf("in the skill's run: %+v, want the skill's hook to block beside the configured one", o)
	}
	if got := strings.TrimSpace(w.read("dir.txt")); got != skillDir {
		t.Errorf("$CLAUDE_SKILL_DIR = %q, want %q", got, skillDir)
	}
	if o := e.Fire(other, bashCall); o.Block || o.Ran != 1 {
		t.Errorf("another run: %+v, want only the configured hook", o)
	}
	if !e.Has(PreToolUse) || !e.hasFor(ctx, PreToolUse) {
		t.Error("Has does not see the run's hooks")
	}
	scope.End()
	if o := e.Fire(ctx, bashCall); o.Block || o.Ran != 1 {
		t.Errorf("after the run: %+v, want only the configured hook", o)
	}
	if got := w.read("log.txt"); got != "configured\nconfigured\nconfigured\n" {
		t.Errorf("the configured hook ran %q", got)
	}
	if _, err := e.AddRun(ctx, src); err == nil {
		t.Error("AddRun after the run ended succeeded")
	}
	if o := e.Fire(ctx, bashCall); o.Block {
		t.Errorf("hooks added after the run ended fire: %+v", o)
	}
}

// TestRunHooksRefusals: a shape nova cannot read is an error naming the
// skill's file; events a run never sees, and kinds nova does not run,
// are said.
func TestRunHooksRefusals(t *testing.T) {
	w := newWorld(t)
	e := w.engine(`{}`)
	ctx, scope := tools.WithRunScope(context.Background())
	defer scope.End()
	file := filepath.Join(w.dir, "SKILL.md")
	if _, err := e.AddRun(ctx, Source{File: file, Hooks: json.RawMessage(`{"PreToolUse": [{"hooks": [{"type": "command"}]}]}`)}); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a handler without command: %v, want an error naming %s", err, file)
	}
	hooks := `{"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}],
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "mcp_tool", "server": "s", "tool": "t"}]}]}`
	problems, err := e.AddRun(ctx, Source{File: file, Hooks: json.RawMessage(hooks)})
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(problems, "\n")
	for _, want := range []string{"SessionStart command [true] in " + file + " never runs", `no "mcp_tool" hooks`, "blocked until it can run"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %q:\n%s", want, joined)
		}
	}
	if o := e.Fire(ctx, bashCall); !o.Block || !strings.Contains(o.Reason, "cannot run") {
		t.Errorf("the skill's unknown guard did not block: %+v", o)
	}
}

// TestOnceHook: a hook with "once" runs the first time it matches in the
// session, never again.
func TestOnceHook(t *testing.T) {
	w := newWorld(t)
	w.script("log.sh", "#!/bin/sh\necho ran >> log.txt\n")
	e := w.engine(cmdHooks("PostToolUse", "", "sh log.sh", "once", "true"))
	for range 3 {
		e.Fire(context.Background(), PostToolInput("Read", json.RawMessage(`{}`), "t", "x"))
	}
	if got := w.read("log.txt"); got != "ran\n" {
		t.Errorf("log = %q, want one run", got)
	}
}
