package hooks

import (
	"context"
	"strings"
	"testing"
)

// TestStatusLine: the command gets Claude Code's status line JSON on
// stdin (the fields every hook gets, hook_event_name "Status", and the
// caller's), runs in the project with the settings' env, and its first
// line is the status; one that fails or prints nothing usable is an error.
func TestStatusLine(t *testing.T) {
	w := newWorld(t)
	e := w.engine(`{}`)
	got, err := e.StatusLine(context.Background(),
		`python3 -c 'import json,sys,os; d=json.load(sys.stdin); print(d["hook_event_name"], d["session_id"], d["model"]["id"], d["cwd"] == os.getcwd(), os.environ["FROM_SETTINGS"]); print("second")'`,
		map[string]any{"model": map[string]any{"id": "claude-x"}})
	if err != nil || got != "Status 01SESSION claude-x True yes" {
		t.Errorf("status = %q, %v", got, err)
	}
	if _, err := e.StatusLine(context.Background(), "echo partial; exit 3", nil); err == nil || !strings.Contains(err.Error(), "exited 3") {
		t.Errorf("failing command: %v", err)
	}
	if _, err := e.StatusLine(context.Background(), "no-such-status-command-xyz", nil); err == nil {
		t.Error("a command that cannot start gave no error")
	}
}
