package anthropic

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// TestCutBeforeContentRetried is the stream that breaks after message_start
// (and a ping) but before any content: nothing reached the caller, so it
// is retried like a failed connection.
func TestCutBeforeContentRetried(t *testing.T) {
	for _, cut := range []int{1, 2, 3} { // after message_start, after ping, after the text block opened
		srv := llmtest.New(llmtest.Turn{Text: "never seen", CutAfter: cut}, llmtest.Turn{Text: "recovered"})
		var delays []time.Duration
		evs, err := run(t.Context(), retrying(newTestClient(srv), &delays), simpleRequest())
		srv.Close()
		if err != nil {
			t.Fatalf("cut after %d events: %v", cut, err)
		}
		if got := joinText(evs, llm.EventTextDelta); got != "recovered" {
			t.Errorf("cut after %d events: text = %q", cut, got)
		}
		retries := ofType(evs, llm.EventRetry)
		if len(retries) != 1 || retries[0].Retry.Kind != llm.ErrConnection || retries[0].Retry.DiscardPartial {
			t.Errorf("cut after %d events: retries = %+v, want one connection retry with nothing to discard", cut, retries)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("cut after %d events: %d requests, want 2", cut, n)
		}
	}
}

func TestRestartAfterOutput(t *testing.T) {
	tests := []struct {
		name      string
		first     llmtest.Turn
		kind      llm.ErrorKind
		wantDelay time.Duration // 0: any backoff
	}{
		{"cut mid-text", llmtest.Turn{Text: "the first half of an answer that", CutAfterText: 2}, llm.ErrStream, 0},
		{"overloaded mid-stream, retry-after honoured", llmtest.Turn{Text: "some output", StreamError: true, RetryAfterMS: "1500"}, llm.ErrOverloaded, 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(tt.first, llmtest.Turn{Text: "the whole answer"})
			defer srv.Close()
			var delays []time.Duration
			var evs []llm.StreamEvent
			err := llm.StreamRestartable(t.Context(), retrying(newTestClient(srv), &delays), simpleRequest(),
				func(ev llm.StreamEvent) { evs = append(evs, ev) }, func() bool { return true })
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			var before, after strings.Builder
			var retry *llm.RetryInfo
			for _, ev := range evs {
				switch {
				case ev.Type == llm.EventRetry:
					retry = ev.Retry
				case ev.Type == llm.EventTextDelta && retry == nil:
					before.WriteString(ev.Text)
				case ev.Type == llm.EventTextDelta:
					after.WriteString(ev.Text)
				}
			}
			if retry == nil || !retry.DiscardPartial || retry.Kind != tt.kind {
				t.Fatalf("retry = %+v, want a %s retry discarding the partial output", retry, tt.kind)
			}
			if before.Len() == 0 || after.String() != "the whole answer" {
				t.Errorf("text before the retry %q, after %q; want some, then the whole answer", before.String(), after.String())
			}
			if len(delays) != 1 || (tt.wantDelay != 0 && delays[0] != tt.wantDelay) || delays[0] <= 0 {
				t.Errorf("delays = %v, want one wait (%v)", delays, tt.wantDelay)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !bytes.Equal(reqs[0].Body, reqs[1].Body) {
				t.Errorf("%d requests; the retry must ask for the same response again", len(reqs))
			}
		})
	}
}
