package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/shared"

	"github.com/nova-dev/nova/llm"
)

// streamError reports a stream that broke the protocol or ended early.
func (c *Client) streamError(format string, args ...any) error {
	return &llm.APIError{Provider: c.provider, Kind: llm.ErrStream, Message: fmt.Sprintf(format, args...)}
}

// classify turns whatever the SDK or the transport returned into an
// *llm.APIError, so retry decisions and messages do not depend on the SDK.
// A cancelled ctx wins: the caller asked to stop, nothing failed. started
// says whether any output reached the caller.
func (c *Client) classify(ctx context.Context, err error, started bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: stream: %w", c.provider, ctxErr)
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return c.fromSDKError(apiErr)
	}
	return llm.TransportError(c.provider, err, started)
}

// fromSDKError maps an API error, from an HTTP status or an in-stream error
// event (whose status is the 200 of the stream), to an *llm.APIError.
func (c *Client) fromSDKError(e *sdk.Error) *llm.APIError {
	ae := &llm.APIError{Provider: c.provider, Message: e.Message, Err: e}
	status := e.StatusCode
	if status >= 400 {
		ae.StatusCode = status
	}
	if ae.Message == "" {
		if raw := strings.TrimSpace(e.RawJSON()); raw != "" {
			ae.Message = raw
		} else {
			ae.Message = http.StatusText(status)
		}
	}
	ae.Kind = kindForType(e.Type())
	if ae.Kind == "" {
		ae.Kind = llm.KindForStatus(status)
	}
	if ae.Kind == llm.ErrAuth {
		ae.Hint = "check " + c.keyHint
	}
	if e.Response != nil {
		ae.RetryAfter = llm.RetryAfter(e.Response.Header)
	}
	return ae
}

// kindForType maps Anthropic's error types to kinds; "" means the type says
// nothing more than the status does.
func kindForType(t shared.ErrorType) llm.ErrorKind {
	switch t {
	case shared.ErrorTypeOverloadedError:
		return llm.ErrOverloaded
	case shared.ErrorTypeRateLimitError:
		return llm.ErrRateLimit
	case shared.ErrorTypeAuthenticationError, shared.ErrorTypePermissionError:
		return llm.ErrAuth
	case shared.ErrorTypeAPIError:
		return llm.ErrServer
	case shared.ErrorTypeTimeoutError:
		return llm.ErrTimeout
	case shared.ErrorTypeInvalidRequestError, shared.ErrorTypeNotFoundError, shared.ErrorTypeBillingError:
		return llm.ErrBadRequest
	}
	return ""
}
