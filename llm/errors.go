package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrorKind classifies a provider failure so callers can decide whether to
// retry and what to tell the user.
type ErrorKind string

// Error kinds, normalised across providers.
const (
	ErrAuth       ErrorKind = "auth"        // bad or missing key: never retried
	ErrRateLimit  ErrorKind = "rate_limit"  // 429
	ErrOverloaded ErrorKind = "overloaded"  // Anthropic 529 / overloaded_error
	ErrServer     ErrorKind = "server"      // 5xx
	ErrBadRequest ErrorKind = "bad_request" // 4xx other than auth and rate limit
	ErrConnection ErrorKind = "connection"  // could not connect, or the connection broke before a response
	ErrTimeout    ErrorKind = "timeout"     // connect or first-byte timeout
	ErrStream     ErrorKind = "stream"      // the stream broke or was malformed after it started
)

// APIError is a provider failure in words a person understands.
type APIError struct {
	Provider   string        // provider key or type, e.g. "anthropic"
	Kind       ErrorKind     // what went wrong
	StatusCode int           // HTTP status, 0 when there was none
	Message    string        // the provider's message, or ours
	RetryAfter time.Duration // from retry-after / retry-after-ms, 0 when absent
	// Hint says what the user can do, e.g. "check ANTHROPIC_API_KEY".
	Hint string
	Err  error // the underlying error, if any
}

// Error implements error.
func (e *APIError) Error() string {
	s := e.Provider
	if s == "" {
		s = "provider"
	}
	switch e.Kind {
	case ErrAuth:
		s += ": authentication failed"
	case ErrRateLimit:
		s += ": rate limited"
	case ErrOverloaded:
		s += ": overloaded"
	case ErrServer:
		s += ": server error"
	case ErrBadRequest:
		s += ": request rejected"
	case ErrConnection:
		s += ": connection failed"
	case ErrTimeout:
		s += ": timed out"
	case ErrStream:
		s += ": stream broken"
	}
	if e.StatusCode != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.StatusCode)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap returns the underlying error.
func (e *APIError) Unwrap() error { return e.Err }

// Retryable reports whether the failure is worth another attempt when no
// output has been produced yet.
func (e *APIError) Retryable() bool {
	switch e.Kind {
	case ErrRateLimit, ErrOverloaded, ErrServer, ErrConnection, ErrTimeout:
		return true
	}
	return false
}

// AsAPIError returns err as an *APIError when it is one.
func AsAPIError(err error) (*APIError, bool) {
	var ae *APIError
	ok := errors.As(err, &ae)
	return ae, ok
}

// KindForStatus maps an HTTP status code to an ErrorKind.
func KindForStatus(status int) ErrorKind {
	switch {
	case status == 401 || status == 403:
		return ErrAuth
	case status == 429:
		return ErrRateLimit
	case status == 529:
		return ErrOverloaded
	case status >= 500:
		return ErrServer
	case status >= 400:
		return ErrBadRequest
	}
	return ErrStream
}

// RetryAfter reads the server's wait: retry-after-ms (milliseconds, more
// precise, so it wins) or retry-after (seconds or an HTTP date).
func RetryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// IsDialError reports whether err is a failure to open the connection.
func IsDialError(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}

// TransportError classifies a failure that is not the provider's answer
// (no HTTP error status, no error event): the transport's, as every
// provider's client meets it. started says whether any output reached the
// caller: a body that broke before any output is a connection failure,
// retried, since another attempt duplicates nothing; after output it is a
// broken stream.
func TransportError(provider string, err error, started bool) *APIError {
	ae := &APIError{Provider: provider, Message: err.Error(), Err: err}
	var netErr net.Error
	var urlErr *url.Error
	switch {
	case errors.Is(err, ErrIdleTimeout), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		ae.Kind = ErrTimeout
	case IsDialError(err), errors.As(err, &urlErr):
		// A *url.Error comes from the request itself, before any response
		// body: the connection failed (refused, reset), the stream never
		// began.
		ae.Kind = ErrConnection
	case !started:
		ae.Kind = ErrConnection
	default:
		ae.Kind = ErrStream
	}
	return ae
}
