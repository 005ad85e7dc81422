package tools

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/tools/display"
)

// FileDiff is one changed file as frontends show it.
type FileDiff = display.FileDiff

// diffContext is how many unchanged lines surround each change in a hunk.
const diffContext = 3

// maxDiffEdits bounds the Myers search: its trace costs (D+1)² ints, so past
// this many differing lines the middle of the files is shown as removed and
// re-added instead of minimally. The diff stays correct, only less tight.
const maxDiffEdits = 1000

// lineOp is one line of an edit script: ' ' kept, '-' removed, '+' added.
// a and b are the positions in old and new before the line is consumed.
type lineOp struct {
	kind byte
	a, b int
	text string
}

// UnifiedDiff returns the unified diff (3 lines of context) turning old into
// new, headed by path; it is empty when the two are equal.
func UnifiedDiff(path, old, new string) string {
	d, _, _ := unifiedDiff(path, old, new)
	return d
}

// newFileDiff builds the Display value for a change of path.
func newFileDiff(path, old, new string) FileDiff {
	d, added, removed := unifiedDiff(path, old, new)
	return FileDiff{Path: path, Diff: d, Added: added, Removed: removed}
}

// unifiedDiff diffs only the lines that differ, with diffContext lines
// either side for the hunks: an Edit of a few lines in a large file costs a
// byte comparison of the rest, not splitting and interning every line of
// both versions.
func unifiedDiff(path, old, new string) (string, int, int) {
	if old == new {
		return "", 0, 0
	}
	lo, hiOld, hiNew := diffWindow(old, new)
	ops := diffLineOps(splitKeepEnds(old[lo:hiOld]), splitKeepEnds(new[lo:hiNew]))
	if skipped := strings.Count(old[:lo], "\n"); skipped > 0 {
		for i := range ops {
			ops[i].a += skipped
			ops[i].b += skipped
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", path, path)
	added, removed := 0, 0
	for _, op := range ops {
		switch op.kind {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	for _, h := range diffHunks(ops) {
		writeHunk(&b, ops[h[0]:h[1]])
	}
	return b.String(), added, removed
}

// diffWindow returns the part of old and new worth diffing: from lo (the
// same offset in both) to hiOld and hiNew, the lines between their common
// head and tail widened by diffContext lines either side. Head and tail are
// whole lines, so a last line without "\n" is never common with one that
// has it.
func diffWindow(old, new string) (lo, hiOld, hiNew int) {
	n := min(len(old), len(new))
	pre := 0
	for pre < n && old[pre] == new[pre] {
		pre++
	}
	pre = strings.LastIndexByte(old[:pre], '\n') + 1
	suf := 0
	for suf < n-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
	for suf > 0 && !(atLineStart(old, len(old)-suf) && atLineStart(new, len(new)-suf)) {
		suf--
	}
	lo = pre
	for i := 0; i < diffContext && lo > 0; i++ {
		lo = strings.LastIndexByte(old[:lo-1], '\n') + 1
	}
	return lo, linesAfter(old, len(old)-suf, diffContext), linesAfter(new, len(new)-suf, diffContext)
}

func atLineStart(s string, i int) bool { return i == 0 || s[i-1] == '\n' }

// linesAfter returns the offset just past the n lines of s that start at
// off, a line start; len(s) when fewer are left.
func linesAfter(s string, off, n int) int {
	for ; n > 0 && off < len(s); n-- {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return len(s)
		}
		off += i + 1
	}
	return off
}

// splitKeepEnds splits s into lines that keep their "\n", so a last line
// without one differs from the same line with one.
func splitKeepEnds(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffHunks groups ops into [start, end) ranges: each change with its
// context, merging changes whose contexts touch.
func diffHunks(ops []lineOp) [][2]int {
	var hunks [][2]int
	i := 0
	for i < len(ops) {
		c := i
		for c < len(ops) && ops[c].kind == ' ' {
			c++
		}
		if c == len(ops) {
			break
		}
		start := max(c-diffContext, i)
		end := c
		for {
			j := end + 1
			if j < len(ops) && ops[j].kind != ' ' {
				end = j
				continue
			}
			k := j
			for k < len(ops) && ops[k].kind == ' ' {
				k++
			}
			if k < len(ops) && k-j <= 2*diffContext {
				end = k
				continue
			}
			break
		}
		stop := min(len(ops), end+1+diffContext)
		hunks = append(hunks, [2]int{start, stop})
		i = stop
	}
	return hunks
}

func writeHunk(b *strings.Builder, ops []lineOp) {
	aCount, bCount := 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			aCount++
		}
		if op.kind != '-' {
			bCount++
		}
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(ops[0].a, aCount), hunkRange(ops[0].b, bCount))
	for _, op := range ops {
		b.WriteByte(op.kind)
		b.WriteString(op.text)
		if !strings.HasSuffix(op.text, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats a hunk side as GNU diff does: an empty range names the
// line before it, a one-line range omits its count.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

// diffLineOps returns a shortest edit script from a to b (Myers), after
// trimming the common head and tail (diffWindow left diffContext lines of
// each, which come back as kept lines).
func diffLineOps(a, b []string) []lineOp {
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x, y := intern(a), intern(b)
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	ops := make([]lineOp, 0, len(a)+len(b))
	for i := 0; i < pre; i++ {
		ops = append(ops, lineOp{' ', i, i, a[i]})
	}
	for _, op := range myers(x[pre:len(x)-suf], y[pre:len(y)-suf]) {
		op.a += pre
		op.b += pre
		if op.kind == '+' {
			op.text = b[op.b]
		} else {
			op.text = a[op.a]
		}
		ops = append(ops, op)
	}
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, lineOp{' ', ai, bi, a[ai]})
	}
	return ops
}

// myers computes the edit script of a to b; ops carry positions only.
func myers(a, b []int32) []lineOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(n, m)
	}
	limit := min(n+m, maxDiffEdits)
	off := limit + 1 // |k| <= d <= limit, and k±1 is read
	v := make([]int, 2*off+1)
	var trace [][]int // trace[d] holds v[-d..d] as it was before step d
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		snap := make([]int, 2*d+1)
		copy(snap, v[off-d:off+d+1])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return replaceAll(n, m)
	}
	var rev []lineOp
	x, y := n, m
	for d := found; d > 0; d-- {
		snap := trace[d]
		at := func(k int) int { return snap[k+d] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			rev = append(rev, lineOp{kind: ' ', a: x, b: y})
		}
		if x == prevX {
			y--
			rev = append(rev, lineOp{kind: '+', a: x, b: y})
		} else {
			x--
			rev = append(rev, lineOp{kind: '-', a: x, b: y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, lineOp{kind: ' ', a: x, b: y})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// replaceAll is the fallback script: every old line removed, every new one added.
func replaceAll(n, m int) []lineOp {
	ops := make([]lineOp, 0, n+m)
	for i := 0; i < n; i++ {
		ops = append(ops, lineOp{kind: '-', a: i, b: 0})
	}
	for j := 0; j < m; j++ {
		ops = append(ops, lineOp{kind: '+', a: n, b: j})
	}
	return ops
}
