package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/session"
)

// Compactor is the part of a Recorder that persists compaction boundaries.
type Compactor interface {
	// AppendCompaction records the boundary: contextMsg is the context
	// message rebuilt for it, summary the model's summary.
	AppendCompaction(contextMsg, summary string, kept []llm.Message) error
}

// keepFraction is how much of the compaction limit recent turns may keep
// verbatim; the rest is summarised.
const keepFraction = 4 // a quarter

// summaryPrompt asks for the structured summary that replaces early history.
const summaryPrompt = `Your conversation so far is about to be compacted to save context. Write a summary that lets you continue the work seamlessly without the earlier messages. Use exactly these sections:

## Goal
What the user asked for, in their words where it matters.
## Decisions
Choices made and why, including what was tried and rejected.
## Files touched
Each file read or changed, with what was done to it.
## Current state
What works, what does not, the last command results that matter.
## Next steps
What remains, in order.
## Open questions
Anything unresolved or waiting on the user.

Be specific: paths, function names, commands, error messages. Do not call tools.`

// ErrNothingToCompact is returned when history is too short to compact.
var ErrNothingToCompact = errors.New("nothing to compact yet")

// ErrContextFull is what a *WindowError wraps: the next request would not
// fit in the model's context window and compaction cannot make it fit.
var ErrContextFull = errors.New("the conversation does not fit in the model's context window")

// WindowError says what does not fit in the context window and what to
// do about it. The request that would not fit was not sent.
type WindowError struct {
	// Window is the model's context window; Need the estimated tokens of
	// the next request with the room kept for its answer (Reserve).
	Window, Need, Reserve int
	// Fixed is the system prompt and tools; History the messages.
	Fixed, History int
	// Largest names the biggest piece of the history ("the result of Read
	// (toolu_1)") and LargestTokens its size.
	Largest       string
	LargestTokens int
	// Compacted says a compaction ran and the conversation still does
	// not fit.
	Compacted bool
	// Summary is set when it is the summary request that would not fit.
	Summary bool
}

// Error says what is too big and what the user can do.
func (e *WindowError) Error() string {
	var b strings.Builder
	switch {
	case e.Summary:
		b.WriteString("the conversation does not fit in the model's context window, and the part to summarise is too big to compact with this model")
	case e.Compacted:
		b.WriteString("the conversation does not fit in the model's context window, even after compaction")
	default:
		b.WriteString("the conversation does not fit in the model's context window, and compaction cannot make room: what it must keep verbatim (the latest turn) is too big")
	}
	fmt.Fprintf(&b, ": the next request needs about %s tokens (%s for the system prompt and tools, %s for the conversation, %s kept for the answer) and the window holds %s",
		thousands(e.Need), thousands(e.Fixed), thousands(e.History), thousands(e.Reserve), thousands(e.Window))
	if e.Largest != "" {
		fmt.Fprintf(&b, "; the biggest part is %s, about %s tokens", e.Largest, thousands(e.LargestTokens))
	}
	b.WriteString(". It was not sent. Start afresh with /clear (or a new session), switch to a model with a bigger context window, or ask for a smaller read (a line range of the file, or Grep for the part you need).")
	return b.String()
}

// Unwrap makes errors.Is(err, ErrContextFull) true.
func (e *WindowError) Unwrap() error { return ErrContextFull }

// Compact summarises the early history with a model call and replaces it
// by the summary (with the context message re-built, so instruction files
// are re-read) followed by the recent turns kept verbatim. The boundary is
// written to the transcript. instructions, when given, steer the summary.
// On failure history is left as it was: never silently truncated.
//
// A request known to be over the window is never sent: when what must be
// kept cannot fit, Compact returns a *WindowError without calling the
// model, and after a compaction that leaves too much it returns one too.
// During a run (the automatic compaction) it does not summarise when no
// compaction could bring the context under the limit (a small window that
// the system prompt and tools nearly fill) while the request still fits:
// that would summarise again before every turn for nothing. It compacts
// when the request would no longer fit, or the summary request soon.
func (a *Agent) Compact(ctx context.Context, instructions string) error {
	a.mu.Lock()
	hist := append([]llm.Message(nil), a.history...)
	limit := CompactionLimit(a.cfg.ContextWindow, a.cfg.MaxTokens)
	est := a.estimatorLocked()
	auto := a.running && !a.manual
	a.mu.Unlock()
	split := splitPoint(hist, limit*4/keepFraction) // characters ≈ 4 per token
	if split <= 0 {
		if err := est.fit(hist, false); err != nil {
			return err
		}
		return ErrNothingToCompact
	}
	kept := hist[split:]
	if auto && limit > 0 && est.request(kept) >= limit && est.fit(hist, false) == nil && est.fitSummary(hist) == nil {
		// No compaction gets under the limit, and the request still fits:
		// compact when it would not, while the summary request (here of
		// all the history, a turn's margin) still fits.
		return ErrNothingToCompact
	}
	var contextMsg string
	if a.cfg.Context != nil {
		contextMsg = a.cfg.Context(ctx)
	}
	if err := est.fit(append([]llm.Message{session.SummaryMessage(contextMsg, "")}, kept...), false); err != nil {
		return err
	}
	if err := est.fitSummary(hist[:split]); err != nil {
		return err
	}
	trigger := "manual"
	if auto {
		trigger = "auto"
	}
	if err := a.compactHooks(ctx, trigger, instructions); err != nil {
		return err
	}
	before := a.contextUsage().Used
	summary, usage, err := a.summarise(ctx, hist[:split], instructions)
	// A failed summary was still paid for.
	a.count(usage)
	if err != nil {
		return fmt.Errorf("compaction failed, history kept as it was: %w", err)
	}
	// SessionStart hooks (source "compact") add to what the summary says.
	text := a.compactedHooks(ctx, summary)
	if c, ok := a.cfg.Recorder.(Compactor); ok {
		if err := c.AppendCompaction(contextMsg, text, kept); err != nil {
			return fmt.Errorf("compaction could not be saved, history kept as it was: %w", err)
		}
	}
	a.mu.Lock()
	// Messages appended while summarising (none in a run) stay after kept.
	extra := a.history[len(hist):]
	a.history = append(append([]llm.Message{session.SummaryMessage(contextMsg, text)}, kept...), extra...)
	after := append([]llm.Message(nil), a.history...)
	// Until the provider counts the next request, the figure is the
	// estimate of all of it: system prompt and tools included.
	a.last = llm.Usage{}
	a.added = est.request(after) * 4
	a.mu.Unlock()
	a.send(Event{Type: EventCompaction, Compaction: &Compaction{Before: before, After: a.contextUsage().Used}})
	if a.cfg.Hooks != nil {
		a.notify(0, a.cfg.Hooks.Fire(ctx, hooks.PostCompactInput(trigger, summary)).Notices)
	}
	return est.fit(after, true)
}

// estimator turns characters into tokens the way the provider counted the
// last request, for the requests nova has not sent yet.
type estimator struct {
	perChar float64 // tokens per character
	fixed   int     // tokens of the system prompt and tools
	window  int
	reserve int // tokens kept for the answer
	maxOut  int
	system  int // characters of the system prompt
}

// charsPerToken is the estimate before the provider has counted anything.
const charsPerToken = 4

// estimatorLocked calibrates an estimator on the provider's count of the
// last request, which covered the system prompt, the tools and the history
// but what was added since. a.mu must be held.
func (a *Agent) estimatorLocked() estimator {
	system := systemChars(a.cfg)
	fixedChars := requestOverheadChars(a.cfg, a.history)
	hist := 0
	for _, m := range a.history {
		hist += messageChars(m)
	}
	e := estimator{perChar: 1.0 / charsPerToken, window: a.cfg.ContextWindow, maxOut: a.cfg.MaxTokens}
	counted := a.last.InputTokens + a.last.CacheReadTokens + a.last.CacheWriteTokens + a.last.OutputTokens
	if covered := fixedChars + hist - a.added; counted > 0 && covered > 0 {
		e.perChar = float64(counted) / float64(covered)
	}
	e.fixed = e.tokens(fixedChars)
	e.system = system
	if e.window > 0 {
		e.reserve = min(max(a.cfg.MaxTokens, 0), e.window/2)
	}
	return e
}

// systemChars is the size of the system prompt a request carries.
func systemChars(cfg Config) int {
	n := len(cfg.System)
	if cfg.AppendSystem != "" {
		n += 2 + len(cfg.AppendSystem)
	}
	return n
}

// overheadChars is the size of what every main request carries besides
// the conversation, for an agent whose history is cfg.History (see
// requestOverheadChars).
func overheadChars(cfg Config) int { return requestOverheadChars(cfg, cfg.History) }

// requestOverheadChars is the size of what a main request carrying
// history carries besides the conversation: the system prompt and the
// tool definitions the model sees (about 29,000 characters, 7,000 tokens,
// for nova's own). A deferred tool (tool search) is not among them until
// the history loads it: Anthropic keeps its definition out of the prompt
// until a tool_reference names it, the other providers are not sent it
// (llm.LoadedTools). When every tool is deferred, Anthropic gets them all
// in full, so all are counted.
func requestOverheadChars(cfg Config, history []llm.Message) int {
	n := systemChars(cfg)
	if cfg.Pipeline == nil || cfg.Pipeline.Registry == nil {
		return n
	}
	specs := cfg.Pipeline.Registry.Specs()
	sent := llm.LoadedTools(llm.Request{Tools: specs, Messages: history})
	if !slices.ContainsFunc(specs, func(t llm.ToolSpec) bool { return !t.Deferred }) {
		sent = specs
	}
	for _, t := range sent {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	return n
}

func (e estimator) tokens(chars int) int { return int(float64(chars)*e.perChar + 0.5) }

// messages estimates the tokens of msgs.
func (e estimator) messages(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += messageChars(m)
	}
	return e.tokens(n)
}

// request estimates a main request carrying msgs: they, the system prompt
// and the tools.
func (e estimator) request(msgs []llm.Message) int { return e.fixed + e.messages(msgs) }

// fit returns a *WindowError when a main request carrying msgs, with the
// room for its answer, would not fit in the window.
func (e estimator) fit(msgs []llm.Message, compacted bool) error {
	if e.window <= 0 {
		return nil
	}
	hist := e.messages(msgs)
	need := e.fixed + hist + e.reserve
	if need <= e.window {
		return nil
	}
	we := &WindowError{Window: e.window, Need: need, Reserve: e.reserve, Fixed: e.fixed, History: hist, Compacted: compacted}
	we.Largest, we.LargestTokens = e.largest(msgs)
	return we
}

// fitSummary returns a *WindowError when the summary request for msgs (the
// system prompt, msgs and the summary prompt, no tools) would not fit.
func (e estimator) fitSummary(msgs []llm.Message) error {
	if e.window <= 0 {
		return nil
	}
	reserve := SummaryReserve
	if e.maxOut > 0 {
		reserve = min(e.maxOut, SummaryReserve)
	}
	hist := e.messages(msgs)
	need := e.tokens(e.system+len(summaryPrompt)) + hist + reserve
	if need <= e.window {
		return nil
	}
	we := &WindowError{Window: e.window, Need: need, Reserve: reserve, Fixed: e.tokens(e.system + len(summaryPrompt)), History: hist, Summary: true}
	we.Largest, we.LargestTokens = e.largest(msgs)
	return we
}

// largest names the biggest part of msgs and its estimated size.
func (e estimator) largest(msgs []llm.Message) (string, int) {
	what, size := "", 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			n := messageChars(llm.Message{Parts: []llm.Part{p}})
			if n <= size {
				continue
			}
			size = n
			switch {
			case p.ToolResult != nil:
				what = fmt.Sprintf("the result of %s (%s)", p.ToolResult.Name, p.ToolResult.CallID)
				if p.ToolResult.Name == "" {
					what = fmt.Sprintf("the result of tool call %s", p.ToolResult.CallID)
				}
			case p.ToolCall != nil:
				what = fmt.Sprintf("the input of %s (%s)", p.ToolCall.Name, p.ToolCall.ID)
			case m.Role == llm.RoleAssistant:
				what = "an answer of the model"
			case isSummary(m):
				what = "the summary of the earlier conversation"
			default:
				what = "a message of the conversation"
			}
		}
	}
	return what, e.tokens(size)
}

// thousands writes n with thousands separators.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// isSummary reports whether m is the summary a compaction left.
func isSummary(m llm.Message) bool { return session.IsSummary(m) }

// splitPoint returns the index of the first message kept verbatim: the
// latest turn boundary (a user message that is not tool results) such that
// what follows fits in keepChars, but never 0 (something must be summarised)
// and never cutting a tool call from its result. -1 means no split.
func splitPoint(hist []llm.Message, keepChars int) int {
	best := -1
	size := 0
	for i := len(hist) - 1; i > 0; i-- {
		size += messageChars(hist[i])
		if isTurnStart(hist[i]) {
			if size > keepChars && best != -1 {
				break
			}
			best = i
		}
	}
	if best == 1 && isSummary(hist[0]) {
		// Summarising only the last summary frees nothing.
		best = -1
	}
	if best == -1 {
		// One long turn: cut before the last assistant message that starts
		// a tool round, so the call and its result stay together.
		for i := len(hist) - 1; i > 1; i-- {
			if hist[i].Role == llm.RoleAssistant && hist[i-1].Role == llm.RoleUser {
				return i
			}
		}
	}
	return best
}

// isTurnStart reports whether m is a person's message (not tool results).
func isTurnStart(m llm.Message) bool {
	if m.Role != llm.RoleUser {
		return false
	}
	for _, p := range m.Parts {
		if p.Type == llm.PartToolResult {
			return false
		}
	}
	return true
}

// summarise asks the model for the structured summary of msgs.
func (a *Agent) summarise(ctx context.Context, msgs []llm.Message, instructions string) (string, llm.Usage, error) {
	prompt := summaryPrompt
	if instructions != "" {
		prompt += "\n\nThe user asks the summary to focus on: " + instructions
	}
	req := llm.Request{
		Model:     a.cfg.Model,
		System:    a.cfg.System,
		Messages:  llm.RepairHistory(mergeRoles(append(append([]llm.Message(nil), msgs...), llm.UserText(prompt)))),
		MaxTokens: min(a.cfg.MaxTokens, SummaryReserve),
	}
	// The summariser sees no tools: a tool call in the summary is useless.
	if req.MaxTokens <= 0 {
		req.MaxTokens = SummaryReserve
	}
	text, usage, err := a.completeText(ctx, req, func(r *llm.RetryInfo) {
		a.send(Event{Type: EventRetry, Retry: r, Text: "compaction: " + r.String()})
	})
	if err != nil {
		return "", usage, err
	}
	if strings.TrimSpace(text) == "" {
		return "", usage, errors.New("the model returned an empty summary")
	}
	return text, usage, nil
}

// mergeRoles joins consecutive messages of the same role into one, since
// some providers require alternating roles. It is deterministic, so the
// request prefix stays stable.
func mergeRoles(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			merged := llm.Message{Role: m.Role, Parts: append(append([]llm.Part(nil), out[n-1].Parts...), m.Parts...)}
			out[n-1] = merged
			continue
		}
		out = append(out, m)
	}
	return out
}
