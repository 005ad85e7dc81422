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
	if err := s.AppendCompaction(ContextTag+"\nWorking directory: /proj\n</environment>", "The user asked about a failing build.", nil); err != nil {
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
	t.Parallel()
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
	for _, absent := range []string{"THE-END", "secret scratch", "Working directory"} {
		if strings.Contains(md, absent) {
			t.Errorf("markdown contains %q (long results are cut, thinking and nova's context left out)", absent)
		}
	}
}

func TestExportJSON(t *testing.T) {
	t.Parallel()
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

// WithoutContext drops nova's context part, the first part of a user
// message, and nothing else.
func TestWithoutContext(t *testing.T) {
	t.Parallel()
	ctx := llm.TextPart(ContextTag + "\nWorking directory: /proj\n</environment>\n\n<instructions>\nrule\n</instructions>\n")
	for _, c := range []struct {
		name string
		in   llm.Message
		want []string
	}{
		{"first prompt", llm.Message{Role: llm.RoleUser, Parts: []llm.Part{ctx, llm.TextPart("hi")}}, []string{"hi"}},
		{"a prompt without context", llm.UserText("hi"), []string{"hi"}},
		{"context not first", llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("hi"), ctx}}, []string{"hi", ctx.Text}},
		{"an assistant's text", llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{ctx}}, []string{ctx.Text}},
		{"empty", llm.Message{Role: llm.RoleUser}, nil},
	} {
		in := c.in
		inParts := append([]llm.Part(nil), in.Parts...)
		var got []string
		for _, p := range WithoutContext(in).Parts {
			got = append(got, p.Text)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if len(in.Parts) != len(inParts) || (len(in.Parts) > 0 && in.Parts[0].Text != inParts[0].Text) {
			t.Errorf("%s: the message given was changed", c.name)
		}
	}
}
