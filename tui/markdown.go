package tui

import (
	"strings"

	"charm.land/glamour/v2"
)

// markdown renders finished assistant messages. The glamour renderer is
// made on first use, not at start-up: building it loads styles and the
// syntax highlighter, which would slow the first frame.
type markdown struct {
	dark     bool
	width    int
	renderer *glamour.TermRenderer
}

// render returns text as styled Markdown wrapped to width; on a renderer
// error the plain text is shown rather than nothing.
func (m *markdown) render(text string, width int) string {
	if m.renderer == nil || m.width != width {
		style := "light"
		if m.dark {
			style = "dark"
		}
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width))
		if err != nil {
			return wrapPlain(text, width)
		}
		m.renderer, m.width = r, width
	}
	out, err := m.renderer.Render(text)
	if err != nil {
		return wrapPlain(text, width)
	}
	return strings.Trim(out, "\n")
}

// setDark switches the style; the renderer is rebuilt on next use.
func (m *markdown) setDark(dark bool) {
	if m.dark != dark {
		m.dark, m.renderer = dark, nil
	}
}
