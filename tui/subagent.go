package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/agent"
)

// A subagent's work arrives as events carrying the id of the Agent call
// it works for (agent.Event.ParentToolUseID). It is shown under that
// call, never as the run's own answer, todo list or context: collapsed,
// a header "Explore(description) · N tool uses" and the latest line of
// activity; expanded (ctrl+o, as diffs), every call and message of it.

// subagent is the nested work of one Agent call.
type subagent struct {
	ref   agent.AgentRef
	items []*subItem
	tools map[string]*toolEntry // its calls by id
	text  *subItem              // its text streaming now
	uses  int
	// turnStart is the index of the first item of its current turn, for a
	// response that starts over.
	turnStart int
}

// subItem is one thing a subagent did: a tool call, or text it wrote (a
// message, a notice, an error).
type subItem struct {
	tool *toolEntry
	text string
	err  bool
}

// isAgentCall reports whether a call is a subagent's: the Agent tool (or
// Claude Code's older name for it, Task), or any call work was nested
// under.
func (t *toolEntry) isAgentCall() bool {
	return t.sub != nil || t.name == "Agent" || t.name == "Task"
}

// applySub folds a subagent's event into the Agent call it belongs to.
func (t *transcript) applySub(ev agent.Event, now time.Time) {
	e, ok := t.tools[ev.ParentToolUseID]
	if !ok {
		// Its call's own event never came (a frontend attached mid-run):
		// the work still gets a line of its own.
		e = t.add(&entry{kind: entryTool, tool: &toolEntry{id: ev.ParentToolUseID, name: "Agent", started: now}})
		t.tools[ev.ParentToolUseID] = e
	}
	s := e.tool.sub
	if s == nil {
		s = &subagent{tools: map[string]*toolEntry{}}
		e.tool.sub = s
	}
	if ev.Agent != nil {
		s.ref = *ev.Agent
	}
	e.invalidate()
	switch ev.Type {
	case agent.EventTextDelta:
		if s.text == nil {
			s.text = &subItem{}
			s.items = append(s.items, s.text)
		}
		s.text.text += ev.Text
	case agent.EventToolCall:
		s.text = nil
		c := ev.ToolCall
		te := &toolEntry{id: c.ID, name: c.Name, input: c.Input, started: now}
		s.tools[c.ID] = te
		s.items = append(s.items, &subItem{tool: te})
		s.uses++
	case agent.EventToolProgress:
		if te, ok := s.tools[ev.Progress.CallID]; ok && te.running() {
			p := *ev.Progress
			te.progress = &p
		}
	case agent.EventToolResult:
		if te, ok := s.tools[ev.Result.ID]; ok {
			te.finish(ev.Result)
		}
	case agent.EventTurnStart:
		s.text = nil
		s.turnStart = len(s.items)
	case agent.EventTurnEnd:
		s.text = nil
	case agent.EventRetry:
		if ev.Retry != nil && ev.Retry.DiscardPartial {
			s.discardTurn()
		}
	case agent.EventNotice:
		s.text = nil
		s.items = append(s.items, &subItem{text: ev.Text})
	case agent.EventError:
		s.text = nil
		s.items = append(s.items, &subItem{text: ev.Text, err: true})
	}
	// Todos, context and done events of a subagent are its own business:
	// the run's todo list and context figure are the lead's.
}

// discardTurn drops what the subagent's current turn streamed: its
// response is starting over.
func (s *subagent) discardTurn() {
	s.text = nil
	start := min(s.turnStart, len(s.items))
	kept := s.items[:start]
	for _, it := range s.items[start:] {
		if it.tool != nil {
			delete(s.tools, it.tool.id)
			s.uses--
			continue
		}
		if it.err || it.text == "" {
			kept = append(kept, it)
		}
	}
	s.items = kept
}

// interrupt marks its calls that never got a result.
func (s *subagent) interrupt() {
	for _, te := range s.tools {
		if te.running() {
			te.state = toolInterrupted
		}
	}
}

// agentTitle is the Agent call's type and description: the subagent's
// own once its events name it, the call's input before.
func (t *toolEntry) agentTitle() (typ, desc string) {
	var in struct {
		Type        string `json:"subagent_type"`
		Description string `json:"description"`
	}
	_ = json.Unmarshal(t.input, &in)
	typ, desc = in.Type, in.Description
	if t.sub != nil && t.sub.ref.Type != "" {
		typ = t.sub.ref.Type
	}
	if t.sub != nil && t.sub.ref.Description != "" {
		desc = t.sub.ref.Description
	}
	if typ == "" {
		typ = t.name
	}
	return typ, firstLine(desc)
}

// agentUses is "3 tool uses"; "" for a finished call whose work was
// never seen (a resumed session keeps the call, not the subagent's work).
func (t *toolEntry) agentUses() string {
	n := 0
	switch {
	case t.sub != nil:
		n = t.sub.uses
	case t.result != nil:
		return ""
	}
	return fmt.Sprintf("%d tool use%s", n, plural(n))
}

// renderAgent draws an Agent call: its header, then the latest line of
// the subagent's activity (collapsed) or all of it (expanded), then how
// it ended.
func (t *toolEntry) renderAgent(icon, dur string, width int, rc renderCtx) []string {
	st := rc.st
	typ, desc := t.agentTitle()
	head := icon + " " + st.toolName.Render(typ)
	if desc != "" {
		head += st.toolArg.Render("(" + desc + ")")
	}
	if u := t.agentUses(); u != "" {
		head += st.dim.Render(" · " + u)
	}
	if dur != "" {
		head += st.dim.Render(" · " + dur)
	}
	switch t.state {
	case toolFailed, toolDenied:
		head += st.dim.Render(" · ") + st.err.Render(t.summary())
	case toolInterrupted:
		head += st.dim.Render(" · interrupted")
	}
	out := []string{head}
	if !rc.expanded {
		if l := t.agentLatest(width-4, rc); l != "" {
			out = append(out, indent(l, "  ⎿ ")...)
		}
		return out
	}
	var body []string
	if t.sub != nil {
		for _, it := range t.sub.items {
			body = append(body, it.lines(width-4, rc)...)
		}
	}
	if r := t.result; r != nil && t.state == toolDone {
		ls := strings.Split(wrapPlain(r.Output, width-4), "\n")
		if len(ls) > 20 {
			ls = append(ls[:20], st.dim.Render(fmt.Sprintf("… %d more lines", len(ls)-20)))
		}
		body = append(body, ls...)
	}
	if len(body) == 0 {
		return out
	}
	return append(out, indent(strings.Join(body, "\n"), "  ⎿ ")...)
}

// agentLatest is the one line a collapsed Agent call shows under its
// header: what the subagent does now, or its answer once it is done.
func (t *toolEntry) agentLatest(width int, rc renderCtx) string {
	st := rc.st
	if t.result != nil {
		if t.state != toolDone {
			return ""
		}
		s := firstLine(t.result.Output)
		if n := countLines(t.result.Output); n > 1 {
			s += fmt.Sprintf(" (+%d lines · ctrl+o to expand)", n-1)
		}
		return st.dim.Render(s)
	}
	if t.sub == nil || len(t.sub.items) == 0 {
		if t.state == toolInterrupted {
			return ""
		}
		return st.dim.Render("starting…")
	}
	it := t.sub.items[len(t.sub.items)-1]
	if it.tool != nil {
		return it.tool.headLine(width, rc)
	}
	ls := strings.Split(strings.TrimSpace(it.text), "\n")
	l := strings.TrimSpace(ls[len(ls)-1])
	if it.err {
		return st.err.Render(l)
	}
	return st.dim.Render(l)
}

// lines is an item as it is shown in an expanded Agent call: a call as
// the transcript shows one (collapsed: its line and a diff's start), text
// dimmed, wrapped.
func (it *subItem) lines(width int, rc renderCtx) []string {
	if it.tool != nil {
		flat := rc
		flat.expanded = false
		return it.tool.render(width, flat)
	}
	s := rc.st.dim
	if it.err {
		s = rc.st.err
	}
	text := strings.TrimSpace(it.text)
	if text == "" {
		return nil
	}
	return styleLines(s, strings.Split(wrapPlain(text, width), "\n"))
}
