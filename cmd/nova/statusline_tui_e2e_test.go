package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestTUIStatusLineCommandE2E: the statusLine of ~/.claude/settings.json
// runs in the real terminal UI with Claude Code's JSON on stdin, and the
// first line it prints shows on the screen, over nova's own status line;
// after a turn it runs again (its count goes up). The JSON it got holds
// the session, the model and the workspace under Claude Code's names.
func TestTUIStatusLineCommandE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Hello there."}, llmtest.Turn{Text: "A title"})
	seen := filepath.Join(e.home, "statusline-input.json")
	count := filepath.Join(e.home, "statusline-count")
	e.writeHome("statusline.sh", `#!/bin/sh
cat > `+seen+`
n=$(( $(cat `+count+` 2>/dev/null || echo 0) + 1 ))
echo $n > `+count+`
printf 'CC-STATUS run %s model %s\nsecond line\n' "$n" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"]["id"])' `+seen+`)"
`)
	if err := os.Chmod(filepath.Join(e.home, "statusline.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.writeHome(".claude/settings.json", `{"statusLine": {"type": "command", "command": "`+filepath.Join(e.home, "statusline.sh")+`"}}`)
	tm := e.startTUI()
	tm.waitFor("CC-STATUS run 1 model " + defaultModel())
	tm.typeText("say hello")
	tm.keys("Enter")
	tm.waitFor("Hello there.")
	screen := tm.waitFor("CC-STATUS run 2 model " + defaultModel())
	if want := "anthropic:" + defaultModel(); !containsLineAfter(screen, "CC-STATUS run 2", want) {
		t.Errorf("nova's status line is not under the command's:\n%s", screen)
	}
	if strings.Contains(screen, "second line") {
		t.Errorf("more than the first line shows:\n%s", screen)
	}
	// The title request may still take its turn; the input is settled.
	deadline := time.Now().Add(10 * time.Second)
	var in map[string]any
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(seen)
		if err == nil && json.Unmarshal(b, &in) == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	ws, _ := in["workspace"].(map[string]any)
	if in["hook_event_name"] != "Status" || in["session_id"] == "" || in["cwd"] != e.ws || ws["project_dir"] != e.ws || in["version"] == "" {
		t.Errorf("the command got %v", in)
	}
	if _, ok := in["cost"].(map[string]any)["total_duration_ms"]; !ok {
		t.Errorf("no cost.total_duration_ms in %v", in)
	}
}

// containsLineAfter reports whether a line holding first is followed,
// on the next line, by one holding second.
func containsLineAfter(screen, first, second string) bool {
	lines := strings.Split(screen, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.Contains(lines[i], first) && strings.Contains(lines[i+1], second) {
			return true
		}
	}
	return false
}
