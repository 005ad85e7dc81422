package hooks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestIfCondition: a hook with "if" runs only for the calls its rule
// matches, matched as deny rules are (compound commands, global options);
// a command nova cannot see into runs it; an "if" nova cannot read, or on
// an event without a tool call, leaves the hook running on every match
// and says so.
func TestIfCondition(t *testing.T) {
	w := newWorld(t)
	w.script("guard.py", `import json, sys
print("no pushing: " + json.load(sys.stdin)["tool_input"]["command"], file=sys.stderr)
sys.exit(2)
`)
	e := w.engine(cmdHooks("PreToolUse", "Bash", "python3 guard.py", "if", "Bash(git push:*)"))
	bash := func(cmd string) Input {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return ToolInput("Bash", in, "t1")
	}
	for cmd, runs := range map[string]bool{
		"git status":                    false,
		"npm test":                      false,
		"git push origin main":          true,
		"make && git push":              true,
		"git -C . push":                 true,
		`eval "$(echo git) push"`:       true,
		"echo git push is what you run": false,
	} {
		o := e.Fire(context.Background(), bash(cmd))
		if got := o.Ran == 1; got != runs {
			t.Errorf("%q: ran = %v, want %v (%+v)", cmd, got, runs, o)
		}
		if runs && (!o.Block || !strings.Contains(o.Reason, "no pushing")) {
			t.Errorf("%q: the hook ran but did not block: %+v", cmd, o)
		}
	}

	w.script("log.sh", "#!/bin/sh\necho ran >> log.txt\n")
	e = w.engine(cmdHooks("PostToolUse", "Edit|Write", "sh log.sh", "if", "Edit(src/**)"))
	for _, p := range []string{filepath.Join(w.dir, "src", "a.go"), filepath.Join(w.dir, "docs", "a.md")} {
		in, _ := json.Marshal(map[string]string{"file_path": p})
		e.Fire(context.Background(), PostToolInput("Write", in, "t", "ok"))
	}
	if got := w.read("log.txt"); got != "ran\n" {
		t.Errorf("log = %q, want the src/ write alone", got)
	}

	cfg, err := Parse([]Source{{File: "s.json", Hooks: json.RawMessage(`{
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2", "if": "Bash(git push"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(x)"}]}]}`)}})
	if err != nil {
		t.Fatal(err)
	}
	p := strings.Join(cfg.Problems(), "\n")
	if !strings.Contains(p, "not a permission rule nova can read") || !strings.Contains(p, "Stop has no tool call") {
		t.Errorf("problems = %q", p)
	}
	if o := New(cfg, Session{ProjectDir: w.dir}).Fire(context.Background(), bash("ls")); !o.Block {
		t.Errorf("a guard whose \"if\" cannot be read did not run: %+v", o)
	}
}
