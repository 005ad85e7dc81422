package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/nova-dev/nova/llm"
)

// attempt is the state of one Stream call that error classification needs.
type attempt struct {
	out *emitter
	// status and header of the HTTP response, recorded by a middleware so
	// an error body the SDK cannot decode still yields the status.
	status int
	header http.Header
}

// record returns the middleware that fills a's status and header.
func (a *attempt) record() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if res != nil {
			a.status, a.header = res.StatusCode, res.Header
		}
		return res, err
	})
}

// streamError reports a stream that ended early or broke the protocol.
func (b base) streamError(format string, args ...any) error {
	return &llm.APIError{Provider: b.provider, Kind: llm.ErrStream, Message: fmt.Sprintf(format, args...)}
}

// classify turns whatever the SDK or the transport returned into an
// *llm.APIError, so retry decisions and messages do not depend on the SDK.
// A cancelled ctx wins: the caller asked to stop, nothing failed.
func (b base) classify(ctx context.Context, a *attempt, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: stream: %w", b.provider, ctxErr)
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return b.fromSDKError(apiErr)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		var body struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(se.Event.Data, &body)
		code, _ := body.Error.Code.(string)
		return b.inStreamError(a, body.Error.Type, code, body.Error.Message, err)
	}
	if a.status >= 400 {
		// The SDK could not read the error body (HTML from a proxy, a bare
		// string): the status still says what happened.
		return b.fromStatus(a.status, a.header, "", err)
	}
	return llm.TransportError(b.provider, err, a.out.started)
}

// inStreamError maps an error the server sent inside a 200 stream. Before
// any output it is treated like the HTTP error it stands for (server error
// or rate limit, so it is retried); after output it is a broken stream.
func (b base) inStreamError(a *attempt, typ, code, msg string, err error) *llm.APIError {
	if msg == "" {
		msg = "error event in stream"
	}
	if detail := strings.Trim(typ+"/"+code, "/"); detail != "" {
		msg += " (" + detail + ")"
	}
	// A wait the server named when it opened the stream still holds for the
	// attempt after it.
	ae := &llm.APIError{Provider: b.provider, Kind: llm.ErrStream, Message: msg, RetryAfter: llm.RetryAfter(a.header), Err: err}
	if !a.out.started {
		ae.Kind = llm.ErrServer
		if strings.Contains(typ+code, "rate_limit") {
			ae.Kind = llm.ErrRateLimit
		}
	}
	return ae
}

// fromSDKError maps an HTTP error response decoded by the SDK.
func (b base) fromSDKError(e *sdk.Error) *llm.APIError {
	var h http.Header
	if e.Response != nil {
		h = e.Response.Header
	}
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(e.RawJSON())
	}
	return b.fromStatus(e.StatusCode, h, msg, e)
}

// fromStatus builds the error for an HTTP status, with the server's
// retry-after and, for auth failures, where to look for the key.
func (b base) fromStatus(status int, h http.Header, msg string, err error) *llm.APIError {
	if msg == "" {
		msg = http.StatusText(status)
	}
	ae := &llm.APIError{
		Provider: b.provider, Kind: llm.KindForStatus(status), StatusCode: status,
		Message: msg, RetryAfter: llm.RetryAfter(h), Err: err,
	}
	if ae.Kind == llm.ErrAuth {
		ae.Hint = "check " + b.keyHint
	}
	return ae
}
