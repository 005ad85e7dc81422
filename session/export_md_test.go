package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

func exportedSession(t *testing.T) (*Store, *Session) {
	t.Helper()
	st := newStore(t)
	s := create(t, st, "/proj")
	mustAppend(t, s,
		llm.UserText("Why does the build fail?"),
		assistantCall("call_1", "Bash", `{"command":"go build ./..."}`),
	)
	if err := s.AppendDecision("call_1", "Bash", allow()); err != nil {
		t.Fatal(err)
	}
	long := "main.go:3: undefined: foo\n" + strings.Repeat("noise line\n", 1000) + "THE-END"
	mustAppend(t, s, toolResult("call_1", "Bash", long, true))
	if err := s.AppendCompaction("The user asked about a failing build.", nil); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s,
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartThinking, Text: "secret scratch"}, llm.TextPart("`foo` is undefined in main.go.")}},
		toolResult("call_2", "Read", "```go\npackage main\n```", false),
	)
	if err := s.SetTitle("Failing build"); err != nil {
		t.Fatal(err)
	}
	return st, s
}

func TestExportMarkdown(t *testing.T) {
	_, s := exportedSession(t)
	var buf bytes.Buffer
	if err := ExportMarkdown(&buf, s.Transcript()); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"# Failing build",
		s.ID(),
		"## User\n\nWhy does the build fail?",
		"## Assistant\n\nLet me look.",
		"**Tool call** `Bash` (`call_1`)",
		`"command": "go build ./..."`,
		"**Permission** for `Bash` (`call_1`): **allow** by rule `Bash(ls:*)`: matches an allow rule",
		"**Tool result** `Bash` (`call_1`) — error",
		"main.go:3: undefined: foo",
		"more characters]",
		"**Conversation compacted**",
		"> The user asked about a failing build.",
		"`foo` is undefined in main.go.",
		"````\n```go\npackage main\n```\n````", // a fence longer than the output's
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, absent := range []string{"THE-END", "secret scratch"} {
		if strings.Contains(md, absent) {
			t.Errorf("markdown contains %q (long results are cut, thinking left out)", absent)
		}
	}
}

func TestExportJSON(t *testing.T) {
	st, s := exportedSession(t)
	s.Close()
	tr, _, err := st.Load(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ExportJSON(&buf, tr); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Meta    Meta     `json:"meta"`
		Records []Record `json:"records"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("export is not JSON: %v", err)
	}
	if doc.Meta.ID != s.ID() || doc.Meta.Title != "Failing build" || len(doc.Records) != len(tr.Records) {
		t.Errorf("export meta %+v with %d records, want id %s and %d records", doc.Meta, len(doc.Records), s.ID(), len(tr.Records))
	}
	if !strings.Contains(buf.String(), "THE-END") {
		t.Error("JSON export cut a tool result; it should keep everything")
	}
}
