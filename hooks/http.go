package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
)

// runHTTP POSTs the event's JSON to an http hook's URL. A 2xx answer is
// the hook's output (an empty body decides nothing, a JSON object is read
// as a command's stdout would be); any other status, a failed connection
// or a timeout is a hook that could not answer.
func (e *Engine) runHTTP(ctx context.Context, h *Hook, ev Event, payload []byte) reply {
	limit := timeout(h, ev)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(payload))
	if err != nil {
		return reply{broken: fmt.Sprintf("could not start: %v", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h.Headers {
		req.Header.Set(k, e.headerValue(h, v))
	}
	resp, err := e.s.HTTP.Do(req)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return reply{broken: fmt.Sprintf("timed out after %s", seconds(limit))}
	case err != nil:
		return reply{broken: fmt.Sprintf("could not be reached: %v", err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOutput))
	if err != nil {
		return reply{broken: fmt.Sprintf("answered, but its body could not be read: %v", err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return reply{broken: fmt.Sprintf("answered %s", resp.Status)}
	}
	return reply{stdout: string(body), body: true}
}

// headerValue expands $VAR and ${VAR} in a header value, for the
// variables the hook lists in allowedEnvVars only: any other becomes
// empty, so a project's hook cannot send the person's secrets away.
func (e *Engine) headerValue(h *Hook, v string) string {
	return os.Expand(v, func(name string) string {
		for _, ok := range h.AllowedEnvVars {
			if ok == name && e.s.Getenv != nil {
				return e.s.Getenv(name)
			}
		}
		return ""
	})
}
