package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
)

// The instruction file's marker before and after the session rewrites it.
const (
	markerOne = "NOVA-MARKER-ONE"
	markerTwo = "NOVA-MARKER-TWO"
)

// compactionRun is a long print-mode session that compacted twice.
type compactionRun struct {
	e  *e2e
	id string
	// reqs are the provider's requests; summaries are the indices of the
	// summary requests among them.
	reqs      []llmtest.Request
	summaries []int
}

// Request indices of the scripted session: two main turns, a summary, two
// main turns, a summary, the last main turn.
var (
	wantSummaries  = []int{2, 5}
	firstAfterEach = []int{3, 6}
)

func summaryText(n int) string {
	return fmt.Sprintf("## Goal\nSummarise the big files (summary %d).\n## Decisions\nRead them in order.\n## Files touched\nbig*.txt, read.\n"+
		"## Current state\nHalfway.\n## Next steps\nRead the rest.\n## Open questions\nNone.", n)
}

// bigFile is about 3,000 characters of distinct lines.
func bigFile(name string) string {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "%s line %02d: the quick brown fox jumps over the lazy dog again.\n", name, i)
	}
	return b.String()
}

func readCall(id, file string) []llmtest.ToolCall {
	return []llmtest.ToolCall{{ID: id, Name: "Read", Input: jsonInput(map[string]any{"file_path": file})}}
}

// runCompaction runs the scripted session against a model with a 30,000
// token window (a compaction limit of 20,808; nova's own system prompt and
// tools take about 7,500 of it): the token counts the fake provider reports
// cross the limit before the third and the sixth request.
func runCompaction(t *testing.T) *compactionRun {
	t.Helper()
	long := strings.Repeat("Working through the files one by one and noting what each holds. ", 18)
	e := newE2E(t,
		llmtest.Turn{Text: long, ToolCalls: readCall("toolu_1", "big1.txt"), InputTokens: 9000, OutputTokens: 300},
		llmtest.Turn{Text: long, ToolCalls: readCall("toolu_2", "big2.txt"), InputTokens: 20000, OutputTokens: 300},
		llmtest.Turn{Text: summaryText(1), InputTokens: 3000, OutputTokens: 100},
		llmtest.Turn{Text: "Updating the notes.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_3", Name: "Bash", Input: jsonInput(map[string]any{
			"command": "printf 'Always say NOVA-MARKER-%s.\\n' TWO > NOVACODE.md && cat big3.txt"})}}, InputTokens: 12000, OutputTokens: 200},
		llmtest.Turn{Text: long, ToolCalls: readCall("toolu_4", "big4.txt"), InputTokens: 20000, OutputTokens: 300},
		llmtest.Turn{Text: summaryText(2), InputTokens: 3000, OutputTokens: 100},
		llmtest.Turn{Text: "All four files are read.", InputTokens: 15000, OutputTokens: 50},
	)
	e.env = e.baseEnv()
	novaHome := filepath.Join(e.home, ".nova")
	cfg := map[string]any{"providers": []any{map[string]any{
		"key": "anthropic", "type": "anthropic", "base_url": e.srv.URL, "api_key": "test-key",
		"models": []any{map[string]any{"model": "small", "context_window": 30000, "max_output": 1000}},
	}}}
	if err := os.MkdirAll(novaHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(novaHome, "config.json"), []byte(jsonInput(cfg)), 0o600); err != nil {
		t.Fatal(err)
	}
	e.write("NOVACODE.md", "Always say "+markerOne+".\n")
	for i := 1; i <= 4; i++ {
		e.write(fmt.Sprintf("big%d.txt", i), bigFile(fmt.Sprintf("big%d", i)))
	}

	r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash", "summarise big1.txt to big4.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	c := &compactionRun{e: e, id: resultSessionID(t, r), reqs: e.srv.Requests()}
	if len(c.reqs) != 7 {
		t.Fatalf("provider saw %d requests, want 7 (5 turns, 2 summaries)\nstderr %s", len(c.reqs), r.stderr)
	}
	for i, req := range c.reqs {
		if _, ok := req.JSON()["tools"]; !ok {
			c.summaries = append(c.summaries, i)
		}
	}
	if fmt.Sprint(c.summaries) != fmt.Sprint(wantSummaries) {
		t.Fatalf("requests without tools (summaries) = %v, want %v", c.summaries, wantSummaries)
	}
	return c
}

// lastUserText is the text of the last message of a request.
func lastUserText(t *testing.T, r llmtest.Request) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) == 0 {
		t.Fatalf("request body: %v", err)
	}
	last := body.Messages[len(body.Messages)-1]
	if last.Role != "user" {
		t.Errorf("last message is %s, want user", last.Role)
	}
	var s strings.Builder
	for _, c := range last.Content {
		s.WriteString(c.Text)
	}
	return s.String()
}

func TestCompactionLongSession(t *testing.T) {
	c := runCompaction(t)

	// (a) The summary requests ask for the structured summary, with no tools.
	for _, i := range c.summaries {
		text := lastUserText(t, c.reqs[i])
		for _, section := range []string{"## Goal", "## Decisions", "## Files touched", "## Current state", "## Next steps", "## Open questions"} {
			if !strings.Contains(text, section) {
				t.Errorf("summary request %d does not ask for %q", i, section)
			}
		}
	}

	// (b) The transcript holds both boundaries, and everything before them.
	data, err := os.ReadFile(filepath.Join(c.e.home, ".nova", "sessions", c.id, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var compactions []session.Compaction
	messages := 0
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var rec session.Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("transcript line: %v", err)
		}
		switch rec.Type {
		case session.RecordCompaction:
			compactions = append(compactions, *rec.Compaction)
		case session.RecordMessage:
			messages++
		}
	}
	if len(compactions) != 2 {
		t.Fatalf("transcript has %d compaction records, want 2", len(compactions))
	}
	for n, cp := range compactions {
		if !strings.Contains(cp.Summary, summaryText(n+1)) || len(cp.Kept) == 0 {
			t.Errorf("compaction %d: summary %.200q, %d kept; want the model's summary and the recent messages", n+1, cp.Summary, len(cp.Kept))
		}
		// The rebuilt context is kept apart, so a history shown to a
		// person can leave it out.
		if !strings.HasPrefix(cp.Context, "<environment>") || strings.Contains(cp.Summary, "Working directory") {
			t.Errorf("compaction %d: context %.80q, summary %.200q; want the context apart from the summary", n+1, cp.Context, cp.Summary)
		}
	}
	if show := c.e.run("", "sessions", "show", c.id); show.code != 0 || strings.Contains(show.stdout, "Working directory") || !strings.Contains(show.stdout, "(summary 2)") {
		t.Errorf("sessions show after compactions: exit %d, want the summaries without nova's context:\n%s", show.code, show.stdout)
	}
	if compactions[0].Before >= compactions[1].Before || messages != 10 {
		t.Errorf("boundaries after %d and %d messages, %d messages in all; want the full history kept (10)",
			compactions[0].Before, compactions[1].Before, messages)
	}

	// (c) Instruction files are read again after each compaction: the first
	// request after the second one carries the rewritten file, not the old.
	for n, i := range firstAfterEach {
		body := string(c.reqs[i].Body)
		want, old := markerOne, markerTwo
		if n == 1 {
			want, old = markerTwo, markerOne
		}
		if !strings.Contains(body, "NOVACODE.md:") || !strings.Contains(body, want) {
			t.Errorf("request %d, the first after compaction %d, lacks the instruction file with %s", i, n+1, want)
		}
		if strings.Contains(body, old) {
			t.Errorf("request %d, the first after compaction %d, still carries %s", i, n+1, old)
		}
	}

	// (e) Resuming after the second compaction sends what the live session
	// would have sent: its last request, its answer, the new prompt.
	c.e.srv.Push(llmtest.Turn{Text: "Resumed.", InputTokens: 1600, OutputTokens: 10})
	r := c.e.run("", "-p", "--resume", c.id, "one more thing")
	if r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	reqs := c.e.srv.Requests()
	if len(reqs) != 8 {
		t.Fatalf("provider saw %d requests after resuming, want 8 (a compaction on resume?)", len(reqs))
	}
	checkPrefix(t, "resumed request", reqs[6], reqs[7], 2)
	sameField(t, "resumed request", "system", reqs[6], reqs[7])
	sameField(t, "resumed request", "tools", reqs[6], reqs[7])
	if !strings.Contains(lastUserText(t, reqs[7]), "one more thing") {
		t.Errorf("the resumed request does not end with the new prompt")
	}
}

// TestPrefixStableUntilCompaction checks prompt-cache friendliness: each
// request repeats the previous one byte for byte and adds the new messages,
// until a compaction replaces the history.
func TestPrefixStableUntilCompaction(t *testing.T) {
	c := runCompaction(t)
	var main []int
	for i := range c.reqs {
		if !slices.Contains(c.summaries, i) {
			main = append(main, i)
		}
	}
	for k := 1; k < len(main); k++ {
		prev, next := main[k-1], main[k]
		what := fmt.Sprintf("request %d after %d", next, prev)
		sameField(t, what, "system", c.reqs[prev], c.reqs[next])
		sameField(t, what, "tools", c.reqs[prev], c.reqs[next])
		if next == prev+1 {
			// An assistant turn and its tool results were added.
			checkPrefix(t, what, c.reqs[prev], c.reqs[next], 2)
			continue
		}
		// A compaction came between: the history restarts with the summary
		// (built from the summary request's answer) and the recent turn kept.
		n := slices.Index(firstAfterEach, next) + 1
		msgs := wireMessages(t, c.reqs[next])
		if n == 0 || len(msgs) != 3 || !strings.Contains(msgs[0], jsonText(summaryText(n))) {
			t.Errorf("%s: %d messages, first %.200s; want the summary and the kept turn", what, len(msgs), msgs[0])
		}
		// The kept turn is the answer to the previous request and its result.
		call := map[int]string{3: "toolu_2", 6: "toolu_4"}[next]
		if len(msgs) == 3 && (!strings.Contains(msgs[1], `"id":"`+call+`"`) || !strings.Contains(msgs[2], `"tool_use_id":"`+call+`"`)) {
			t.Errorf("%s: kept %.200s / %.200s; want the call %s and its result", what, msgs[1], msgs[2], call)
		}
	}
}
