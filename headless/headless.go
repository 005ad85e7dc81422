// Package headless is print mode (nova -p): it runs one prompt through the
// agent with nobody at the keyboard and writes the answer as text, one JSON
// result object, or a JSON line per event.
package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// Output formats.
const (
	FormatText       = "text"
	FormatJSON       = "json"
	FormatStreamJSON = "stream-json"
)

// Exit codes of print mode.
const (
	ExitOK          = 0
	ExitFailed      = 1   // the run failed: provider error, max turns, tool crash
	ExitUsage       = 2   // bad usage or configuration
	ExitInterrupted = 130 // Ctrl-C
)

// Runner is the part of the agent print mode uses.
type Runner interface {
	Run(ctx context.Context, input llm.Message) <-chan agent.Event
}

// Options configures one print-mode run.
type Options struct {
	Prompt    string
	Format    string
	Verbose   bool
	SessionID string
	// Model, Tools, PermissionMode and Cwd describe the run in the
	// stream-json init line.
	Model          string
	Tools          []string
	PermissionMode string
	Cwd            string
	// IgnoredProjectSettings are the project grants left out because the
	// folder is not trusted; the result lists them.
	IgnoredProjectSettings []IgnoredSetting
	Stdout, Stderr         io.Writer
}

// IgnoredSetting is a grant of a project settings file that was not
// applied because the folder is not trusted.
type IgnoredSetting struct {
	File    string `json:"file"`    // relative to the workspace: .nova/settings.json
	Setting string `json:"setting"` // the key: permissions.allow, env, sandbox.enabled, ...
}

// Result is the result object of the json and stream-json formats.
type Result struct {
	Type              string         `json:"type"`
	Subtype           string         `json:"subtype"`
	IsError           bool           `json:"is_error"`
	Result            string         `json:"result"`
	Error             string         `json:"error,omitempty"`
	SessionID         string         `json:"session_id"`
	NumTurns          int            `json:"num_turns"`
	DurationMS        int64          `json:"duration_ms"`
	StopReason        string         `json:"stop_reason,omitempty"`
	Usage             llm.Usage      `json:"usage"`
	PermissionDenials []agent.Denial `json:"permission_denials"`
	// IgnoredProjectSettings lists the project grants that did not apply
	// because the folder is not trusted; empty when none.
	IgnoredProjectSettings []IgnoredSetting `json:"ignored_project_settings"`
	Model                  string           `json:"model,omitempty"`
}

// Run runs the prompt and writes the output; it returns the exit code.
// Diagnostics go to Stderr; Stdout carries only the answer or JSON. The
// json and stream-json formats always end with the result object, and
// output that could not be written or encoded makes the exit code an
// error, so a script never takes missing output for success.
func Run(ctx context.Context, r Runner, opts Options) int {
	start := time.Now()
	out := &writer{w: opts.Stdout}
	if opts.Format == FormatStreamJSON {
		out.json(map[string]any{
			"type": "system", "subtype": "init", "session_id": opts.SessionID, "model": opts.Model,
			"tools": opts.Tools, "permission_mode": opts.PermissionMode, "cwd": opts.Cwd,
		})
	}
	var done *agent.Done
	for ev := range r.Run(ctx, llm.UserText(opts.Prompt)) {
		if opts.Format == FormatStreamJSON && ev.Type != agent.EventDone {
			out.json(safeEvent(ev))
		} else if opts.Format != FormatStreamJSON {
			logEvent(opts.Stderr, ev, opts.Verbose)
		}
		if ev.Type == agent.EventDone {
			done = ev.Done
		}
	}
	if done == nil {
		done = &agent.Done{Subtype: agent.SubtypeError, IsError: true, Error: "the agent ended without a result"}
	}
	res := Result{
		Type: "result", Subtype: done.Subtype, IsError: done.IsError, Result: done.Result, Error: done.Error,
		SessionID: opts.SessionID, NumTurns: done.NumTurns, DurationMS: time.Since(start).Milliseconds(),
		StopReason: string(done.StopReason), Usage: done.Usage, PermissionDenials: safeDenials(done.Denials), Model: opts.Model,
	}
	res.IgnoredProjectSettings = opts.IgnoredProjectSettings
	if res.IgnoredProjectSettings == nil {
		res.IgnoredProjectSettings = []IgnoredSetting{}
	}
	if res.Subtype == agent.SubtypeInterrupted {
		// Claude Code's result subtypes have no "interrupted"; scripts see
		// error_during_execution and exit code 130.
		res.Subtype = agent.SubtypeError
	}
	switch opts.Format {
	case FormatJSON, FormatStreamJSON:
		if !out.json(res) && !out.broken {
			// Not even the result would encode, though it holds only plain
			// data: say so in the result's own shape.
			out.json(Result{Type: "result", Subtype: agent.SubtypeError, IsError: true, SessionID: opts.SessionID,
				Error: "nova could not encode the result", PermissionDenials: []agent.Denial{},
				IgnoredProjectSettings: []IgnoredSetting{}, Model: opts.Model})
		}
	default:
		if done.Result != "" && !done.IsError {
			out.write([]byte(done.Result + "\n"))
		}
	}
	if done.IsError {
		fmt.Fprintf(opts.Stderr, "nova: %s\n", done.Error)
	}
	code := exitCode(ctx, done)
	if out.err != nil {
		fmt.Fprintf(opts.Stderr, "nova: %v\n", out.err)
		if code == ExitOK {
			code = ExitFailed
		}
	}
	return code
}

// writer writes print mode's output and keeps the first failure.
type writer struct {
	w      io.Writer
	err    error
	broken bool // a write failed: the output has a hole, write no more
}

// json writes v as one JSON line and reports whether it did. A value that
// does not encode writes nothing, so a line is never left half written.
func (o *writer) json(v any) bool {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		o.fail(fmt.Errorf("could not encode the output: %w", err))
		return false
	}
	return o.write(buf.Bytes())
}

func (o *writer) write(b []byte) bool {
	if o.broken {
		return false
	}
	if _, err := o.w.Write(b); err != nil {
		o.broken = true
		o.fail(fmt.Errorf("could not write the output: %w", err))
		return false
	}
	return true
}

func (o *writer) fail(err error) {
	if o.err == nil {
		o.err = err
	}
}

// safeEvent returns ev with a tool call input that marshals: the agent
// sends it so, and print mode does not trust that with its only output.
func safeEvent(ev agent.Event) agent.Event {
	if ev.ToolCall != nil {
		if in := llm.SafeInput(ev.ToolCall.Input); !bytes.Equal(in, ev.ToolCall.Input) {
			c := *ev.ToolCall
			c.Input = in
			ev.ToolCall = &c
		}
	}
	return ev
}

// safeDenials returns ds (never nil) with inputs that marshal: a denied
// call may be one whose input the model garbled.
func safeDenials(ds []agent.Denial) []agent.Denial {
	out := make([]agent.Denial, len(ds))
	for i, d := range ds {
		d.ToolInput = llm.SafeInput(d.ToolInput)
		out[i] = d
	}
	return out
}

func exitCode(ctx context.Context, d *agent.Done) int {
	switch {
	case d.Subtype == agent.SubtypeInterrupted || (d.IsError && ctx.Err() != nil):
		return ExitInterrupted
	case d.IsError:
		return ExitFailed
	}
	return ExitOK
}

// logEvent writes what a person watching stderr should know: retries,
// denials, notices; with verbose, every tool call and result too.
func logEvent(w io.Writer, ev agent.Event, verbose bool) {
	switch ev.Type {
	case agent.EventRetry, agent.EventNotice:
		fmt.Fprintf(w, "nova: %s\n", ev.Text)
	case agent.EventToolCall:
		if verbose {
			fmt.Fprintf(w, "→ %s %s\n", ev.ToolCall.Name, clip(string(ev.ToolCall.Input), 200))
		}
	case agent.EventToolResult:
		r := ev.Result
		switch {
		case r.Denied:
			fmt.Fprintf(w, "nova: denied %s (%s): %s\n", r.Name, r.Decision.Layer, r.Decision.Reason)
		case verbose && r.IsError:
			fmt.Fprintf(w, "✗ %s: %s\n", r.Name, clip(r.Output, 300))
		case verbose:
			fmt.Fprintf(w, "✓ %s (%d ms)\n", r.Name, r.DurationMS)
		}
	case agent.EventCompaction:
		fmt.Fprintf(w, "nova: compacted history (%d → %d tokens)\n", ev.Compaction.Before, ev.Compaction.After)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
