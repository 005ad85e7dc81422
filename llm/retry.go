package llm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryInfo describes one retry, for frontends to show.
type RetryInfo struct {
	Attempt     int           `json:"attempt"`      // the attempt about to be made against this kind of failure, 2..MaxAttempts
	MaxAttempts int           `json:"max_attempts"` // attempts this kind of failure allows
	Delay       time.Duration `json:"delay_ns"`     // wait before the attempt
	Kind        ErrorKind     `json:"kind"`
	Reason      string        `json:"reason"` // the error that caused it
	// DiscardPartial says the failed attempt had already streamed output
	// and the next one starts the response over: everything streamed since
	// the request began (or since the last retry) is void and must not be
	// shown, kept or recorded as part of the answer.
	DiscardPartial bool `json:"discard_partial,omitempty"`
}

// String reads like "rate limited, retrying in 4s (2/5)".
func (r RetryInfo) String() string {
	what := "request failed"
	switch r.Kind {
	case ErrRateLimit:
		what = "rate limited"
	case ErrOverloaded:
		what = "provider overloaded"
	case ErrServer:
		what = "server error"
	case ErrConnection:
		what = "connection failed"
	case ErrTimeout:
		what = "timed out"
	case ErrStream:
		what = "response broke off"
	}
	s := fmt.Sprintf("%s, retrying in %s (%d/%d)", what, r.Delay.Round(100*time.Millisecond), r.Attempt, r.MaxAttempts)
	if r.DiscardPartial {
		s += "; the partial response is discarded"
	}
	return s
}

// RetryPolicy bounds retries. Each kind of failure (ErrorKind) has its own
// budget: a request that meets a rate limit, then an overload, then a
// server error is retried for each as if it were the first.
type RetryPolicy struct {
	MaxAttempts int // attempts against one kind of failure, including the first; <=1 means no retry
	// KindAttempts lowers MaxAttempts for some kinds of failure: a refused
	// connection or a silent server rarely recovers in seconds, and the
	// user should hear about it quickly rather than after minutes.
	KindAttempts map[ErrorKind]int
	// RestartAttempts lowers MaxAttempts for a failure after output had
	// started, which is retried only through StreamRestartable; <=1 means
	// such a failure is never retried.
	RestartAttempts int
	BaseDelay       time.Duration // first backoff
	MaxDelay        time.Duration // cap on any one wait, including a server's retry-after
	// Sleep waits between attempts; nil means a real, cancellable wait.
	Sleep SleepFunc
}

// DefaultRetryPolicy is what nova uses unless configured otherwise.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts:     5,
		KindAttempts:    map[ErrorKind]int{ErrConnection: 3, ErrTimeout: 1},
		RestartAttempts: 3,
		BaseDelay:       time.Second,
		MaxDelay:        60 * time.Second,
	}
}

// WithRetry wraps c so that failures before any output are retried with
// exponential backoff and jitter, honouring the server's retry-after. Each
// retry is announced as an EventRetry through emit. A failure after output
// has started is returned as is, since replaying it would duplicate output,
// unless the stream was started with StreamRestartable.
func WithRetry(c Client, p RetryPolicy) Client {
	sleep := p.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	return &retryClient{c: c, p: p, sleep: sleep}
}

type retryClient struct {
	c     Client
	p     RetryPolicy
	sleep SleepFunc
}

func (r *retryClient) Stream(ctx context.Context, req Request, emit func(StreamEvent)) error {
	return r.stream(ctx, req, emit, nil)
}

// StreamRestartable is c.Stream, except that when c was made by WithRetry
// a failure after output has started is retried too, if restartable
// reports true once the attempt has failed: the caller can still take back
// everything it was sent (a caller that has acted on the output, say run a
// tool it asked for, cannot). Such a failure is retried when another
// attempt may cure it (a broken stream, or any kind WithRetry retries), up
// to the policy's RestartAttempts; its retry event has DiscardPartial set,
// and the events before it belong to the voided attempt.
func StreamRestartable(ctx context.Context, c Client, req Request, emit func(StreamEvent), restartable func() bool) error {
	if r, ok := c.(*retryClient); ok {
		return r.stream(ctx, req, emit, restartable)
	}
	return c.Stream(ctx, req, emit)
}

func (r *retryClient) stream(ctx context.Context, req Request, emit func(StreamEvent), restartable func() bool) error {
	// Each kind of failure has a budget of its own: a rate limit, then an
	// overload, then a 500, then a reset connection are four different
	// troubles, each with its own chance of passing, not four strikes of
	// one.
	failures := map[ErrorKind]int{}
	restarts := 0
	for {
		started := false
		err := r.c.Stream(ctx, req, func(ev StreamEvent) {
			started = true
			emit(ev)
		})
		if err == nil || ctx.Err() != nil {
			return err
		}
		ae, ok := AsAPIError(err)
		if !ok {
			return err
		}
		failures[ae.Kind]++
		n := failures[ae.Kind]
		if started {
			restarts++
			n = max(n, restarts)
		}
		limit := r.limit(ae, started)
		if n >= limit || (started && (restartable == nil || !restartable())) {
			return err
		}
		delay := r.backoff(n, ae.RetryAfter)
		emit(StreamEvent{Type: EventRetry, Retry: &RetryInfo{
			Attempt: n + 1, MaxAttempts: limit, Delay: delay, Kind: ae.Kind, Reason: ae.Error(),
			DiscardPartial: started,
		}})
		if err := r.sleep(ctx, delay); err != nil {
			return err
		}
	}
}

// limit is how many attempts a failure like ae allows, counting the
// failures of its kind; 1 means it is not retried. After output, a broken
// stream is worth another attempt too: the break, not the request, was at
// fault; such restarts share RestartAttempts, whatever their kind.
func (r *retryClient) limit(ae *APIError, started bool) int {
	if !ae.Retryable() && !(started && ae.Kind == ErrStream) {
		return 1
	}
	limit := r.p.MaxAttempts
	if n, ok := r.p.KindAttempts[ae.Kind]; ok && n < limit {
		limit = n
	}
	if started {
		limit = min(limit, r.p.RestartAttempts)
	}
	return limit
}

// backoff returns the wait before the next attempt: the server's
// retry-after when given, otherwise base*2^(attempt-1) with full jitter in
// its upper half, capped at MaxDelay.
func (r *retryClient) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, r.p.MaxDelay)
	}
	d := r.p.BaseDelay << (attempt - 1)
	if d <= 0 || d > r.p.MaxDelay {
		d = r.p.MaxDelay
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
