package main

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestTUIFileMentionE2E: in the real terminal UI, @notes.txt sends the
// file's text with the prompt and counts as reading it (the Edit that
// follows needs no Read first); a file a deny rule hides is not attached,
// and its text never reaches the model.
func TestTUIFileMentionE2E(t *testing.T) {
	edit := llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_edit", Name: "Edit",
		Input: jsonInput(map[string]any{"file_path": "notes.txt", "old_string": "second fact", "new_string": "second fact, checked"})}}}
	e := newE2E(t, edit, llmtest.Turn{Text: "Marked it checked."}, llmtest.Turn{Text: "Notes"})
	e.write("notes.txt", "first fact\nsecond fact\n")
	e.write("secret/key.txt", "SENTINEL-KEY-TEXT\n")
	e.write(".nova/settings.json", `{"permissions": {"deny": ["Read(./secret/**)"], "allow": ["Edit(notes.txt)"]}}`)
	tm := e.startTUI("--trust")
	tm.waitFor("Ask nova anything")

	tm.typeText("print @secret/key.txt now")
	tm.keys("Enter")
	tm.waitFor("not attached, reading it is denied")
	tm.waitFor("Not sent: the prompt is back in the input.")
	tm.keys("C-u")

	tm.typeText("check the second line of @notes.txt please")
	tm.keys("Enter")
	tm.waitFor("Attached @notes.txt (2 lines)")
	tm.waitFor("Marked it checked.")
	body := string(e.srv.Requests()[0].Body)
	if !strings.Contains(body, `\u003cfile path=\"notes.txt\"\u003e`) && !strings.Contains(body, `<file path=\"notes.txt\">`) {
		t.Errorf("the file is not attached to the prompt:\n%s", body)
	}
	if !strings.Contains(body, "second fact") {
		t.Errorf("the file's text is not in the request:\n%s", body)
	}
	if got := e.read("notes.txt"); got != "first fact\nsecond fact, checked\n" {
		t.Errorf("the Edit after the mention did not apply: notes.txt = %q", got)
	}
	for i, r := range e.srv.Requests() {
		if strings.Contains(string(r.Body), "SENTINEL-KEY-TEXT") {
			t.Errorf("request %d carries the denied file's text", i)
		}
	}
	e.waitRequests(3)
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
}
