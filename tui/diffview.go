package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/tools/display"
)

// diffTab is how wide a tab in a diff is: code reads as in an editor, and
// a diff keeps more of a line than at the terminal's 8.
const diffTab = 4

// collapsedDiffLines is how much of an edit's diff stays under its call in
// the transcript while collapsed; ctrl+o shows all of it.
const collapsedDiffLines = 6

// numberedDiff shows a unified diff (the tools' newFileDiff) as a person
// reads a change: each line with its number in the file (the new number
// for kept and added lines, the old for removed ones), a + or - and the
// code; hunks apart by a ⋮. The --- and +++ headers are left out: the
// path is said where the diff is shown.
func numberedDiff(diff string, st *styles) []string {
	type row struct {
		n    int
		mark byte
		text string
	}
	var rows []row
	oldN, newN, maxN := 0, 0, 0
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, `\`):
		case strings.HasPrefix(l, "@@"):
			o, n := hunkStarts(l)
			if len(rows) > 0 {
				rows = append(rows, row{mark: '~'})
			}
			oldN, newN = o, n
			maxN = max(maxN, o, n)
		case l == "":
		default:
			r := row{mark: l[0], text: expandTabs(l[1:], diffTab)}
			switch r.mark {
			case '-':
				r.n, oldN = oldN, oldN+1
			case '+':
				r.n, newN = newN, newN+1
			default:
				r.mark = ' '
				r.n, oldN, newN = newN, oldN+1, newN+1
			}
			maxN = max(maxN, r.n)
			rows = append(rows, r)
		}
	}
	w := len(strconv.Itoa(max(maxN, 1)))
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		switch r.mark {
		case '~':
			out = append(out, st.dim.Render(fmt.Sprintf("%*s", w, "⋮")))
		case '+':
			out = append(out, st.diffAdd.Render(fmt.Sprintf("%*d + %s", w, r.n, r.text)))
		case '-':
			out = append(out, st.diffDel.Render(fmt.Sprintf("%*d - %s", w, r.n, r.text)))
		default:
			out = append(out, st.dim.Render(fmt.Sprintf("%*d", w, r.n))+"   "+r.text)
		}
	}
	return out
}

// hunkStarts reads "@@ -a,b +c,d @@": the first old and new line numbers.
// An empty side ("-0,0") names the line before it; its number is never
// shown, since no line of that side follows.
func hunkStarts(h string) (oldN, newN int) {
	f := strings.Fields(h)
	num := func(s string) int {
		s = strings.TrimLeft(s, "-+")
		s, _, _ = strings.Cut(s, ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	if len(f) >= 3 {
		oldN, newN = num(f[1]), num(f[2])
	}
	return max(oldN, 1), max(newN, 1)
}

// diffHeader names a changed file and what changed in it.
func diffHeader(f display.FileDiff, st *styles) string {
	return st.toolName.Render(f.Path) + " " + st.diffAdd.Render(fmt.Sprintf("+%d", f.Added)) + " " + st.diffDel.Render(fmt.Sprintf("-%d", f.Removed))
}

// diffsView is every file of a diff display, each under its header when
// there are several (one file's path is already on the line above).
func diffsView(d *display.Display, st *styles) []string {
	var out []string
	for _, f := range d.Diffs {
		if len(d.Diffs) > 1 {
			out = append(out, diffHeader(f, st))
		}
		out = append(out, numberedDiff(f.Diff, st)...)
	}
	return out
}
