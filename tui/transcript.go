package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// transcript is the scrollable conversation. It keeps entries, not lines:
// a frame renders only the entries that reach the screen, walking up from
// the bottom, so its cost does not grow with the length of the session.
type transcript struct {
	entries []*entry
	tools   map[string]*entry // running and finished tool calls by call id
	text    *entry            // the assistant text streaming now
	think   *entry            // the thinking streaming now
	// offset is how many lines the view is scrolled up from the bottom;
	// pin keeps it on the same lines while more arrive.
	offset int
	pin    pin
	// turnStart is the index of the first entry of the current turn: a
	// response that restarts voids what the turn streamed since.
	turnStart int
}

func newTranscript() transcript {
	return transcript{tools: map[string]*entry{}}
}

// add appends an entry and returns it.
func (t *transcript) add(e *entry) *entry {
	t.entries = append(t.entries, e)
	return e
}

// reset empties the transcript (/clear, /resume).
func (t *transcript) reset() { *t = newTranscript() }

// endStreaming marks streaming text complete, so it is rendered as
// Markdown and cached from now on.
func (t *transcript) endStreaming() {
	for _, e := range []*entry{t.text, t.think} {
		if e != nil {
			e.streaming = false
			e.invalidate()
		}
	}
	t.text, t.think = nil, nil
}

// apply folds one agent event into the transcript.
func (t *transcript) apply(ev agent.Event, now time.Time) {
	if ev.ParentToolUseID != "" {
		t.applySub(ev, now)
		return
	}
	switch ev.Type {
	case agent.EventTextDelta:
		if t.text == nil {
			t.text = t.add(&entry{kind: entryAssistant, streaming: true})
		}
		t.text.text += ev.Text
	case agent.EventThinkingDelta:
		if t.think == nil {
			t.think = t.add(&entry{kind: entryThinking, streaming: true})
		}
		t.think.text += ev.Text
	case agent.EventToolCall:
		t.endStreaming()
		c := ev.ToolCall
		t.tools[c.ID] = t.add(&entry{kind: entryTool, tool: &toolEntry{id: c.ID, name: c.Name, input: c.Input, started: now}})
	case agent.EventToolProgress:
		if e, ok := t.tools[ev.Progress.CallID]; ok && e.tool.running() {
			p := *ev.Progress
			e.tool.progress = &p
			e.invalidate()
		}
	case agent.EventToolResult:
		if e, ok := t.tools[ev.Result.ID]; ok {
			e.tool.finish(ev.Result)
			e.invalidate()
		}
	case agent.EventTurnEnd:
		t.endStreaming()
	case agent.EventNotice:
		t.add(&entry{kind: entryNotice, text: ev.Text})
	case agent.EventTurnStart:
		t.turnStart = len(t.entries)
	case agent.EventRetry:
		if ev.Retry != nil && ev.Retry.DiscardPartial {
			t.discardTurn()
		}
		if ev.Retry != nil {
			t.add(&entry{kind: entryNotice, text: ev.Retry.String()})
		}
	case agent.EventCompaction:
		if c := ev.Compaction; c != nil {
			t.add(&entry{kind: entryNotice, text: fmt.Sprintf("Conversation compacted: %s → %s tokens", tokens(c.Before), tokens(c.After))})
		}
	case agent.EventError:
		t.endStreaming()
		t.add(&entry{kind: entryError, text: ev.Text})
	case agent.EventDone:
		t.endStreaming()
		t.interruptTools()
		if d := ev.Done; d != nil {
			switch d.Subtype {
			case agent.SubtypeInterrupted:
				t.add(&entry{kind: entryNotice, text: "Interrupted · tell the model what to do instead"})
			case agent.SubtypeMaxTurns:
				t.add(&entry{kind: entryError, text: d.Error})
			}
		}
	}
}

// discardTurn drops what the current turn streamed (text, thinking and
// the tool calls it queued, none of which ran): the response is starting
// over and the agent keeps none of it.
func (t *transcript) discardTurn() {
	t.text, t.think = nil, nil
	start := min(t.turnStart, len(t.entries))
	kept := t.entries[:start]
	for _, e := range t.entries[start:] {
		switch e.kind {
		case entryAssistant, entryThinking:
		case entryTool:
			delete(t.tools, e.tool.id)
		default:
			kept = append(kept, e)
		}
	}
	t.entries = kept
}

// interruptTools marks calls that never got a result, so no spinner is
// left turning after a run ends.
func (t *transcript) interruptTools() {
	for _, e := range t.tools {
		if e.tool.running() {
			e.tool.state = toolInterrupted
			e.invalidate()
		}
		if e.tool.sub != nil {
			e.tool.sub.interrupt()
			e.invalidate()
		}
	}
}

// live reports whether any entry animates.
func (t *transcript) live() bool {
	for _, e := range t.tools {
		if e.tool.running() {
			return true
		}
	}
	return false
}

// invalidateAll drops every cache (colours changed).
func (t *transcript) invalidateAll() {
	for _, e := range t.entries {
		e.invalidate()
		e.md = mdCache{}
	}
}

// scroll moves the view by n lines (positive: up, into the past).
func (t *transcript) scroll(n int) {
	t.offset = max(0, t.offset+n)
}

// toTop scrolls to the first line (view clamps the offset).
func (t *transcript) toTop() { t.offset = 1 << 30 }

// toBottom follows the end again.
func (t *transcript) toBottom() { t.offset, t.pin = 0, pin{} }

// pin holds a scrolled view in place while the transcript grows below it:
// the entry at the top of the last frame and how many lines there were
// from its top to the end. Text streaming in below adds lines; the offset
// grows by as many, so what is being read does not move.
type pin struct {
	e        *entry
	lines    int
	width    int
	expanded bool
}

// view returns exactly height lines: the bottom of the transcript, or the
// part t.offset lines above it with a last line saying how many lines are
// below.
func (t *transcript) view(width, height int, rc renderCtx) []string {
	rows := height
	if t.offset > 0 && height > 1 {
		rows = height - 1 // the "lines below" marker
	}
	need := rows + t.offset
	var chunks [][]string
	n := 0
	var top *entry
	for i := len(t.entries) - 1; i >= 0 && n < need; i-- {
		e := t.entries[i]
		ls := e.lines(width, rc)
		chunks = append(chunks, ls)
		n += len(ls)
		top = e
		if t.offset > 0 && e == t.pin.e && t.pin.width == width && t.pin.expanded == rc.expanded {
			if grown := n - t.pin.lines; grown > 0 {
				t.offset += grown
				need += grown
			}
			t.pin.e = nil // counted once a frame
		}
	}
	if n-rows < t.offset {
		// Scrolled past the top: stop at the first line.
		t.offset = max(0, n-rows)
	}
	t.pin = pin{}
	if t.offset > 0 {
		t.pin = pin{e: top, lines: n, width: width, expanded: rc.expanded}
	}
	all := make([]string, 0, n)
	for i := len(chunks) - 1; i >= 0; i-- {
		all = append(all, chunks[i]...)
	}
	end := len(all) - t.offset
	start := max(0, end-rows)
	out := append([]string(nil), all[start:end]...)
	if len(out) < rows {
		// A short transcript sits at the top of its area.
		out = append(out, make([]string, rows-len(out))...)
	}
	if rows < height {
		if t.offset == 0 { // clamped at the top of a short transcript
			out = append(out, "")
		} else {
			out = append(out, rc.st.warn.Render(clipLine(fmt.Sprintf("  ↓ %d line%s below · end to return", t.offset, plural(t.offset)), width)))
		}
	}
	return out
}

// loadHistory rebuilds the transcript from a resumed conversation. Results
// are matched to their calls by id; the environment context nova puts in
// the first message is not shown.
func (t *transcript) loadHistory(msgs []llm.Message) {
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch {
			case p.Type == llm.PartText && m.Role == llm.RoleUser:
				s := strings.TrimSpace(p.Text)
				if note, ok := attachedNote(s); ok {
					t.add(&entry{kind: entryNotice, text: note})
				} else if s == agent.InterruptedNote || s == agent.InterruptedForToolNote {
					// The note kept for the model when the person stopped
					// a run: shown as it was live, not as their words.
					t.add(&entry{kind: entryNotice, text: "Interrupted"})
				} else if s != "" && !strings.HasPrefix(s, "<environment>") {
					t.add(&entry{kind: entryUser, text: s})
				}
			case p.Type == llm.PartText:
				if strings.TrimSpace(p.Text) != "" {
					t.add(&entry{kind: entryAssistant, text: p.Text})
				}
			case p.Type == llm.PartThinking && p.Text != "":
				t.add(&entry{kind: entryThinking, text: p.Text})
			case p.ToolCall != nil:
				c := p.ToolCall
				t.tools[c.ID] = t.add(&entry{kind: entryTool, tool: &toolEntry{id: c.ID, name: c.Name, input: c.Input}})
			case p.ToolResult != nil:
				if e, ok := t.tools[p.ToolResult.CallID]; ok {
					var out strings.Builder
					for _, c := range p.ToolResult.Content {
						out.WriteString(c.Text)
					}
					e.tool.finish(&agent.ToolResult{ID: p.ToolResult.CallID, Name: e.tool.name, Output: out.String(), IsError: p.ToolResult.IsError})
				}
			}
		}
	}
	t.interruptTools()
}

// tokens formats a token count compactly (12.3k).
func tokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
