package session

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// readClaude reads a session's Claude Code transcript, one map a line.
func readClaude(t *testing.T, s *Session) (string, []map[string]any) {
	t.Helper()
	b, err := os.ReadFile(s.ClaudeTranscriptPath())
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return string(b), lines
}

// The Claude Code transcript holds one line per message, in Claude
// Code's shape, chained by parentUuid, without nova's context part; it
// is in step after each append and the same after reopening.
func TestClaudeTranscript(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "/src/shop")
	first := llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart(ContextTag + "\ncwd: /src/shop"), llm.TextPart("list the files")}}
	mustAppend(t, s, first)
	if _, lines := readClaude(t, s); len(lines) != 1 || lines[0]["message"].(map[string]any)["content"] != "list the files" {
		t.Fatalf("after the first message: %v", lines)
	}
	mustAppend(t, s, assistantCall("toolu_1", "Bash", `{"command":"ls"}`), toolResult("toolu_1", "Bash", "a.go\n", false),
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("There is a.go.")}})
	raw, lines := readClaude(t, s)
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), raw)
	}
	for i, l := range lines {
		if l["sessionId"] != s.ID() || l["cwd"] != "/src/shop" || l["uuid"] == "" || l["timestamp"] == "" {
			t.Errorf("line %d lacks its ids: %v", i, l)
		}
		if i == 0 && l["parentUuid"] != nil || i > 0 && l["parentUuid"] != lines[i-1]["uuid"] {
			t.Errorf("line %d parentUuid = %v", i, l["parentUuid"])
		}
	}
	wantTypes := []string{"user", "assistant", "user", "assistant"}
	for i, w := range wantTypes {
		if lines[i]["type"] != w || lines[i]["message"].(map[string]any)["role"] != w {
			t.Errorf("line %d is %v/%v, want %s", i, lines[i]["type"], lines[i]["message"], w)
		}
	}
	call := lines[1]["message"].(map[string]any)["content"].([]any)[1].(map[string]any)
	if call["type"] != "tool_use" || call["id"] != "toolu_1" || call["input"].(map[string]any)["command"] != "ls" {
		t.Errorf("tool_use block = %v", call)
	}
	res := lines[2]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	if res["type"] != "tool_result" || res["tool_use_id"] != "toolu_1" || res["content"] != "a.go\n" || res["is_error"] != false {
		t.Errorf("tool_result block = %v", res)
	}
	if strings.Contains(raw, ContextTag) {
		t.Errorf("nova's context part is in the transcript")
	}
	// What the ralph-wiggum hook greps for: compact JSON.
	if !strings.Contains(raw, `"role":"assistant"`) {
		t.Errorf("no compact \"role\":\"assistant\" in %s", raw)
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, warns, err := st.Open(id)
	if err != nil || len(warns) > 0 {
		t.Fatalf("Open: %v %v", err, warns)
	}
	defer s2.Close()
	if again, _ := readClaude(t, s2); again != raw {
		t.Errorf("rebuilt on open:\n%s\nwant\n%s", again, raw)
	}
	mustAppend(t, s2, llm.UserText("thanks"))
	if _, lines := readClaude(t, s2); len(lines) != 5 || lines[4]["parentUuid"] != lines[3]["uuid"] {
		t.Errorf("the appended message is not chained: %v", lines[len(lines)-1])
	}
}

// A Claude Code transcript that lags or was cut (a crash between the two
// appends, a half-written line) is rebuilt on open; one in step is kept
// as it is and appended to.
func TestClaudeTranscriptRepairedOnOpen(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "/src/shop")
	mustAppend(t, s, llm.UserText("one"), llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("two")}}, llm.UserText("three"))
	whole, _ := readClaude(t, s)
	id, path := s.ID(), s.ClaudeTranscriptPath()
	s.Close()
	for name, damaged := range map[string]string{
		"missing":       "",
		"lagging":       whole[:strings.LastIndex(strings.TrimSuffix(whole, "\n"), "\n")+1],
		"half a line":   whole[:len(whole)-10],
		"foreign":       strings.Replace(whole, `"uuid":"`, `"uuid":"x`, -1),
		"one line more": whole + whole[:strings.Index(whole, "\n")+1],
	} {
		t.Run(name, func(t *testing.T) {
			if damaged == "" {
				os.Remove(path)
			} else if err := os.WriteFile(path, []byte(damaged), 0o600); err != nil {
				t.Fatal(err)
			}
			s, warns, err := st.Open(id)
			if err != nil || len(warns) > 0 {
				t.Fatalf("Open: %v %v", err, warns)
			}
			defer s.Close()
			if got, _ := readClaude(t, s); got != whole {
				t.Errorf("not rebuilt:\n%s\nwant\n%s", got, whole)
			}
		})
	}
}
