package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// tabStop is where a terminal's tab stops are: every 8 columns.
const tabStop = 8

// expandTabs replaces each tab by the spaces up to the next multiple of
// stop columns, counted from the start of its line, as a terminal would.
// The screen is a grid of cells drawn by Bubble Tea's renderer, which has no
// cell for a tab and drops it: a Go block or a Makefile would lose its
// indentation. Escape sequences (colour) take no columns, so styled text
// (glamour's output) expands as the plain text would.
func expandTabs(s string, stop int) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	col := 0
	var state byte
	for len(s) > 0 {
		seq, width, n, next := ansi.DecodeSequence(s, state, nil)
		state = next
		switch seq {
		case "\t":
			pad := stop - col%stop
			b.WriteString(strings.Repeat(" ", pad))
			col += pad
		case "\n":
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteString(seq)
			col += width
		}
		s = s[n:]
	}
	return b.String()
}
