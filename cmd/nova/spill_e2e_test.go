package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestSpilledResultIsReadable reads a file whose 2000 lines are too large
// for the conversation, then reads the spilled file back with Read and Grep in
// print mode, where any ask would be refused: the spill directory sits in
// NOVA_HOME, outside the workspace, and the pointer the model is given must
// lead somewhere it may go.
func TestSpilledResultIsReadable(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "big", Name: "Read", Input: jsonInput(map[string]any{"file_path": "big.txt"})}}},
		llmtest.Turn{Text: "It has rows."},
	)
	var big strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&big, "row %d %s\n", i, strings.Repeat("x", 60))
	}
	e.write("big.txt", big.String())
	r := e.run("", "-p", "--output-format", "json", "read big.txt")
	if r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	id := resultSessionID(t, r)
	reqs := e.srv.Requests()
	res := toolResultsOf(t, reqs[len(reqs)-1])["big"]
	m := regexp.MustCompile(`the full output is in (\S+\.txt)`).FindStringSubmatch(res.Text)
	if m == nil {
		t.Fatalf("the result is not a spill pointer (%d chars): %q", len(res.Text), res.Text[max(0, len(res.Text)-600):])
	}
	spilled := m[1]
	if strings.HasPrefix(spilled, e.ws) {
		t.Fatalf("spill file %s is inside the workspace", spilled)
	}
	if data, err := os.ReadFile(spilled); err != nil || !strings.Contains(string(data), "row 2000 x") {
		t.Fatalf("spill file: %v, %d bytes", err, len(data))
	}

	// A second run of the same session reads it back; nothing is allowed
	// beyond what the first run was.
	e.srv.Push(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "read", Name: "Read", Input: jsonInput(map[string]any{"file_path": spilled, "offset": 1500, "limit": 3})},
			{ID: "grep", Name: "Grep", Input: jsonInput(map[string]any{"pattern": "row 199[0-9] ", "path": spilled, "output_mode": "count"})},
		}},
		llmtest.Turn{Text: "Row 1500 is there."},
	)
	r = e.run("", "-p", "--output-format", "json", "--resume", id, "what is in row 1500?")
	if r.code != 0 {
		t.Fatalf("second run: exit %d: %s", r.code, r.stderr)
	}
	reqs = e.srv.Requests()
	got := toolResultsOf(t, reqs[len(reqs)-1])
	if rd := got["read"]; rd.IsError || !strings.Contains(rd.Text, "row 1500 x") || strings.Contains(rd.Text, "row 1503 x") {
		t.Errorf("Read of the spill file: error=%v %.300q", rd.IsError, rd.Text)
	}
	if g := got["grep"]; g.IsError || !strings.Contains(g.Text, "10") {
		t.Errorf("Grep of the spill file: error=%v %.300q", g.IsError, g.Text)
	}

	// Positive control: a file beside the session directory, outside the
	// spill directory, is not readable without asking.
	other := filepath.Join(filepath.Dir(filepath.Dir(spilled)), "meta.json")
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("control file: %v", err)
	}
	e.srv.Push(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "meta", Name: "Read", Input: jsonInput(map[string]any{"file_path": other})}}},
		llmtest.Turn{Text: "done"},
	)
	r = e.run("", "-p", "--output-format", "json", "--resume", id, "read the meta")
	reqs = e.srv.Requests()
	if mr := toolResultsOf(t, reqs[len(reqs)-1])["meta"]; !mr.IsError {
		t.Errorf("Read of %s outside the spill directory was allowed: %.200q", other, mr.Text)
	}
}
