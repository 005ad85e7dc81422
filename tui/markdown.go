package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	glamourstyles "charm.land/glamour/v2/styles"
	xansi "github.com/charmbracelet/x/ansi"
)

// markdown renders assistant messages. The glamour renderer is made on
// first use, not at start-up: building it loads styles and the syntax
// highlighter, which would slow the first frame.
type markdown struct {
	dark     bool
	width    int
	renderer *glamour.TermRenderer
	// blocks counts the blocks rendered, for the tests that hold a stream
	// to rendering each block once.
	blocks int
}

// mdCache keeps the rendered blocks of one message, so a streaming message
// renders each block once, when it closes, and a frame costs the wrapping
// of the open block alone.
type mdCache struct {
	width  int
	blocks []mdBlock
}

type mdBlock struct {
	src   string
	lines []string
}

// render returns text as styled Markdown wrapped to width.
func (m *markdown) render(text string, width int) string {
	return strings.Join(m.renderBlocks(text, width, nil, true), "\n")
}

// renderBlocks renders text block by block (splitBlocks): the closed blocks
// as Markdown, from c when they were rendered before at this width, and,
// unless final, the open block raw. A blank line separates blocks, as in
// glamour's rendering of the whole.
func (m *markdown) renderBlocks(text string, width int, c *mdCache, final bool) []string {
	if c == nil {
		c = &mdCache{}
	}
	if c.width != width {
		*c = mdCache{width: width}
	}
	closed, open := splitBlocks(text, final)
	for i, src := range closed {
		if i < len(c.blocks) && c.blocks[i].src == src {
			continue
		}
		c.blocks = append(c.blocks[:i], mdBlock{src: src, lines: clip(m.block(src, width), width)})
	}
	c.blocks = c.blocks[:len(closed)]
	var out []string
	for i, b := range c.blocks {
		if i > 0 {
			out = append(out, "")
		}
		out = append(out, b.lines...)
	}
	if strings.TrimSpace(open) != "" {
		if len(out) > 0 {
			out = append(out, "")
		}
		// The open block is shown as it came, where glamour's margin would
		// put it, so it does not move sideways when it closes.
		out = append(out, clip(indent(wrapPlain(strings.Trim(open, "\n"), width-2), "  "), width)...)
	}
	return out
}

// block renders one closed block: a table by nova (mdtable.go), anything
// else by glamour; on a renderer error the plain text is shown rather
// than nothing. Tabs are expanded first, in the source, where their
// columns are the ones the author meant (a code block's own), and then in
// case glamour's output still has any.
func (m *markdown) block(src string, width int) []string {
	m.blocks++
	src = expandTabs(src, tabStop)
	if t, ok := parseTable(src); ok {
		return m.renderTable(t, width)
	}
	r := m.glamour(width)
	if r == nil {
		return strings.Split(wrapPlain(src, width), "\n")
	}
	out, err := r.Render(src)
	if err != nil {
		return strings.Split(wrapPlain(src, width), "\n")
	}
	return trimBlank(strings.Split(expandTabs(out, tabStop), "\n"))
}

// trimBlank drops the blank lines glamour puts around a document (lines
// of spaces, possibly styled), so blocks are joined with exactly one.
func trimBlank(ls []string) []string {
	blank := func(l string) bool { return strings.TrimSpace(xansi.Strip(l)) == "" }
	for len(ls) > 0 && blank(ls[0]) {
		ls = ls[1:]
	}
	for len(ls) > 0 && blank(ls[len(ls)-1]) {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// glamour returns the renderer for width, made when first needed.
func (m *markdown) glamour(width int) *glamour.TermRenderer {
	if m.renderer != nil && m.width == width {
		return m.renderer
	}
	r, err := glamour.NewTermRenderer(glamour.WithStyles(mdStyle(m.dark)), glamour.WithWordWrap(width),
		// A single newline stays a line break, as Claude Code shows it:
		// models write one fact per line ("Files changed: 2\nTests: 14
		// passed") far more often than they hard-wrap prose.
		glamour.WithPreservedNewLines())
	if err != nil {
		return nil
	}
	m.renderer, m.width = r, width
	return r
}

// mdStyle is glamour's standard style without the "## " glamour puts in
// front of headings: they are told apart by colour and weight, as in
// Claude Code, and a heading copied from the screen is its text.
func mdStyle(dark bool) ansi.StyleConfig {
	s := glamourstyles.LightStyleConfig
	if dark {
		s = glamourstyles.DarkStyleConfig
	}
	for _, h := range []*ansi.StyleBlock{&s.H2, &s.H3, &s.H4, &s.H5, &s.H6} {
		h.Prefix = ""
	}
	return s
}

// setDark switches the style; the renderer is rebuilt on next use.
func (m *markdown) setDark(dark bool) {
	if m.dark != dark {
		m.dark, m.renderer = dark, nil
	}
}
