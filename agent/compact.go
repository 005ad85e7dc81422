package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/session"
)

// Compactor is the part of a Recorder that persists compaction boundaries.
type Compactor interface {
	AppendCompaction(summary string, kept []llm.Message) error
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

// Compact summarises the early history with a model call and replaces it
// by the summary (with the context message re-built, so instruction files
// are re-read) followed by the recent turns kept verbatim. The boundary is
// written to the transcript. instructions, when given, steer the summary.
// On failure history is left as it was: never silently truncated.
func (a *Agent) Compact(ctx context.Context, instructions string) error {
	a.mu.Lock()
	hist := append([]llm.Message(nil), a.history...)
	limit := CompactionLimit(a.cfg.ContextWindow, a.cfg.MaxTokens)
	a.mu.Unlock()
	split := splitPoint(hist, limit*4/keepFraction) // characters ≈ 4 per token
	if split <= 0 {
		return ErrNothingToCompact
	}
	before := a.contextUsage().Used
	summary, usage, err := a.summarise(ctx, hist[:split], instructions)
	if err != nil {
		return fmt.Errorf("compaction failed, history kept as it was: %w", err)
	}
	text := summary
	if a.cfg.Context != nil {
		text = a.cfg.Context() + "\n\n" + summary
	}
	kept := hist[split:]
	if c, ok := a.cfg.Recorder.(Compactor); ok {
		if err := c.AppendCompaction(text, kept); err != nil {
			return fmt.Errorf("compaction could not be saved, history kept as it was: %w", err)
		}
	}
	a.mu.Lock()
	// Messages appended while summarising (none in a run) stay after kept.
	extra := a.history[len(hist):]
	a.history = append(append([]llm.Message{session.SummaryMessage(text)}, kept...), extra...)
	a.usage.Add(usage)
	a.last = llm.Usage{}
	a.added = 0
	for _, m := range a.history {
		a.added += messageChars(m)
	}
	a.mu.Unlock()
	a.send(Event{Type: EventCompaction, Compaction: &Compaction{Before: before, After: a.contextUsage().Used}})
	return nil
}

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
		Messages:  mergeRoles(append(append([]llm.Message(nil), msgs...), llm.UserText(prompt))),
		MaxTokens: min(a.cfg.MaxTokens, SummaryReserve),
	}
	// The summariser sees no tools: a tool call in the summary is useless.
	if req.MaxTokens <= 0 {
		req.MaxTokens = SummaryReserve
	}
	var text strings.Builder
	var usage llm.Usage
	err := a.cfg.Client.Stream(ctx, req, func(ev llm.StreamEvent) {
		switch ev.Type {
		case llm.EventTextDelta:
			text.WriteString(ev.Text)
		case llm.EventUsage:
			usage = *ev.Usage
		case llm.EventRetry:
			a.send(Event{Type: EventRetry, Retry: ev.Retry, Text: "compaction: " + ev.Retry.String()})
		}
	})
	if err != nil {
		return "", usage, err
	}
	if strings.TrimSpace(text.String()) == "" {
		return "", usage, errors.New("the model returned an empty summary")
	}
	return text.String(), usage, nil
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
