package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// transcripts returns every session transcript of the e2e's NOVA_HOME, joined.
func (e *e2e) transcripts() string {
	e.t.Helper()
	paths, _ := filepath.Glob(filepath.Join(e.home, ".nova", "sessions", "*", "transcript.jsonl"))
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			e.t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// TestE2ERetryAfterPartialOutput is the provider failing after the answer
// has begun (an overloaded error inside the stream, its retry-after short):
// nova asks again and succeeds; the user sees only the final answer and
// the transcript never keeps the voided text.
func TestE2ERetryAfterPartialOutput(t *testing.T) {
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			e := newE2E(t,
				llmtest.Turn{Text: "VOIDED half an answer", StreamError: true, RetryAfterMS: "10"},
				llmtest.Turn{Text: "The whole answer."})
			r := e.run("", "-p", "--output-format", format, "question")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			switch format {
			case "text":
				if r.stdout != "The whole answer.\n" {
					t.Errorf("stdout = %q", r.stdout)
				}
				if !strings.Contains(r.stderr, "partial response is discarded") {
					t.Errorf("stderr = %q: the retry is not reported", r.stderr)
				}
			case "json":
				var res struct{ Result string }
				if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Result != "The whole answer." {
					t.Errorf("stdout = %q (%v)", r.stdout, err)
				}
			case "stream-json":
				i := strings.Index(r.stdout, `"discard_partial":true`)
				if i < 0 || strings.Index(r.stdout, "VOIDED") > i || !strings.Contains(r.stdout[i:], "The whole answer.") {
					t.Errorf("stream-json = %s: want the partial deltas, the retry that voids them, the new ones", r.stdout)
				}
			}
			if format != "stream-json" && strings.Contains(r.stdout, "VOIDED") {
				t.Errorf("stdout shows the voided text: %q", r.stdout)
			}
			if tr := e.transcripts(); strings.Contains(tr, "VOIDED") || !strings.Contains(tr, "The whole answer.") {
				t.Errorf("transcript = %s", tr)
			}
			if n := len(e.srv.Requests()); n != 2 {
				t.Errorf("the provider saw %d requests, want 2", n)
			}
		})
	}
}
