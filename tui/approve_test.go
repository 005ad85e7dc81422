package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// writeRead puts a file in the workspace and records it as read, as a
// Read call would, so an Edit of it may run.
func writeRead(t *testing.T, b *agentBackend, name, content string) string {
	t.Helper()
	abs := filepath.Join(b.ws, name)
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	b.env.Files.Record(abs)
	return abs
}

// TestTUIEditAskShowsDiff: the Edit ask shows the numbered diff the edit
// will make, computed by the tool from the file and the call; approved, the
// diff stays under the call, collapsed to its first lines.
func TestTUIEditAskShowsDiff(t *testing.T) {
	b := newAgentBackend(t,
		toolTurn("call_1", "Edit", map[string]any{"file_path": "main.go", "old_string": "\tfmt.Println(\"hello\")\n", "new_string": "\tname := \"nova\"\n\tfmt.Println(\"hello\", name)\n"}),
		textTurn("Greets by name now."))
	abs := writeRead(t, b, "main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n")
	h := newAgentHarness(t, b)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 30})
	h.typeText("greet by name")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.golden("edit_ask_diff")
	h.contains("6 -     fmt.Println(\"hello\")")
	h.contains("7 +     fmt.Println(\"hello\", name)")
	h.press("y")
	h.waitFor(func() bool { return h.m.run == nil })
	if data, _ := os.ReadFile(abs); !strings.Contains(string(data), "name := \"nova\"") {
		t.Fatalf("the approved edit did not happen: %q", data)
	}
	h.contains("● Edit(main.go)")
	h.contains("6 +     name := \"nova\"") // the diff, kept in the transcript
}

// TestTUIWriteAskShowsContent: the Write ask of a new file shows its
// content, numbered, in a window the screen has room for, which pgdown
// scrolls.
func TestTUIWriteAskShowsContent(t *testing.T) {
	var content strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&content, "line %d of the new file\n", i)
	}
	b := newAgentBackend(t,
		toolTurn("call_1", "Write", map[string]any{"file_path": "notes.txt", "content": content.String()}),
		textTurn("Wrote it."))
	h := newAgentHarness(t, b)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 30})
	h.typeText("write notes")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.golden("write_ask_content")
	h.contains("new file, 40 lines")
	h.contains("lines 1–")
	if strings.Contains(h.screen(), "line 40 of") {
		t.Fatal("the whole file is shown: the window has no cap")
	}
	for i := 0; i < 10; i++ {
		h.press("pgdown")
	}
	h.contains("40 + line 40 of the new file")
	h.contains("of 40")
	h.press("y")
	h.waitFor(func() bool { return h.m.run == nil })
	h.contains("Wrote it.")
}

// TestTUIBashAskShowsDescription: the Bash ask shows the whole command,
// wrapped, and the description the model gave it.
func TestTUIBashAskShowsDescription(t *testing.T) {
	long := "find . -name '*.tmp' -mtime +7 -print0 | xargs -0 rm -f && echo removed the old temporary files from every directory"
	b := newAgentBackend(t,
		toolTurn("call_1", "Bash", map[string]any{"command": long, "description": "Delete temp files older than a week"}),
		textTurn("Done."))
	h := newAgentHarness(t, b)
	h.typeText("clean up")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.contains("Delete temp files older than a week")
	h.contains("every directory") // the end of the command, not cut off
	h.press("n")
	h.waitFor(func() bool { return h.m.run == nil })
}
