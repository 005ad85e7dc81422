package llm

import (
	"context"
	"strings"
	"testing"
	"time"
)

// restartPolicy is testPolicy allowing three attempts after output.
func restartPolicy(rec *recorder) RetryPolicy {
	p := testPolicy(rec)
	p.RestartAttempts = 3
	return p
}

// half is an attempt that streamed some text and then failed with err.
func half(text string, err error) fakeResult {
	return fakeResult{events: []StreamEvent{{Type: EventTextDelta, Text: text}}, err: err}
}

func always() bool { return true }

func TestStreamRestartable(t *testing.T) {
	broken := &APIError{Kind: ErrStream, Message: "unexpected EOF"}
	tests := []struct {
		name        string
		results     []fakeResult
		restartable func() bool
		wantErr     ErrorKind // "": success with "ok"
		wantCalls   int
	}{
		{"broken stream restarted", []fakeResult{half("half", broken), okResult}, always, "", 2},
		{"in-stream overload restarted", []fakeResult{half("half", &APIError{Kind: ErrOverloaded}), okResult}, always, "", 2},
		{"not when the caller cannot take output back", []fakeResult{half("half", broken), okResult}, func() bool { return false }, ErrStream, 1},
		{"not without a predicate", []fakeResult{half("half", broken), okResult}, nil, ErrStream, 1},
		{"not a failure no attempt cures", []fakeResult{half("half", &APIError{Kind: ErrBadRequest}), okResult}, always, ErrBadRequest, 1},
		{"bounded by RestartAttempts", []fakeResult{half("a", broken), half("b", broken), half("c", broken), okResult}, always, ErrStream, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			fc := &fakeClient{results: tt.results}
			err := StreamRestartable(t.Context(), WithRetry(fc, restartPolicy(rec)), Request{}, rec.emit, tt.restartable)
			if fc.calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", fc.calls, tt.wantCalls)
			}
			if ae, _ := AsAPIError(err); (ae == nil) != (tt.wantErr == "") || (ae != nil && ae.Kind != tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			retries := rec.retries()
			if len(retries) != tt.wantCalls-1 || len(rec.sleeps) != tt.wantCalls-1 {
				t.Fatalf("%d retry events, %d sleeps, want %d", len(retries), len(rec.sleeps), tt.wantCalls-1)
			}
			for i, info := range retries {
				if !info.DiscardPartial || info.Attempt != i+2 || info.MaxAttempts != 3 {
					t.Errorf("retry %d = %+v, want attempt %d of 3 discarding the partial output", i, info, i+2)
				}
				if !strings.Contains(info.String(), "partial response is discarded") {
					t.Errorf("retry text %q does not say the partial output is void", info.String())
				}
			}
			if tt.wantErr == "" {
				// What a consumer must show is what follows the last retry.
				var after []string
				for _, ev := range rec.events {
					if ev.Type == EventRetry {
						after = nil
					} else if ev.Type == EventTextDelta {
						after = append(after, ev.Text)
					}
				}
				if got := strings.Join(after, ""); got != "ok" {
					t.Errorf("text after the last retry = %q, want ok", got)
				}
			}
		})
	}
}

// TestStreamRestartableAsksAfterFailure checks that the caller is asked
// once the attempt has failed, not before: what it did with the output
// meanwhile (say, start a tool) decides.
func TestStreamRestartableAsksAfterFailure(t *testing.T) {
	rec := &recorder{}
	acted := false
	fc := &fakeClient{results: []fakeResult{half("half", &APIError{Kind: ErrStream}), okResult}}
	emit := func(ev StreamEvent) {
		rec.emit(ev)
		acted = true
	}
	_ = StreamRestartable(t.Context(), WithRetry(fc, restartPolicy(rec)), Request{}, emit, func() bool { return !acted })
	if fc.calls != 1 {
		t.Errorf("calls = %d: restarted although the caller had acted on the output", fc.calls)
	}
}

func TestRestartHonoursRetryAfter(t *testing.T) {
	rec := &recorder{}
	fc := &fakeClient{results: []fakeResult{half("half", &APIError{Kind: ErrOverloaded, RetryAfter: 1500 * time.Millisecond}), okResult}}
	if err := StreamRestartable(t.Context(), WithRetry(fc, restartPolicy(rec)), Request{}, rec.emit, always); err != nil {
		t.Fatal(err)
	}
	if len(rec.sleeps) != 1 || rec.sleeps[0] != 1500*time.Millisecond {
		t.Errorf("sleeps = %v, want the server's 1.5s", rec.sleeps)
	}
}

func TestStreamRestartableWithoutRetryClient(t *testing.T) {
	rec := &recorder{}
	failure := &APIError{Kind: ErrStream}
	fc := &fakeClient{results: []fakeResult{half("half", failure), okResult}}
	if err := StreamRestartable(t.Context(), fc, Request{}, rec.emit, always); err != failure || fc.calls != 1 {
		t.Errorf("err = %v, calls = %d: a client without WithRetry does not retry", err, fc.calls)
	}
}

func TestDefaultPolicyRestarts(t *testing.T) {
	if n := DefaultRetryPolicy().RestartAttempts; n < 2 {
		t.Errorf("default RestartAttempts = %d: a response that breaks off would never be asked for again", n)
	}
}

// TestRestartCancelled checks that a cancelled context ends the run rather
// than restarting it.
func TestRestartCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	rec := &recorder{}
	fc := &fakeClient{results: []fakeResult{half("half", &APIError{Kind: ErrStream}), okResult}}
	emit := func(ev StreamEvent) {
		rec.emit(ev)
		cancel()
	}
	_ = StreamRestartable(ctx, WithRetry(fc, restartPolicy(rec)), Request{}, emit, always)
	if fc.calls != 1 {
		t.Errorf("calls = %d after cancel, want 1", fc.calls)
	}
}
