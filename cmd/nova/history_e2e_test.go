package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
)

var anthropicToolID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// checkHistoryRules fails unless an Anthropic request body keeps the API's
// rules on history, beyond checkToolPairs: roles alternate from the user,
// no empty message or text block, tool_use ids unique and well formed,
// each tool_result first in its message and answering the message before.
func checkHistoryRules(t *testing.T, what string, r llmtest.Request) {
	t.Helper()
	checkToolPairs(t, r)
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string  `json:"type"`
				Text      *string `json:"text"`
				ID        string  `json:"id"`
				ToolUseID string  `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	ids := map[string]bool{}
	var prev []string
	for i, m := range body.Messages {
		if (i == 0 && m.Role != "user") || (i > 0 && body.Messages[i-1].Role == m.Role) || len(m.Content) == 0 {
			t.Errorf("%s: messages.%d (%s, %d blocks) breaks alternation or is empty", what, i, m.Role, len(m.Content))
		}
		var uses []string
		for j, c := range m.Content {
			switch c.Type {
			case "text":
				if c.Text == nil || *c.Text == "" {
					t.Errorf("%s: messages.%d.content.%d: empty text block", what, i, j)
				}
			case "tool_use":
				if ids[c.ID] || !anthropicToolID.MatchString(c.ID) {
					t.Errorf("%s: tool_use id %q repeated or malformed", what, c.ID)
				}
				ids[c.ID] = true
				uses = append(uses, c.ID)
			case "tool_result":
				if (j > 0 && m.Content[j-1].Type != "tool_result") || !containsString(prev, c.ToolUseID) {
					t.Errorf("%s: messages.%d.content.%d: tool_result for %s out of place", what, i, j, c.ToolUseID)
				}
			}
		}
		prev = uses
	}
	if n := len(body.Messages); n == 0 || body.Messages[n-1].Role != "user" {
		t.Errorf("%s: the request does not end with the user", what)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// transcriptLines returns the lines of a session's transcript.
func transcriptLines(t *testing.T, e *e2e, id string) (string, [][]byte) {
	t.Helper()
	path := filepath.Join(e.home, ".nova", "sessions", id, "transcript.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, bytes.SplitAfter(data, []byte("\n"))
}

// TestResumeDamagedTranscript runs a session in which the model reuses
// call ids (in one turn and across turns), damages its transcript on disk
// (a lost line, a garbled line), and continues it with nova -p -c: every
// request the provider gets keeps the API's rules, and the model is told
// which results were lost.
func TestResumeDamagedTranscript(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "greet.txt"})}}},
		llmtest.Turn{Text: "Two checks.", ToolCalls: []llmtest.ToolCall{
			{ID: "toolu_2", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo one"})},
			{ID: "toolu_2", Name: "Bash", Input: jsonInput(map[string]any{"command": "echo two"})},
		}},
		llmtest.Turn{Text: "Reading again.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "greet.txt"})}}},
		llmtest.Turn{Text: "It says hello."},
	)
	e.write("greet.txt", "hello world\n")
	r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash", "what does greet.txt say?")
	if r.code != 0 {
		t.Fatalf("first run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	id := resultSessionID(t, r)
	reqs := e.srv.Requests()
	for i, req := range reqs {
		checkHistoryRules(t, fmt.Sprintf("first run, request %d", i+1), req)
	}
	if body := string(reqs[2].Body); !strings.Contains(body, `"toolu_2_2"`) || !strings.Contains(body, "one") || !strings.Contains(body, "two") {
		t.Errorf("the request after the duplicate ids lacks a renamed call or a result: %s", body)
	}

	// The line answering the two checks is lost; the line of the second
	// Read's call is garbled.
	path, lines := transcriptLines(t, e, id)
	var kept [][]byte
	dropped, garbled := 0, 0
	for _, l := range lines {
		switch {
		case bytes.Contains(l, []byte(`"tool_result"`)) && bytes.Contains(l, []byte(`"call_id":"toolu_2"`)):
			dropped++
			continue
		case bytes.Contains(l, []byte(`Reading again.`)):
			garbled++
			l = []byte("{\"v\":1,\"type\":\"message\",\x00\xff\n")
		}
		kept = append(kept, l)
	}
	if dropped != 1 || garbled != 1 {
		t.Fatalf("found %d result lines and %d call lines to damage, want 1 and 1", dropped, garbled)
	}
	if err := os.WriteFile(path, bytes.Join(kept, nil), 0o600); err != nil {
		t.Fatal(err)
	}

	e.srv.Push(llmtest.Turn{Text: "Carrying on."})
	r = e.run("", "-p", "--output-format", "json", "-c", "go on")
	if r.code != 0 {
		t.Fatalf("continued run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "transcript line") {
		t.Errorf("stderr does not name the skipped line: %s", r.stderr)
	}
	reqs = e.srv.Requests()
	last := reqs[len(reqs)-1]
	checkHistoryRules(t, "continued request", last)
	body := string(last.Body)
	if n := strings.Count(body, jsonText(llm.LostResultText)); n != 2 {
		t.Errorf("the continued request tells of %d lost results, want 2 (both checks)", n)
	}
	for _, want := range []string{"what does greet.txt say?", "hello world", "It says hello.", "go on"} {
		if !strings.Contains(body, jsonText(want)) {
			t.Errorf("the continued request lacks %q", want)
		}
	}
}

// TestGarbledCallsInPrintMode: the model sends a call whose input is not
// JSON, then one cut off at the output limit. Neither runs, the model is
// told why in words it can act on, print mode still prints its result,
// the transcript keeps both calls, and the session continues.
func TestGarbledCallsInPrintMode(t *testing.T) {
	turns := func() []llmtest.Turn {
		return []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: `{"command": "echo hi > out.txt`}}},
			{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Write", Input: `{"file_path": "big.txt", "content": "aaaa`}},
				StopReason: "max_tokens", OutputTokens: 16_384},
			{Text: "I will send smaller calls."},
		}
	}
	for _, format := range []string{"json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			e := newE2E(t, turns()...)
			r := e.run("", "-p", "--output-format", format, "--allowedTools", "Bash,Write", "write the files")
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			var res map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
				t.Fatalf("the last line of stdout is not JSON (%v): %q", err, r.stdout)
			}
			checkResult(t, res, "success", 3)
			if format == "json" && len(lines) != 1 {
				t.Errorf("json output is %d lines, want one result object", len(lines))
			}
			if format == "stream-json" {
				if calls := len(parseStream(t, r.stdout).toolUses); calls != 2 {
					t.Errorf("stream-json has %d tool_use blocks, want 2:\n%s", calls, r.stdout)
				}
			}
			for _, f := range []string{"out.txt", "big.txt"} {
				if _, err := os.Stat(filepath.Join(e.ws, f)); err == nil {
					t.Errorf("%s was written: a garbled call ran", f)
				}
			}
			reqs := e.srv.Requests()
			for i, want := range map[int]string{1: "its input was not valid JSON", 2: "cut off at the output limit (16384 tokens)"} {
				body := string(reqs[i].Body)
				if !strings.Contains(body, want) || !strings.Contains(body, "Send the call again") {
					t.Errorf("request %d does not tell the model %q", i+1, want)
				}
				if strings.Contains(body, "Permission to use") {
					t.Errorf("request %d answers a garbled call as a denial", i+1)
				}
				checkHistoryRules(t, fmt.Sprintf("request %d", i+1), reqs[i])
			}

			id, _ := res["session_id"].(string)
			tr, _, err := session.NewStore(filepath.Join(e.home, ".nova")).Load(id)
			if err != nil {
				t.Fatal(err)
			}
			var saved []string
			for _, m := range tr.AllMessages() {
				for _, c := range m.ToolCalls() {
					saved = append(saved, c.ID)
				}
			}
			if strings.Join(saved, ",") != "toolu_1,toolu_2" {
				t.Errorf("calls in the transcript: %v, want both garbled calls", saved)
			}
			e.srv.Push(llmtest.Turn{Text: "ok"})
			if r := e.run("", "-p", "-c", "go on"); r.code != 0 {
				t.Fatalf("continue: exit %d: %s", r.code, r.stderr)
			}
			reqs = e.srv.Requests()
			checkHistoryRules(t, "continued request", reqs[len(reqs)-1])
		})
	}
}

// TestFullDiskThenContinue runs nova -p with the disk "full" (a file size
// limit: the kernel fails the transcript's writes once it reaches it) so
// that a large tool result cannot be saved, then continues the session
// with room again: the request keeps the API's rules and carries what was
// saved.
func TestFullDiskThenContinue(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash for ulimit")
	}
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 400) // 40 kB: read whole, under the spill threshold
	e := newE2E(t,
		llmtest.Turn{Text: "Reading the log.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "big.log"})}}},
		llmtest.Turn{Text: "Reading it again.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Read", Input: jsonInput(map[string]any{"file_path": "small.txt"})}}},
		llmtest.Turn{Text: "The log is all x."},
	)
	e.write("big.log", big)
	e.write("small.txt", "small\n")
	// 24 kB of file size for every file nova writes: enough for the
	// session's first lines, not for the log's contents.
	cmd := exec.Command(bash, "-c", `ulimit -f 24 && exec "$0" "$@"`, novaBin, "-p", "--output-format", "json", "read big.log")
	cmd.Dir, cmd.Env = e.ws, e.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("nova on a full disk: %v\nstdout %s\nstderr %s", err, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "could not be saved") {
		t.Errorf("stderr does not say the transcript could not be saved:\n%s", errOut.String())
	}
	id := resultSessionID(t, runResult{stdout: out.String(), stderr: errOut.String()})
	tr, warns, err := session.NewStore(filepath.Join(e.home, ".nova")).Load(id)
	if err != nil || len(warns) > 0 {
		t.Fatalf("load: %v %v", err, warns)
	}
	left := tr.AllMessages()
	if n := len(left); n != 2 || len(left[1].ToolCalls()) != 1 {
		t.Fatalf("the full disk left %d messages, want the prompt and the first call (nothing after the lost result)", n)
	}

	e.srv.Push(llmtest.Turn{Text: "Carrying on."})
	r := e.run("", "-p", "--output-format", "json", "-c", "go on")
	if r.code != 0 {
		t.Fatalf("continue with room again: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := e.srv.Requests()
	last := reqs[len(reqs)-1]
	checkHistoryRules(t, "continued request", last)
	for _, want := range []string{"read big.log", "Reading the log.", "toolu_1", "go on"} {
		if !strings.Contains(string(last.Body), jsonText(want)) {
			t.Errorf("the continued request lacks %q", want)
		}
	}
}
