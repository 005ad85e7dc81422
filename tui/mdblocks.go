package tui

import (
	"regexp"
	"strings"
)

// splitBlocks cuts Markdown into its top-level blocks (paragraphs, headings,
// lists, fenced code, tables), each of which renders alone as it would in
// the whole message. A streaming message is rendered block by block: closed
// blocks are complete and are rendered as Markdown once (and cached), open
// is the block still arriving, shown raw. The finished message is cut the
// same way with final set, so it does not jump when the stream ends.
//
// A block is closed only by complete lines, so a cut, once made, stays
// where it is as more text arrives:
//   - after a blank line, except in a list, whose items may be separated by
//     blank lines: there the next line decides (an indented line or another
//     item continues the list);
//   - after the closing fence of a fenced block opened outside a list;
//   - around a table (a header row followed by a delimiter row, up to a
//     blank line or another block), which nova draws itself (mdtable.go).
func splitBlocks(text string, final bool) (closed []string, open string) {
	lines := splitLinesKeep(text)
	if !final && len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines = lines[:len(lines)-1] // the line still arriving
	}
	var (
		start, off   int  // the block's first byte; the current line's
		empty        bool // the block has no line that is not blank yet
		list         bool // the block holds a list
		inTable      bool
		pendingBlank bool // in a list, a blank line waits for the next line
		fence        string
		fenceTop     bool
	)
	empty = true
	cut := func(at int) {
		if b := text[start:at]; strings.TrimSpace(b) != "" {
			closed = append(closed, b)
		}
		start, empty, list, inTable, pendingBlank = at, true, false, false, false
	}
	for i, l := range lines {
		next := off + len(l)
		body := strings.TrimRight(l, "\r\n")
		blank := strings.TrimSpace(body) == ""
		switch {
		case fence != "":
			if closesFence(body, fence) {
				fence = ""
				if fenceTop {
					cut(next)
				}
			}
			off = next
			continue
		case inTable && (blank || startsBlock(body)):
			cut(off)
		}
		switch {
		case blank && empty:
			start = next // blank lines between blocks belong to none
		case blank && !list:
			cut(next)
		case blank:
			pendingBlank = true
		default:
			if pendingBlank && !(indented(body) || listItem(body)) {
				cut(off)
			}
			pendingBlank = false
			if !inTable && !list && i+1 < len(lines) && strings.Contains(body, "|") && delimiterRow(strings.TrimRight(lines[i+1], "\r\n")) {
				if !empty {
					cut(off)
				}
				inTable = true
			}
			if !inTable {
				if f := opensFence(body); f != "" {
					fence, fenceTop = f, !list
				} else if listItem(body) {
					list = true
				}
			}
			empty = false
		}
		off = next
	}
	if final {
		cut(len(text))
		return closed, ""
	}
	return closed, text[start:]
}

// splitLinesKeep splits text into lines that keep their "\n".
func splitLinesKeep(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// opensFence returns the fence a line opens (``` or ~~~, three or more,
// indented at most three spaces), or "".
func opensFence(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || t[0] == '`' && strings.Contains(t[n:], "`") {
		return ""
	}
	return t[:n]
}

// closesFence reports whether l closes fence: the same character, at least
// as many, nothing after but spaces.
func closesFence(l, fence string) bool {
	t := strings.TrimLeft(l, " \t")
	n := 0
	for n < len(t) && t[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(t[n:]) == ""
}

var (
	listItemRE  = regexp.MustCompile(`^ {0,3}([-*+]|\d{1,9}[.)])([ \t]|$)`)
	delimiterRE = regexp.MustCompile(`^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
)

func listItem(l string) bool { return listItemRE.MatchString(l) }

func indented(l string) bool { return l != "" && (l[0] == ' ' || l[0] == '\t') }

// delimiterRow is a table's second line: |---|:--:|.
func delimiterRow(l string) bool { return strings.Contains(l, "|") && delimiterRE.MatchString(l) }

// startsBlock reports whether l begins a block that ends a table.
func startsBlock(l string) bool {
	t := strings.TrimLeft(l, " ")
	return strings.HasPrefix(t, "#") || strings.HasPrefix(t, ">") || opensFence(l) != ""
}
