package tools

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffBenchCases are the edits BenchmarkFileDiff diffs: what Edit, Write and
// ApplyPatch hand newFileDiff.
func diffBenchCases() []struct{ name, old, new string } {
	rng := rand.New(rand.NewPCG(3, 4))
	corpus := benchCorpus(rng)
	file := func(n int) []string {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = corpus[rng.IntN(len(corpus))]
		}
		return lines
	}
	join := func(lines []string) string { return strings.Join(lines, "\n") + "\n" }

	big := file(5000)
	small := append(append(append([]string(nil), big[:2500]...), "\t// a new comment", "\tx := compute(ctx)", "\treturn x, nil"), big[2503:]...)

	mid := file(2000)
	rewrite := file(2000) // every line new: Write of a different file

	// A refactor: one line in ten changed, a few blocks moved in.
	refactor := append([]string(nil), mid...)
	for i := range refactor {
		if rng.IntN(10) == 0 {
			refactor[i] = corpus[rng.IntN(len(corpus))] + " // changed"
		}
	}

	// replace_all of an identifier used on 80 lines of a 2,000-line file.
	rename := append([]string(nil), mid...)
	for _, i := range rng.Perm(len(rename))[:80] {
		rename[i] += " // renamed"
	}

	// replace_all of an identifier in a 50,000-line file: a change on half
	// its lines, spread evenly, the worst case of a bounded search.
	huge := file(50_000)
	renamed := make([]string, len(huge))
	for i, l := range huge {
		renamed[i] = l
		if i%2 == 0 {
			renamed[i] = l + " // renamed"
		}
	}
	return []struct{ name, old, new string }{
		{"small_edit_5000", join(big), join(small)},
		{"rename_80_of_2000", join(mid), join(rename)},
		{"refactor_2000", join(mid), join(refactor)},
		{"rewrite_2000", join(mid), join(rewrite)},
		{"replace_all_50000", join(huge), join(renamed)},
	}
}

// BenchmarkFileDiff times the display diff of an edit, comparing nova's
// Myers diff with go-udiff (gopls' diff) and with sergi/go-diff's line mode
// (hunks by udiff). changed-lines is added+removed: the smaller, the closer
// the diff is to the minimal one git shows.
func BenchmarkFileDiff(b *testing.B) {
	for _, c := range diffBenchCases() {
		for _, impl := range []struct {
			name string
			fn   func(path, old, new string) (string, int, int)
		}{
			{"myers", unifiedDiff},
			{"udiff", udiffPlain},
			{"sergi", sergiDiff},
		} {
			b.Run(c.name+"/"+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				var d string
				var added, removed int
				for b.Loop() {
					d, added, removed = impl.fn("f.go", c.old, c.new)
				}
				b.ReportMetric(float64(added+removed), "changed-lines")
				b.ReportMetric(float64(len(d)), "diff-bytes")
			})
		}
	}
}

// udiffPlain is udiff.Unified with the counts newFileDiff needs.
func udiffPlain(path, old, new string) (string, int, int) {
	u, err := udiff.ToUnifiedDiff(path, path, old, udiff.Lines(old, new), diffContext)
	if err != nil {
		panic(err)
	}
	added, removed := 0, 0
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				removed++
			}
		}
	}
	return u.String(), added, removed
}

// sergiDiff is sergi/go-diff in line mode for the edit script (with a
// 200 ms deadline, its only bound) and udiff for the hunks.
func sergiDiff(path, old, new string) (string, int, int) {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 200 * time.Millisecond
	a, b, arr := dmp.DiffLinesToRunes(old, new)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), arr)
	var edits []udiff.Edit
	off := 0
	for i := 0; i < len(diffs); i++ {
		d := diffs[i]
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			off += len(d.Text)
		case diffmatchpatch.DiffDelete:
			e := udiff.Edit{Start: off, End: off + len(d.Text)}
			off += len(d.Text)
			if i+1 < len(diffs) && diffs[i+1].Type == diffmatchpatch.DiffInsert {
				e.New = diffs[i+1].Text
				i++
			}
			edits = append(edits, e)
		case diffmatchpatch.DiffInsert:
			edits = append(edits, udiff.Edit{Start: off, End: off, New: d.Text})
		}
	}
	u, err := udiff.ToUnifiedDiff(path, path, old, edits, diffContext)
	if err != nil {
		panic(err)
	}
	added, removed := 0, 0
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				added++
			case udiff.Delete:
				removed++
			}
		}
	}
	return u.String(), added, removed
}
