package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// fakeResult is what one attempt of fakeClient does.
type fakeResult struct {
	events []StreamEvent
	err    error
}

// fakeClient plays scripted attempts; the last one repeats.
type fakeClient struct {
	results []fakeResult
	calls   int
}

func (f *fakeClient) Stream(ctx context.Context, req Request, emit func(StreamEvent)) error {
	r := f.results[min(f.calls, len(f.results)-1)]
	f.calls++
	for _, ev := range r.events {
		emit(ev)
	}
	return r.err
}

var okResult = fakeResult{events: []StreamEvent{{Type: EventTextDelta, Text: "ok"}, {Type: EventStop, StopReason: StopEndTurn}}}

// recorder collects events and the waits a policy asked for.
type recorder struct {
	events []StreamEvent
	sleeps []time.Duration
}

func (r *recorder) emit(ev StreamEvent) { r.events = append(r.events, ev) }

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.sleeps = append(r.sleeps, d)
	return ctx.Err()
}

func (r *recorder) retries() []RetryInfo {
	var out []RetryInfo
	for _, ev := range r.events {
		if ev.Type == EventRetry {
			out = append(out, *ev.Retry)
		}
	}
	return out
}

func testPolicy(rec *recorder) RetryPolicy {
	return RetryPolicy{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: time.Minute, Sleep: rec.sleep}
}

func TestWithRetryKinds(t *testing.T) {
	tests := []struct {
		err   error
		retry bool
	}{
		{&APIError{Kind: ErrRateLimit}, true},
		{&APIError{Kind: ErrOverloaded}, true},
		{&APIError{Kind: ErrServer}, true},
		{&APIError{Kind: ErrConnection}, true},
		{&APIError{Kind: ErrTimeout}, true},
		{&APIError{Kind: ErrAuth, Hint: "check ANTHROPIC_API_KEY"}, false},
		{&APIError{Kind: ErrBadRequest}, false},
		{&APIError{Kind: ErrStream}, false},
		{errors.New("not a provider error"), false},
		{wrapped{&APIError{Kind: ErrServer}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			rec := &recorder{}
			fc := &fakeClient{results: []fakeResult{{err: tt.err}, okResult}}
			err := WithRetry(fc, testPolicy(rec)).Stream(t.Context(), Request{}, rec.emit)
			if tt.retry {
				if err != nil || fc.calls != 2 || len(rec.retries()) != 1 {
					t.Errorf("err = %v, calls = %d, retries = %d; want a retry and success", err, fc.calls, len(rec.retries()))
				}
				return
			}
			if err != tt.err || fc.calls != 1 || len(rec.retries()) != 0 || len(rec.sleeps) != 0 {
				t.Errorf("err = %v, calls = %d, retries = %d; want the error as is, no retry", err, fc.calls, len(rec.retries()))
			}
		})
	}
}

// wrapped hides an error one level down, as a provider's fmt.Errorf would.
type wrapped struct{ err error }

func (w wrapped) Error() string { return "wrapped: " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }

func TestWithRetryNotAfterOutput(t *testing.T) {
	rec := &recorder{}
	failure := &APIError{Kind: ErrOverloaded}
	fc := &fakeClient{results: []fakeResult{
		{events: []StreamEvent{{Type: EventTextDelta, Text: "half"}}, err: failure},
		okResult,
	}}
	err := WithRetry(fc, testPolicy(rec)).Stream(t.Context(), Request{}, rec.emit)
	if err != failure || fc.calls != 1 || len(rec.sleeps) != 0 {
		t.Errorf("err = %v, calls = %d, sleeps = %d; a failure after output must not be replayed", err, fc.calls, len(rec.sleeps))
	}
	if len(rec.events) != 1 || rec.events[0].Text != "half" {
		t.Errorf("events = %+v, want the output passed through", rec.events)
	}
}

func TestWithRetryMaxAttempts(t *testing.T) {
	tests := []struct {
		maxAttempts, wantCalls int
	}{
		{0, 1}, {1, 1}, {2, 2}, {5, 5},
	}
	for _, tt := range tests {
		rec := &recorder{}
		failure := &APIError{Kind: ErrServer, StatusCode: 500}
		fc := &fakeClient{results: []fakeResult{{err: failure}}}
		p := testPolicy(rec)
		p.MaxAttempts = tt.maxAttempts
		err := WithRetry(fc, p).Stream(t.Context(), Request{}, rec.emit)
		if err != failure || fc.calls != tt.wantCalls {
			t.Errorf("MaxAttempts %d: err = %v, calls = %d, want the last error after %d calls", tt.maxAttempts, err, fc.calls, tt.wantCalls)
		}
		infos := rec.retries()
		if len(infos) != tt.wantCalls-1 || len(rec.sleeps) != tt.wantCalls-1 {
			t.Errorf("MaxAttempts %d: %d retry events, %d sleeps, want %d", tt.maxAttempts, len(infos), len(rec.sleeps), tt.wantCalls-1)
		}
		for i, info := range infos {
			if info.Attempt != i+2 || info.MaxAttempts != tt.maxAttempts || info.Kind != ErrServer || info.Reason != failure.Error() {
				t.Errorf("MaxAttempts %d: retry %d = %+v", tt.maxAttempts, i, info)
			}
		}
	}
}

func TestWithRetryDelays(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter time.Duration
		maxDelay   time.Duration
		lo, hi     []time.Duration // bounds of each wait, inclusive
	}{
		{
			name:     "backoff doubles with jitter in its upper half",
			maxDelay: time.Hour,
			lo:       []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second},
			hi:       []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second},
		},
		{
			name:     "backoff capped at MaxDelay",
			maxDelay: 3 * time.Second,
			lo:       []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 1500 * time.Millisecond},
			hi:       []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second},
		},
		{
			name:       "retry-after honoured exactly",
			retryAfter: 7 * time.Second, maxDelay: time.Minute,
			lo: []time.Duration{7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second},
			hi: []time.Duration{7 * time.Second, 7 * time.Second, 7 * time.Second, 7 * time.Second},
		},
		{
			name:       "retry-after capped at MaxDelay",
			retryAfter: time.Hour, maxDelay: 30 * time.Second,
			lo: []time.Duration{30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second},
			hi: []time.Duration{30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			fc := &fakeClient{results: []fakeResult{{err: &APIError{Kind: ErrRateLimit, RetryAfter: tt.retryAfter}}}}
			p := testPolicy(rec)
			p.MaxDelay = tt.maxDelay
			_ = WithRetry(fc, p).Stream(t.Context(), Request{}, rec.emit)
			if len(rec.sleeps) != len(tt.lo) {
				t.Fatalf("got %d waits, want %d", len(rec.sleeps), len(tt.lo))
			}
			for i, d := range rec.sleeps {
				if d < tt.lo[i] || d > tt.hi[i] {
					t.Errorf("wait %d = %s, want within [%s, %s]", i+1, d, tt.lo[i], tt.hi[i])
				}
				if got := rec.retries()[i].Delay; got != d {
					t.Errorf("retry %d announced %s, slept %s", i+1, got, d)
				}
			}
		})
	}
}

func TestWithRetryCancelDuringWait(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fc := &fakeClient{results: []fakeResult{{err: &APIError{Kind: ErrOverloaded}}, okResult}}
	// The real wait, an hour long: only cancellation can end it.
	p := RetryPolicy{MaxAttempts: 3, BaseDelay: time.Hour, MaxDelay: time.Hour}
	announced := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- WithRetry(fc, p).Stream(ctx, Request{}, func(ev StreamEvent) {
			if ev.Type == EventRetry {
				close(announced)
			}
		})
	}()
	<-announced
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if fc.calls != 1 {
			t.Errorf("calls = %d, want no attempt after cancel", fc.calls)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end the wait")
	}
}

func TestWithRetryCancelledContextNotRetried(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rec := &recorder{}
	fc := &fakeClient{results: []fakeResult{{err: &APIError{Kind: ErrConnection, Err: context.Canceled}}}}
	err := WithRetry(fc, testPolicy(rec)).Stream(ctx, Request{}, rec.emit)
	if err == nil || fc.calls != 1 || len(rec.sleeps) != 0 {
		t.Errorf("err = %v, calls = %d, sleeps = %d; want no retry once ctx is done", err, fc.calls, len(rec.sleeps))
	}
}

func TestRetryInfoString(t *testing.T) {
	tests := []struct {
		info RetryInfo
		want string
	}{
		{RetryInfo{Attempt: 2, MaxAttempts: 5, Delay: 2 * time.Second, Kind: ErrRateLimit}, "rate limited, retrying in 2s (2/5)"},
		{RetryInfo{Attempt: 3, MaxAttempts: 5, Delay: 1530 * time.Millisecond, Kind: ErrOverloaded}, "provider overloaded, retrying in 1.5s (3/5)"},
		{RetryInfo{Attempt: 2, MaxAttempts: 4, Delay: time.Minute, Kind: ErrServer}, "server error, retrying in 1m0s (2/4)"},
		{RetryInfo{Attempt: 2, MaxAttempts: 2, Delay: 800 * time.Millisecond, Kind: ErrConnection}, "connection failed, retrying in 800ms (2/2)"},
		{RetryInfo{Attempt: 2, MaxAttempts: 2, Delay: time.Second, Kind: ErrTimeout}, "timed out, retrying in 1s (2/2)"},
	}
	for _, tt := range tests {
		if got := tt.info.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestDefaultPolicyGivesUpQuicklyOnDeadProviders(t *testing.T) {
	for _, tc := range []struct {
		kind     ErrorKind
		attempts int
	}{{ErrConnection, 3}, {ErrTimeout, 1}, {ErrRateLimit, 5}, {ErrOverloaded, 5}} {
		calls := 0
		fail := clientFunc(func(ctx context.Context, req Request, emit func(StreamEvent)) error {
			calls++
			return &APIError{Kind: tc.kind}
		})
		p := DefaultRetryPolicy()
		p.Sleep = func(context.Context, time.Duration) error { return nil }
		var retries []RetryInfo
		_ = WithRetry(fail, p).Stream(context.Background(), Request{}, func(ev StreamEvent) {
			if ev.Retry != nil {
				retries = append(retries, *ev.Retry)
			}
		})
		if calls != tc.attempts {
			t.Errorf("%s: %d attempts, want %d", tc.kind, calls, tc.attempts)
		}
		if len(retries) > 0 && retries[0].MaxAttempts != tc.attempts {
			t.Errorf("%s: retry says %d attempts, want %d", tc.kind, retries[0].MaxAttempts, tc.attempts)
		}
	}
}

// clientFunc adapts a function to Client.
type clientFunc func(ctx context.Context, req Request, emit func(StreamEvent)) error

func (f clientFunc) Stream(ctx context.Context, req Request, emit func(StreamEvent)) error {
	return f(ctx, req, emit)
}

// TestWithRetryBudgetPerKind: under the default policy a rate limit, an
// overload, a server error and a reset connection in a row are each
// retried on a budget of their own, and the request succeeds; one kind
// alone still runs out of its budget.
func TestWithRetryBudgetPerKind(t *testing.T) {
	rec := &recorder{}
	p := DefaultRetryPolicy()
	p.Sleep = rec.sleep
	fc := &fakeClient{results: []fakeResult{
		{err: &APIError{Kind: ErrRateLimit}}, {err: &APIError{Kind: ErrOverloaded}},
		{err: &APIError{Kind: ErrServer}}, {err: &APIError{Kind: ErrConnection}},
		{err: &APIError{Kind: ErrConnection}}, okResult,
	}}
	if err := WithRetry(fc, p).Stream(t.Context(), Request{}, rec.emit); err != nil || fc.calls != 6 {
		t.Fatalf("err = %v after %d calls, want success after 6", err, fc.calls)
	}
	var got []string
	for _, r := range rec.retries() {
		got = append(got, fmt.Sprintf("%s %d/%d", r.Kind, r.Attempt, r.MaxAttempts))
	}
	want := []string{"rate_limit 2/5", "overloaded 2/5", "server 2/5", "connection 2/3", "connection 3/3"}
	if !slices.Equal(got, want) {
		t.Errorf("retries %v, want %v", got, want)
	}

	// Control: one kind still has a budget that ends.
	rec = &recorder{}
	p.Sleep = rec.sleep
	fc = &fakeClient{results: []fakeResult{{err: &APIError{Kind: ErrConnection}}}}
	if err := WithRetry(fc, p).Stream(t.Context(), Request{}, rec.emit); err == nil || fc.calls != 3 {
		t.Errorf("err = %v after %d calls, want the failure after 3", err, fc.calls)
	}
}
