package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// entryKind says what an entry of the transcript is.
type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryThinking
	entryTool
	entryNotice
	entryError
	entryInfo
	entryShell
)

// entry is one block of the transcript. Finished entries render once per
// width and keep the lines, so a long session costs no more per frame than
// a short one; only streaming text and running tools are drawn each frame.
type entry struct {
	kind      entryKind
	text      string
	streaming bool       // assistant or thinking text still arriving
	tool      *toolEntry // for entryTool
	title     string     // for entryShell: the command
	// printed says inline mode has taken the entry out of the live region
	// into the scrollback (or decided to leave it out); it is not drawn
	// again.
	printed bool

	cache         []string
	cacheWidth    int
	cacheExpanded bool
	cached        bool
	// md keeps an assistant message's rendered Markdown blocks, while it
	// streams and after.
	md mdCache
}

// renderCtx is what rendering an entry may depend on besides the entry.
type renderCtx struct {
	st       *styles
	md       *markdown
	expanded bool      // ctrl+o: tool calls and thinking shown in full
	frame    int       // spinner frame
	now      time.Time // for running durations
	root     string    // the workspace: paths in it are shown relative
}

// live reports whether the entry changes from frame to frame.
func (e *entry) live() bool {
	return e.streaming || (e.tool != nil && e.tool.running())
}

// invalidate drops the cached lines after the entry changed.
func (e *entry) invalidate() { e.cached = false }

// lines renders the entry at width, from the cache when possible. The
// first line is the blank that separates entries.
func (e *entry) lines(width int, rc renderCtx) []string {
	if e.cached && e.cacheWidth == width && e.cacheExpanded == rc.expanded {
		return e.cache
	}
	body := e.render(width, rc)
	if e.kind != entryAssistant { // renderBlocks clips each block once, when it renders it
		body = clip(body, width)
	}
	out := append([]string{""}, body...)
	if !e.live() {
		e.cache, e.cacheWidth, e.cacheExpanded, e.cached = out, width, rc.expanded, true
	}
	return out
}

func (e *entry) render(width int, rc renderCtx) []string {
	st := rc.st
	switch e.kind {
	case entryUser:
		body := strings.Split(wrapPlain(e.text, width-2), "\n")
		for i, l := range body {
			body[i] = st.userBar.Render("❯ ") + st.user.Render(l)
			if i > 0 {
				body[i] = st.userBar.Render("  ") + st.user.Render(l)
			}
		}
		return body
	case entryAssistant:
		// Block by block: while the message streams, each block is
		// rendered once it is complete and only the open one is raw.
		return rc.md.renderBlocks(e.text, width, &e.md, !e.streaming)
	case entryThinking:
		n := strings.Count(strings.TrimSpace(e.text), "\n") + 1
		if !rc.expanded {
			return []string{st.thinking.Render(fmt.Sprintf("✻ Thinking… (%d lines · ctrl+o to expand)", n))}
		}
		out := []string{st.thinking.Render("✻ Thinking")}
		for _, l := range indent(wrapPlain(strings.TrimSpace(e.text), width-2), "  ") {
			out = append(out, st.thinking.Render(l))
		}
		return out
	case entryTool:
		return e.tool.render(width, rc)
	case entryNotice:
		return styleLines(st.dim, indent(wrapPlain(e.text, width-2), "· "))
	case entryError:
		return styleLines(st.err, indent(wrapPlain(e.text, width-2), "✗ "))
	case entryShell:
		out := []string{st.toolName.Render("! ") + st.toolArg.Render(e.title)}
		return append(out, styleLines(st.dim, tail(indent(wrapPlain(e.text, width-4), "  ⎿ "), 12))...)
	default:
		return hanging(e.text, width)
	}
}

// hanging wraps each line of text at width, continuing an indented line
// two columns further in, so a wrapped item of a list (/mcp, /help)
// stays under its own heading.
func hanging(text string, width int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		body := strings.TrimLeft(l, " ")
		lead := len(l) - len(body)
		if lead == 0 || lead+12 > width {
			out = append(out, strings.Split(wrapPlain(l, width), "\n")...)
			continue
		}
		for i, w := range strings.Split(wrapPlain(body, width-lead-2), "\n") {
			pad := lead + 2
			if i == 0 {
				pad = lead
			}
			out = append(out, strings.Repeat(" ", pad)+w)
		}
	}
	return out
}

// wrapPlain wraps text at width, breaking long words. Tabs are expanded
// first: the renderer would drop them (tabs.go).
func wrapPlain(text string, width int) string {
	if width < 10 {
		width = 10
	}
	return ansi.Wrap(expandTabs(strings.TrimRight(text, "\n"), tabStop), width, "")
}

// indent prefixes the first line with first and the rest with as many spaces.
func indent(text, first string) []string {
	ls := strings.Split(text, "\n")
	pad := strings.Repeat(" ", ansi.StringWidth(first))
	for i := range ls {
		if i == 0 {
			ls[i] = first + ls[i]
		} else {
			ls[i] = pad + ls[i]
		}
	}
	return ls
}

func styleLines(s interface{ Render(...string) string }, ls []string) []string {
	for i, l := range ls {
		ls[i] = s.Render(l)
	}
	return ls
}

// clip makes sure no line is wider than the screen, which would make the
// terminal wrap it and throw the layout off.
func clip(ls []string, width int) []string {
	for i, l := range ls {
		if ansi.StringWidth(l) > width {
			ls[i] = ansi.Truncate(l, width, "…")
		}
	}
	return ls
}

// tail keeps the last n lines, saying how many were left out.
func tail(ls []string, n int) []string {
	if len(ls) <= n {
		return ls
	}
	return append([]string{fmt.Sprintf("  … %d lines above", len(ls)-n)}, ls[len(ls)-n:]...)
}
