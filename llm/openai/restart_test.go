package openai

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// TestRestartAfterOutput checks, for both wire protocols, that a response
// that breaks off mid-answer is asked for again when the caller can take
// the partial output back, the retry saying that output is void.
func TestRestartAfterOutput(t *testing.T) {
	faults := []struct {
		name      string
		turn      llmtest.Turn
		wantDelay time.Duration // 0: any backoff
	}{
		{"cut mid-text", llmtest.Turn{Text: "the first half of an answer that", CutAfterText: 2}, 0},
		{"error chunk mid-stream, retry-after honoured", llmtest.Turn{Text: "some output", StreamError: true, RetryAfterMS: "1500"}, 1500 * time.Millisecond},
	}
	forEachAPI(t, func(t *testing.T, a api) {
		for _, f := range faults {
			t.Run(f.name, func(t *testing.T) {
				srv := llmtest.New(f.turn, llmtest.Turn{Text: "the whole answer"})
				defer srv.Close()
				var delays []time.Duration
				p := llm.DefaultRetryPolicy()
				p.Sleep = func(ctx context.Context, d time.Duration) error {
					delays = append(delays, d)
					return nil
				}
				var before, after strings.Builder
				var retry *llm.RetryInfo
				err := llm.StreamRestartable(t.Context(), llm.WithRetry(a.new(config(a, srv.URL)), p), request(), func(ev llm.StreamEvent) {
					switch {
					case ev.Type == llm.EventRetry:
						retry = ev.Retry
					case ev.Type == llm.EventTextDelta && retry == nil:
						before.WriteString(ev.Text)
					case ev.Type == llm.EventTextDelta:
						after.WriteString(ev.Text)
					}
				}, func() bool { return true })
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				if retry == nil || !retry.DiscardPartial || retry.Kind != llm.ErrStream {
					t.Fatalf("retry = %+v, want a stream retry discarding the partial output", retry)
				}
				if before.Len() == 0 || after.String() != "the whole answer" {
					t.Errorf("text before the retry %q, after %q; want some, then the whole answer", before.String(), after.String())
				}
				if len(delays) != 1 || delays[0] <= 0 || (f.wantDelay != 0 && delays[0] != f.wantDelay) {
					t.Errorf("delays = %v, want one wait (%v)", delays, f.wantDelay)
				}
				reqs := srv.Requests()
				if len(reqs) != 2 || !bytes.Equal(reqs[0].Body, reqs[1].Body) {
					t.Errorf("%d requests; the retry must ask for the same response again", len(reqs))
				}
			})
		}
	})
}
