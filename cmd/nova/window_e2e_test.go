package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// smallWindow configures a model with a context window of window tokens
// and answers of at most maxOut, served by e's fake provider, and makes the
// provider count tokens the way the real one does (its prompt cache model).
func smallWindow(t *testing.T, e *e2e, window, maxOut int) *llmtest.Cache {
	t.Helper()
	e.env = e.baseEnv()
	novaHome := filepath.Join(e.home, ".nova")
	cfg := map[string]any{"providers": []any{map[string]any{
		"key": "anthropic", "type": "anthropic", "base_url": e.srv.URL, "api_key": "test-key",
		"models": []any{map[string]any{"model": "small", "context_window": window, "max_output": maxOut}},
	}}}
	if err := os.MkdirAll(novaHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(novaHome, "config.json"), []byte(jsonInput(cfg)), 0o600); err != nil {
		t.Fatal(err)
	}
	c := llmtest.NewCache()
	e.srv.UseCache(c)
	return c
}

// numberedLines is a file of n distinct lines of about 70 characters.
func numberedLines(name string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s %04d: the quick brown fox jumps over the lazy dog, again.\n", name, i)
	}
	return b.String()
}

// TestOverTheWindowStopsWithAClearError is the small-window session whose
// history cannot fit after compaction: a read of about 12,000 tokens with
// nova's system prompt and tools (about 7,000) in a 20,000-token window.
// nova must stop before sending anything over the window, with exit code 1
// and a message that says what is too big and what to do, instead of
// summarising and sending the request anyway.
func TestOverTheWindowStopsWithAClearError(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{Text: "Reading the notes first.", ToolCalls: readCall("toolu_1", "notes.txt")},
		llmtest.Turn{Text: "Now the log.", ToolCalls: readCall("toolu_2", "big.log")},
		// What an old nova went on to ask for: a summary, then the turn.
		llmtest.Turn{Text: summaryText(1)},
		llmtest.Turn{Text: "The log ends normally."},
	)
	cache := smallWindow(t, e, 20_000, 2_000)
	e.write("notes.txt", numberedLines("note", 20))
	e.write("big.log", numberedLines("log", 700))

	r := e.run("", "-p", "what does big.log say?")
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Errorf("provider saw %d requests, want 2: nothing after the read that does not fit", len(reqs))
	}
	// No request it sent was over the window with its max_tokens.
	for i, u := range cache.Usage() {
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		_ = json.Unmarshal(reqs[i].Body, &body)
		if u.Total()+body.MaxTokens > 20_000 {
			t.Errorf("request %d: %d input tokens + max_tokens %d, over the 20,000 window", i+1, u.Total(), body.MaxTokens)
		}
	}
	if r.code != 1 {
		t.Errorf("exit code %d, want 1\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"does not fit in the model's context window",
		"the result of Read (toolu_2)",
		"the window holds 20,000",
		"It was not sent",
		"/clear",
		"bigger context window",
		"smaller read",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "The log ends normally") {
		t.Errorf("stdout has the answer to a request that should not have been sent: %s", r.stdout)
	}
}

// TestCompactionFigureCountsSystemAndTools checks the figure print mode
// reports after a compaction: it includes the system prompt and the tools
// (about 7,000 tokens), not only the messages.
func TestCompactionFigureCountsSystemAndTools(t *testing.T) {
	long := strings.Repeat("Working through the files one by one and noting what each holds. ", 18)
	e := newE2E(t,
		llmtest.Turn{Text: long, ToolCalls: readCall("toolu_1", "a.txt")},
		llmtest.Turn{Text: long, ToolCalls: readCall("toolu_2", "b.txt")},
		llmtest.Turn{Text: long, ToolCalls: readCall("toolu_3", "c.txt")},
		llmtest.Turn{Text: summaryText(1)},
		llmtest.Turn{Text: "All three are read."},
	)
	cache := smallWindow(t, e, 26_000, 1_000)
	for _, f := range []string{"a", "b", "c"} {
		e.write(f+".txt", numberedLines(f, 200))
	}
	r := e.run("", "-p", "read a.txt, b.txt and c.txt")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr %s", r.code, r.stderr)
	}
	var before, after int
	for line := range strings.SplitSeq(r.stderr, "\n") {
		if _, err := fmt.Sscanf(line, "nova: compacted history (%d → %d tokens)", &before, &after); err == nil {
			break
		}
	}
	if after == 0 {
		t.Fatalf("no compaction reported\nstderr: %s", r.stderr)
	}
	// The provider counted the request after the compaction: the figure
	// was an estimate of it, system prompt and tools included.
	u := cache.Usage()
	if len(u) != 5 {
		t.Fatalf("provider saw %d requests, want 5 (3 turns, a summary, a turn)", len(u))
	}
	sent := u[4].Total()
	if after < sent*3/4 || after > sent*5/4 {
		t.Errorf("after compaction nova reported %d tokens; the next request was %d (the first, system and tools only, %d)",
			after, sent, u[0].Total())
	}
}
