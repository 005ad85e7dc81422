package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools"
)

// What a turn does after its tools ran, before the results go back to the
// model (agent/turn.go): instruction discovery, the batch budget, and the
// decision and usage records of the transcript. Each is checked where a
// user meets it: the next request the provider receives, the files on disk
// and what nova sessions prints from them.

// numbered returns a file of n lines of width characters, each naming its
// number, so a test can tell whether the last line reached the model.
func numbered(n, width int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("row %d ", i)
		b.WriteString(line + strings.Repeat("x", width-len(line)) + "\n")
	}
	return b.String()
}

// TestBatchBudgetSpillsLargest reads four files at once. Each result is
// under the spill threshold, so the pipeline keeps every one whole, but
// together they are over the batch budget: the largest goes to disk and
// the model gets a pointer to it, the others reach it whole.
func TestBatchBudgetSpillsLargest(t *testing.T) {
	sizes := map[string]int{"a.txt": 420, "b.txt": 440, "c.txt": 460, "d.txt": 480} // lines of 90 characters
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "read_a", Name: "Read", Input: jsonInput(map[string]any{"file_path": "a.txt"})},
			{ID: "read_b", Name: "Read", Input: jsonInput(map[string]any{"file_path": "b.txt"})},
			{ID: "read_c", Name: "Read", Input: jsonInput(map[string]any{"file_path": "c.txt"})},
			{ID: "read_d", Name: "Read", Input: jsonInput(map[string]any{"file_path": "d.txt"})},
		}},
		llmtest.Turn{Text: "Read them."},
	)
	for name, n := range sizes {
		e.write(name, numbered(n, 90))
	}
	r := e.run("", "-p", "--output-format", "stream-json", "read the four files")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	id := resultSessionID(t, runResult{stdout: lines[len(lines)-1]})
	// What the frontends are shown of each result is what the model got:
	// the tool_result blocks, and nova's nova_tool_result beside them.
	shown := map[string]agent.ToolResult{}
	for _, l := range lines {
		var m struct {
			Type, Subtype string
			ToolUseID     string `json:"tool_use_id"`
			SpillPath     string `json:"spill_path"`
			Message       struct {
				Content []struct {
					Type      string `json:"type"`
					ToolUseID string `json:"tool_use_id"`
					Content   string `json:"content"`
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		switch {
		case m.Type == "system" && m.Subtype == "nova_tool_result":
			r := shown[m.ToolUseID]
			r.SpillPath = m.SpillPath
			shown[m.ToolUseID] = r
		case m.Type == "user":
			for _, c := range m.Message.Content {
				r := shown[c.ToolUseID]
				r.Output = c.Content
				shown[c.ToolUseID] = r
			}
		}
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("provider saw %d requests, want 2", len(reqs))
	}
	got := toolResultsOf(t, reqs[1])
	total := 0
	for _, res := range got {
		total += len(res.Text)
	}
	if total > tools.DefaultBatchBudget {
		t.Errorf("the batch reached the model with %d characters, over the budget of %d", total, tools.DefaultBatchBudget)
	}
	for _, name := range []string{"a", "b", "c"} {
		res := got["read_"+name]
		last := fmt.Sprintf("row %d x", sizes[name+".txt"])
		if res.IsError || !strings.Contains(res.Text, last) || len(res.Text) >= tools.DefaultSpillThreshold {
			t.Errorf("%s.txt: error=%v, %d characters, want it whole under the spill threshold (with %q)", name, res.IsError, len(res.Text), last)
		}
	}

	for id, res := range got {
		if shown[id].Output != res.Text {
			t.Errorf("%s: the tool_result event shows %d characters, the model got %d", id, len(shown[id].Output), len(res.Text))
		}
	}
	if shown["read_d"].SpillPath == "" {
		t.Errorf("the tool_result event of the spilled read_d names no spill file")
	}

	// The largest is the one spilled, to the session's tool-results.
	d := got["read_d"]
	m := regexp.MustCompile(`the full output is in (\S+\.txt)`).FindStringSubmatch(d.Text)
	if m == nil {
		t.Fatalf("d.txt (the largest) is not a spill pointer (%d characters): %.300q", len(d.Text), d.Text)
	}
	if want := filepath.Join(e.home, ".nova", "sessions", id, "tool-results", "read_d.txt"); m[1] != want {
		t.Errorf("spilled to %s, want %s", m[1], want)
	}
	if strings.Contains(d.Text, "row 240 x") {
		t.Errorf("the pointer holds the middle of the file: it is not a preview")
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatalf("spill file: %v", err)
	}
	for _, row := range []string{"row 1 x", "row 240 x", "row 480 x"} {
		if !strings.Contains(string(data), row) {
			t.Errorf("the spill file lacks %q: it is not the whole result", row)
		}
	}
}

// transcriptRecords reads the session's transcript from disk.
func transcriptRecords(t *testing.T, e *e2e, id string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(filepath.Join(e.home, ".nova", "sessions", id, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("transcript line is not JSON: %v", err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// TestTranscriptKeepsDecisionsAndUsage runs a turn of three calls decided
// by three layers, and two turns with known token counts; the transcript
// must keep each decision and each turn's usage, and nova sessions must
// show them: the decisions in show, the totals in show and ls --json.
func TestTranscriptKeepsDecisionsAndUsage(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{
			ToolCalls: []llmtest.ToolCall{
				{ID: "read", Name: "Read", Input: jsonInput(map[string]any{"file_path": "notes.txt"})},
				{ID: "write", Name: "Write", Input: jsonInput(map[string]any{"file_path": "out.txt", "content": "x\n"})},
				{ID: "bash", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch made.txt"})},
			},
			InputTokens: 1200, OutputTokens: 34, CacheReadTokens: 500, CacheWriteTokens: 100,
		},
		llmtest.Turn{Text: "Done.", InputTokens: 1300, OutputTokens: 56, CacheReadTokens: 600},
	)
	e.write("notes.txt", "alpha\n")
	r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash(touch:*)", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := resultSessionID(t, r)
	var res struct {
		Usage map[string]int `json:"usage"`
	}
	_ = json.Unmarshal([]byte(r.stdout), &res)
	// The result counts under Anthropic's names, as Claude Code's does;
	// the transcript keeps nova's.
	wantResult := map[string]int{"input_tokens": 2500, "output_tokens": 90, "cache_read_input_tokens": 1100, "cache_creation_input_tokens": 100}
	if fmt.Sprint(res.Usage) != fmt.Sprint(wantResult) {
		t.Errorf("result usage = %v, want %v", res.Usage, wantResult)
	}
	want := map[string]int{"input_tokens": 2500, "output_tokens": 90, "cache_read_tokens": 1100, "cache_write_tokens": 100}

	type decision struct {
		Behavior, Layer, Reason, Rule string
	}
	decisions := map[string]decision{}
	var usage []struct {
		Turn, Total map[string]int
	}
	for _, rec := range transcriptRecords(t, e, id) {
		var typ string
		_ = json.Unmarshal(rec["type"], &typ)
		switch typ {
		case "decision":
			var d struct {
				CallID   string   `json:"call_id"`
				Tool     string   `json:"tool"`
				Decision decision `json:"decision"`
			}
			if err := json.Unmarshal(rec["decision"], &d); err != nil {
				t.Fatal(err)
			}
			if _, dup := decisions[d.CallID]; dup {
				t.Errorf("two decision records for %s", d.CallID)
			}
			decisions[d.CallID] = d.Decision
		case "usage":
			var u struct {
				Turn, Total map[string]int
			}
			if err := json.Unmarshal(rec["usage"], &u); err != nil {
				t.Fatal(err)
			}
			usage = append(usage, u)
		}
	}
	for id, w := range map[string]decision{
		"read":  {Behavior: "allow", Layer: "mode", Reason: "read-only tool inside the workspace"},
		"write": {Behavior: "deny", Layer: "ask"},
		"bash":  {Behavior: "allow", Layer: "rule", Rule: "Bash(touch:*)"},
	} {
		d, ok := decisions[id]
		switch {
		case !ok:
			t.Errorf("no decision record for %s: %v", id, decisions)
		case d.Behavior != w.Behavior || d.Layer != w.Layer || (w.Rule != "" && d.Rule != w.Rule) || d.Reason == "" || (w.Reason != "" && d.Reason != w.Reason):
			t.Errorf("decision for %s = %+v, want %+v (and a reason)", id, d, w)
		}
	}
	if len(usage) != 2 {
		t.Errorf("%d usage records, want one a turn (2)", len(usage))
	} else {
		if u := usage[0]; u.Turn["input_tokens"] != 1200 || u.Turn["output_tokens"] != 34 || u.Turn["cache_read_tokens"] != 500 || u.Turn["cache_write_tokens"] != 100 {
			t.Errorf("first usage record = %+v", u)
		}
		if fmt.Sprint(usage[1].Total) != fmt.Sprint(want) {
			t.Errorf("last usage record's total = %v, want %v", usage[1].Total, want)
		}
	}

	// What the user reads back.
	show := e.run("", "sessions", "show", id)
	if show.code != 0 {
		t.Fatalf("sessions show: exit %d: %s", show.code, show.stderr)
	}
	for _, line := range []string{
		"tokens: 2500 in, 90 out, 1100 cache read, 100 cache write",
		"> **Permission** for `Read` (`read`): **allow** by mode: read-only tool inside the workspace",
		"> **Permission** for `Write` (`write`): **deny** by ask: " + decisions["write"].Reason,
		"> **Permission** for `Bash` (`bash`): **allow** by rule `Bash(touch:*)`",
	} {
		if !strings.Contains(show.stdout, line) {
			t.Errorf("sessions show lacks %q:\n%s", line, show.stdout)
		}
	}
	ls := e.run("", "sessions", "ls", "--json")
	var metas []struct {
		ID    string         `json:"id"`
		Usage map[string]int `json:"usage"`
	}
	if err := json.Unmarshal([]byte(ls.stdout), &metas); err != nil || len(metas) != 1 || metas[0].ID != id {
		t.Fatalf("sessions ls --json = %s (%v)", ls.stdout, err)
	}
	if fmt.Sprint(metas[0].Usage) != fmt.Sprint(want) {
		t.Errorf("sessions ls --json usage = %v, want %v", metas[0].Usage, want)
	}
}

// TestDiscoveredInstructionsReachTheModel reads files in subdirectories
// that carry their own instruction files. They are not in the context
// message (only the working directory's and its parents' are); the first
// result from each directory brings its file to the model, once.
func TestDiscoveredInstructionsReachTheModel(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "sub1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "sub/one.txt"})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "sub2", Name: "Read", Input: jsonInput(map[string]any{"file_path": "sub/two.txt"})},
			{ID: "api", Name: "Read", Input: jsonInput(map[string]any{"file_path": "pkg/api/handler.go"})},
		}},
		llmtest.Turn{Text: "Read."},
	)
	const rootRule, subRule, apiRule = "Root rule: answer briefly.", "Sub rule: numbers here are hexadecimal.", "API rule: every handler logs its route."
	e.write("NOVACODE.md", rootRule+"\n")
	e.write("sub/NOVACODE.md", subRule+"\n")
	e.write("sub/one.txt", "one\n")
	e.write("sub/two.txt", "two\n")
	e.write("pkg/api/CLAUDE.md", apiRule+"\n")
	e.write("pkg/api/handler.go", "package api\n")
	r := e.run("", "-p", "--output-format", "json", "read them")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider saw %d requests, want 3", len(reqs))
	}
	first := string(reqs[0].Body)
	if !strings.Contains(first, rootRule) || strings.Contains(first, subRule) || strings.Contains(first, apiRule) {
		t.Fatalf("the first request should hold the root's instructions only")
	}
	one := toolResultsOf(t, reqs[1])["sub1"]
	if !strings.HasPrefix(one.Text, "     1\tone") || !strings.Contains(one.Text, "Contents of "+filepath.Join(e.ws, "sub", "NOVACODE.md")+":\n\n"+subRule) {
		t.Errorf("the first Read in sub/ did not bring sub/NOVACODE.md:\n%s", one.Text)
	}
	later := toolResultsOf(t, reqs[2])
	if two := later["sub2"]; strings.Contains(two.Text, subRule) || strings.Contains(two.Text, "<instructions>") {
		t.Errorf("sub/NOVACODE.md came again with the second Read in sub/:\n%s", two.Text)
	}
	if api := later["api"]; !strings.Contains(api.Text, "Contents of "+filepath.Join(e.ws, "pkg", "api", "CLAUDE.md")+":\n\n"+apiRule) {
		t.Errorf("the Read in pkg/api/ did not bring its CLAUDE.md:\n%s", api.Text)
	}
	if n := strings.Count(string(reqs[2].Body), subRule); n != 1 {
		t.Errorf("the last request holds sub/NOVACODE.md %d times, want once (from the first Read)", n)
	}
}
