package anthropic

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// retrying wraps c in llm.WithRetry with a sleep that records the waits
// instead of waiting.
func retrying(c llm.Client, delays *[]time.Duration) llm.Client {
	p := llm.DefaultRetryPolicy()
	p.Sleep = func(ctx context.Context, d time.Duration) error {
		*delays = append(*delays, d)
		return ctx.Err()
	}
	return llm.WithRetry(c, p)
}

func TestRetryThroughSDK(t *testing.T) {
	ok := llmtest.Turn{Text: "recovered"}
	tests := []struct {
		name      string
		first     llmtest.Turn
		kind      llm.ErrorKind
		wantDelay time.Duration // exact when the server said how long; else only > 0
		wantText  string        // RetryInfo.String(), when the delay is exact
	}{
		{
			name:  "429 with retry-after seconds",
			first: llmtest.Turn{Status: 429, RetryAfter: "2"},
			kind:  llm.ErrRateLimit, wantDelay: 2 * time.Second, wantText: "rate limited, retrying in 2s (2/5)",
		},
		{
			name:  "429 with retry-after-ms",
			first: llmtest.Turn{Status: 429, RetryAfterMS: "1500", RetryAfter: "2"},
			kind:  llm.ErrRateLimit, wantDelay: 1500 * time.Millisecond, wantText: "rate limited, retrying in 1.5s (2/5)",
		},
		{
			name:  "529 overloaded",
			first: llmtest.Turn{Status: 529},
			kind:  llm.ErrOverloaded,
		},
		{
			name:  "in-stream overloaded before any output",
			first: llmtest.Turn{StreamError: true},
			kind:  llm.ErrOverloaded,
		},
		{
			name:  "500 server error",
			first: llmtest.Turn{Status: 500},
			kind:  llm.ErrServer,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(tt.first, ok)
			defer srv.Close()
			var delays []time.Duration

			evs, err := run(t.Context(), retrying(newTestClient(srv), &delays), simpleRequest())
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if got := joinText(evs, llm.EventTextDelta); got != "recovered" {
				t.Errorf("text = %q", got)
			}
			retries := ofType(evs, llm.EventRetry)
			if len(retries) != 1 || len(delays) != 1 {
				t.Fatalf("retries = %d, sleeps = %d, want 1 each", len(retries), len(delays))
			}
			info := retries[0].Retry
			if info.Kind != tt.kind || info.Attempt != 2 {
				t.Errorf("retry = %+v, want kind %s attempt 2", info, tt.kind)
			}
			if info.Delay != delays[0] {
				t.Errorf("announced %s but slept %s", info.Delay, delays[0])
			}
			if tt.wantDelay != 0 && delays[0] != tt.wantDelay {
				t.Errorf("delay = %s, want the server's %s", delays[0], tt.wantDelay)
			}
			if tt.wantDelay == 0 && delays[0] <= 0 {
				t.Errorf("delay = %s, want a backoff", delays[0])
			}
			if tt.wantText != "" && info.String() != tt.wantText {
				t.Errorf("retry text = %q, want %q", info.String(), tt.wantText)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("server saw %d requests, want 2", n)
			}
		})
	}
}

func TestNoRetry(t *testing.T) {
	tests := []struct {
		name string
		turn llmtest.Turn
		kind llm.ErrorKind
	}{
		{"stream cut after output", llmtest.Turn{Text: "half an answer, then nothing", CutAfter: 5}, llm.ErrStream},
		{"in-stream error after output", llmtest.Turn{Text: "some output", StreamError: true}, llm.ErrOverloaded},
		{"auth", llmtest.Turn{Status: 401}, llm.ErrAuth},
		{"bad request", llmtest.Turn{Status: 400}, llm.ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A second turn is there to be taken if the client wrongly retries.
			srv := llmtest.New(tt.turn, llmtest.Turn{Text: "should not be seen"})
			defer srv.Close()
			var delays []time.Duration

			evs, err := run(t.Context(), retrying(newTestClient(srv), &delays), simpleRequest())
			ae, ok := llm.AsAPIError(err)
			if !ok || ae.Kind != tt.kind {
				t.Fatalf("err = %v, want %s", err, tt.kind)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
			if len(ofType(evs, llm.EventRetry)) != 0 || len(delays) != 0 {
				t.Errorf("retried: %d retry events, %d sleeps", len(ofType(evs, llm.EventRetry)), len(delays))
			}
		})
	}
}

// TestRetryMixedFaults: 429, then 529, then 500, then a TCP reset, then an
// answer: under the default policy the request recovers, each fault
// retried on its own budget.
func TestRetryMixedFaults(t *testing.T) {
	srv := llmtest.New(
		llmtest.Turn{Status: 429, ErrorType: "rate_limit_error"},
		llmtest.Turn{Status: 529, ErrorType: "overloaded_error"},
		llmtest.Turn{Status: 500},
		llmtest.Turn{Reset: true},
		llmtest.Turn{Text: "recovered"},
	)
	defer srv.Close()
	var delays []time.Duration
	evs, err := run(t.Context(), retrying(newTestClient(srv), &delays), simpleRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if got := joinText(evs, llm.EventTextDelta); got != "recovered" {
		t.Errorf("text = %q", got)
	}
	var kinds []llm.ErrorKind
	for _, ev := range ofType(evs, llm.EventRetry) {
		kinds = append(kinds, ev.Retry.Kind)
	}
	if want := []llm.ErrorKind{llm.ErrRateLimit, llm.ErrOverloaded, llm.ErrServer, llm.ErrConnection}; !slices.Equal(kinds, want) {
		t.Errorf("retries %v, want %v", kinds, want)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
}
