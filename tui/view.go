package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// View implements tea.Model. The program runs in the alternate screen
// without mouse capture, so the terminal's own selection keeps working and
// the transcript scrolls with PgUp/PgDn; or, in inline mode, in the normal
// screen with only the live region drawn (inline.go).
func (m *Model) View() tea.View {
	if m.inl.on {
		lines, inputTop := m.liveView()
		m.inl.lastH = len(lines)
		m.inl.tallest = max(m.inl.tallest, len(lines))
		v := tea.NewView(strings.Join(lines, "\n"))
		v.WindowTitle = "nova"
		if c := m.in.ta.Cursor(); c != nil && inputTop >= 0 {
			c.Y += inputTop
			v.Cursor = c
		}
		return v
	}
	bottom, inputTop := m.bottom()
	h := max(1, m.height-len(bottom))
	lines := m.tr.view(m.width, h, m.renderCtx())
	v := tea.NewView(strings.Join(append(lines, bottom...), "\n"))
	v.AltScreen = true
	v.WindowTitle = "nova"
	if inputTop >= 0 {
		if c := m.in.ta.Cursor(); c != nil {
			c.Y += h + inputTop
			v.Cursor = c
		}
	}
	return v
}

func (m *Model) renderCtx() renderCtx {
	return renderCtx{st: &m.st, md: m.md, expanded: m.expanded, frame: m.frame, now: m.now(), root: m.status.Cwd}
}

// transcriptHeight is the number of rows the transcript gets this frame.
func (m *Model) transcriptHeight() int {
	b, _ := m.bottom()
	return max(1, m.height-len(b))
}

// bottom is everything under the transcript: the dialog, or the todo list,
// suggestions and the input; then the activity line and the status line.
// inputTop is the row of the input within it, or -1 when a dialog has the
// keyboard.
func (m *Model) bottom() (lines []string, inputTop int) {
	inputTop = -1
	if len(m.dialogs) > 0 {
		// A dialog that can use the screen's height is told it.
		if fd, ok := m.dialogs[0].(interface {
			fit(width, height int, st *styles)
		}); ok {
			h := m.height
			if m.inl.on {
				h = m.liveCap() // a third of the screen is left to print above
			}
			fd.fit(m.width, h, &m.st)
		}
		lines = append(lines, "")
		lines = append(lines, strings.Split(m.dialogs[0].view(m.width, &m.st), "\n")...)
	} else {
		if m.run != nil {
			lines = append(lines, todosView(m.todos, m.width, &m.st)...)
		}
		lines = append(lines, m.in.comp.view(m.width, &m.st)...)
		lines = append(lines, queuedView(m.queued, m.width, &m.st)...)
		lines = append(lines, m.st.dim.Render(strings.Repeat("─", m.width)))
		inputTop = len(lines)
		lines = append(lines, strings.Split(m.in.ta.View(), "\n")...)
		lines = append(lines, m.st.dim.Render(strings.Repeat("─", m.width)))
	}
	s := m.status
	s.shared = m.share.runs != nil
	lines = append(lines, m.activity())
	if m.sl.text != "" {
		// The statusLine command's line, over nova's own, which keeps the
		// model, mode and cost in view whatever the command prints.
		lines = append(lines, clipLine(m.sl.text, m.width))
	}
	lines = append(lines, statusView(s, m.width, &m.st))
	return lines, inputTop
}

// queuedView lists the prompts waiting for nova to stop, one line each.
func queuedView(queued []string, width int, st *styles) []string {
	var lines []string
	for _, q := range queued {
		first, _, more := strings.Cut(q, "\n")
		if more {
			first += " …"
		}
		lines = append(lines, st.dim.Render(clipLine("⏵ queued: "+first, width)))
	}
	if len(lines) > 0 {
		lines = append(lines, st.dim.Render(clipLine("  sent when nova stops · esc edits", width)))
	}
	return lines
}

// activity is the line that says what nova is doing, or a hint.
func (m *Model) activity() string {
	spin := spinnerFrames[m.frame%len(spinnerFrames)]
	switch {
	case m.run != nil && m.hint != "":
		return m.st.warn.Render(spin + " " + m.hint)
	case m.run != nil:
		el := m.now().Sub(m.run.started)
		return m.st.warn.Render(fmt.Sprintf("%s Working… %s · esc to interrupt", spin, formatDuration(el.Truncate(100_000_000))))
	case m.busy != "":
		return m.st.warn.Render(spin + " " + m.busy)
	case m.hint != "":
		return m.st.dim.Render(m.hint)
	case m.expanded:
		return m.st.dim.Render("? for keys · ctrl+o collapse")
	}
	return m.st.dim.Render("? for keys · ctrl+o expand")
}
