package tui

import (
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
)

// mdTable is a GFM table: a header row, a delimiter row with the columns'
// alignment, body rows.
type mdTable struct {
	header []string
	align  []lipgloss.Position
	rows   [][]string
}

// parseTable reads a block that splitBlocks cut as a table; ok is false
// for anything else.
func parseTable(block string) (t mdTable, ok bool) {
	lines := strings.Split(strings.TrimRight(block, "\r\n"), "\n")
	if len(lines) < 2 || !delimiterRow(strings.TrimRight(lines[1], "\r")) {
		return t, false
	}
	t.header = tableCells(lines[0])
	for _, c := range tableCells(lines[1]) {
		c = strings.TrimSpace(c)
		switch {
		case strings.HasPrefix(c, ":") && strings.HasSuffix(c, ":"):
			t.align = append(t.align, lipgloss.Center)
		case strings.HasSuffix(c, ":"):
			t.align = append(t.align, lipgloss.Right)
		default:
			t.align = append(t.align, lipgloss.Left)
		}
	}
	for _, l := range lines[2:] {
		row := tableCells(l)
		// GFM: a row has the header's number of cells, padded or cut.
		for len(row) < len(t.header) {
			row = append(row, "")
		}
		t.rows = append(t.rows, row[:len(t.header)])
	}
	return t, true
}

// tableCells splits a row at the pipes that are not escaped or inside a
// code span.
func tableCells(l string) []string {
	l = strings.TrimSpace(strings.TrimRight(l, "\r"))
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var cells []string
	var cur strings.Builder
	code := false
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case c == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '`':
			code = !code
			cur.WriteByte(c)
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// renderTable draws the table in a frame sized to its content, narrower
// than width: glamour stretches every table to the full width without a
// frame, so a two-column table of short words spread over the screen.
// Cells wrap only when the content does not fit.
func (m *markdown) renderTable(t mdTable, width int) []string {
	border := lipgloss.NewStyle().Foreground(lipgloss.LightDark(m.dark)(lipgloss.Color("#9A9A9A"), lipgloss.Color("#6B6B6B")))
	head := lipgloss.NewStyle().Bold(true)
	inner := max(10, width-2) // glamour's margin
	tb := table.New().Border(lipgloss.RoundedBorder()).BorderStyle(border).
		Width(inner).FitContent().Wrap(true).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := lipgloss.NewStyle().Padding(0, 1)
			if col < len(t.align) {
				s = s.Align(t.align[col])
			}
			if row == table.HeaderRow {
				s = s.Inherit(head)
			}
			return s
		})
	tb.Headers(m.inlineAll(t.header)...)
	for _, r := range t.rows {
		tb.Row(m.inlineAll(r)...)
	}
	return indent(tb.String(), "  ")
}

func (m *markdown) inlineAll(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = m.inline(c)
	}
	return out
}

var (
	inlineCodeRE   = regexp.MustCompile("`([^`]+)`")
	inlineStrongRE = regexp.MustCompile(`\*\*([^*]+)\*\*|__([^_]+)__`)
	inlineEmRE     = regexp.MustCompile(`\*([^*]+)\*|\b_([^_]+)_\b`)
	inlineLinkRE   = regexp.MustCompile(`\[([^\]]+)\]\(([^)]+)\)`)
)

// inline renders the Markdown a table cell may hold: code spans, strong,
// emphasis and links (as their text). Code spans are set aside first so
// that the stars inside them stay stars.
func (m *markdown) inline(s string) string {
	code := lipgloss.NewStyle().Foreground(lipgloss.LightDark(m.dark)(lipgloss.Color("#B5306E"), lipgloss.Color("#FF7AB2")))
	var spans []string
	s = inlineCodeRE.ReplaceAllStringFunc(s, func(c string) string {
		spans = append(spans, code.Render(c[1:len(c)-1]))
		return "\x00"
	})
	s = inlineLinkRE.ReplaceAllString(s, "$1")
	s = inlineStrongRE.ReplaceAllStringFunc(s, func(c string) string {
		return lipgloss.NewStyle().Bold(true).Render(c[2 : len(c)-2])
	})
	s = inlineEmRE.ReplaceAllStringFunc(s, func(c string) string {
		return lipgloss.NewStyle().Italic(true).Render(c[1 : len(c)-1])
	})
	for _, sp := range spans {
		s = strings.Replace(s, "\x00", sp, 1)
	}
	return s
}
