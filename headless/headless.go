// Package headless is print mode (nova -p): it runs one prompt through the
// agent with nobody at the keyboard and writes the answer as text, one JSON
// result object, or Claude Code's stream-json messages; and it speaks
// Claude Code's stream-json protocol on stdin and stdout, so the Claude
// Agent SDK can drive nova (sdk.go).
package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
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
	// stream-json init message.
	Model          string
	Tools          []string
	PermissionMode string
	Cwd            string
	// MCPServers, Commands, Agents, Version, ContextWindow and MaxOutput
	// fill in the rest of the init message and the result's modelUsage.
	MCPServers               func() []MCPServer
	Commands                 func() []Command
	Agents                   func() []string
	Version                  string
	ContextWindow, MaxOutput int
	// Partial adds stream_event messages to stream-json: the response as
	// Anthropic's raw stream events (--include-partial-messages).
	Partial bool
	// Debug, when set, gets every agent event in nova's own shape, one
	// JSON line each (-d, --debug-file).
	Debug io.Writer
	// IgnoredProjectSettings are the project grants left out because the
	// folder is not trusted; the result lists them.
	IgnoredProjectSettings []IgnoredSetting
	// Structured, when set, holds the answer to its JSON schema: the run
	// ends with the model's call of its tool, and the result carries it.
	Structured *StructuredOutput
	// HookEvents, when set, writes the hooks' runs in stream-json
	// (--include-hook-events), from the init message to the result.
	HookEvents     *HookEvents
	Stdout, Stderr io.Writer
}

// IgnoredSetting is a grant of a project settings file that was not
// applied because the folder is not trusted.
type IgnoredSetting struct {
	File    string `json:"file"`    // relative to the workspace: .nova/settings.json
	Setting string `json:"setting"` // the key: permissions.allow, env, sandbox.enabled, ...
}

func (o *Options) session() *Session {
	return &Session{SessionID: o.SessionID, Model: o.Model, Cwd: o.Cwd, Version: o.Version,
		Tools: func() []string { return o.Tools }, MCPServers: o.MCPServers,
		PermissionMode: func() string { return o.PermissionMode }, ContextWindow: o.ContextWindow, MaxOutput: o.MaxOutput,
		Commands: o.Commands, Agents: o.Agents}
}

// Run runs the prompt and writes the output; it returns the exit code.
// Diagnostics go to Stderr; Stdout carries only the answer or JSON. The
// json and stream-json formats are Claude Code's (claude.go) and always
// end with the result message, and output that could not be written or
// encoded makes the exit code an error, so a script never takes missing
// output for success.
func Run(ctx context.Context, r Runner, opts Options) int {
	start := time.Now()
	out := &writer{w: opts.Stdout}
	enc := newEncoder(out, opts.session(), opts.Partial)
	if opts.Debug != nil {
		enc.debug = &writer{w: opts.Debug}
	}
	if opts.Format == FormatStreamJSON {
		enc.init()
		enc.hooks = opts.HookEvents
		opts.HookEvents.begin(out, opts.SessionID)
	}
	// Whatever ends the run, the hooks' messages end before the result.
	defer opts.HookEvents.end()
	if opts.Structured != nil {
		r = structuredRunner{r: r, s: opts.Structured}
	}
	var done *agent.Done
	for ev := range r.Run(ctx, llm.UserText(opts.Prompt)) {
		if ev.Type == agent.EventDone && ev.ParentToolUseID == "" {
			// A subagent's work is never the run's result.
			done = ev.Done
		}
		if opts.Format == FormatStreamJSON {
			enc.event(ev)
		} else {
			if enc.debug != nil {
				enc.debug.json(safeEvent(ev))
			}
			logEvent(opts.Stderr, ev, opts.Verbose)
		}
	}
	if done == nil {
		done = &agent.Done{Subtype: agent.SubtypeError, IsError: true, Error: "the agent ended without a result"}
	}
	opts.HookEvents.end()
	res := enc.result(done, time.Since(start))
	if opts.IgnoredProjectSettings != nil {
		res.IgnoredProjectSettings = opts.IgnoredProjectSettings
	}
	if opts.Structured != nil {
		res.StructuredOutput = opts.Structured.take()
	}
	switch opts.Format {
	case FormatJSON, FormatStreamJSON:
		if !out.json(res) && !out.isBroken() {
			// Not even the result would encode, though it holds only plain
			// data: say so in the result's own shape.
			msg := "nova could not encode the result"
			out.json(Result{Type: "result", Subtype: agent.SubtypeError, IsError: true, SessionID: opts.SessionID,
				Errors: []string{msg}, Error: msg, PermissionDenials: []agent.Denial{}, ModelUsage: map[string]ModelUsage{},
				IgnoredProjectSettings: []IgnoredSetting{}, Model: opts.Model, UUID: newUUID()})
		}
	default:
		switch {
		case done.IsError:
		case res.StructuredOutput != nil:
			// The answer the schema asked for is what a script wants.
			out.write(append(append([]byte(nil), res.StructuredOutput...), '\n'))
		case done.Result != "":
			out.write([]byte(done.Result + "\n"))
		}
	}
	if done.IsError {
		fmt.Fprintf(opts.Stderr, "nova: %s\n", done.Error)
	}
	code := exitCode(ctx, done)
	if err := out.failure(); err != nil {
		fmt.Fprintf(opts.Stderr, "nova: %v\n", err)
		if code == ExitOK {
			code = ExitFailed
		}
	}
	return code
}

// writer writes print mode's output and keeps the first failure. Hook
// messages (HookEvents) are written from the goroutines that run the
// hooks, so a line is written whole under mu.
type writer struct {
	mu     sync.Mutex
	w      io.Writer
	err    error
	broken bool // a write failed: the output has a hole, write no more
}

// isBroken says a write failed.
func (o *writer) isBroken() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.broken
}

// failure is the first failure, if any.
func (o *writer) failure() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
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
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.broken {
		return false
	}
	if _, err := o.w.Write(b); err != nil {
		o.broken = true
		o.setErr(fmt.Errorf("could not write the output: %w", err))
		return false
	}
	return true
}

func (o *writer) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.setErr(err)
}

// setErr keeps err if it is the first failure; mu is held.
func (o *writer) setErr(err error) {
	if o.err == nil {
		o.err = err
	}
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
// denials, notices; with verbose, every tool call and result too. A
// subagent's lines are marked with its type: they are its work, not the
// run's answer (which only stdout carries).
func logEvent(w io.Writer, ev agent.Event, verbose bool) {
	who := ""
	if ev.ParentToolUseID != "" {
		who = "[subagent] "
		if ev.Agent != nil && ev.Agent.Type != "" {
			who = "[" + ev.Agent.Type + "] "
		}
	}
	switch ev.Type {
	case agent.EventRetry, agent.EventNotice:
		fmt.Fprintf(w, "nova: %s%s\n", who, ev.Text)
	case agent.EventToolCall:
		if verbose {
			fmt.Fprintf(w, "%s→ %s %s\n", who, ev.ToolCall.Name, clip(string(ev.ToolCall.Input), 200))
		}
	case agent.EventToolResult:
		r := ev.Result
		switch {
		case r.Denied:
			fmt.Fprintf(w, "nova: %sdenied %s (%s): %s\n", who, r.Name, r.Decision.Layer, r.Decision.Reason)
		case verbose && r.IsError:
			fmt.Fprintf(w, "%s✗ %s: %s\n", who, r.Name, clip(r.Output, 300))
		case verbose:
			fmt.Fprintf(w, "%s✓ %s (%d ms)\n", who, r.Name, r.DurationMS)
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
