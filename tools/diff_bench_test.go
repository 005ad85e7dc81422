package tools

import (
	"math/rand/v2"
	"strings"
	"testing"
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

// BenchmarkFileDiff times the display diff of an edit. changed-lines is
// added+removed: the smaller, the closer the diff is to the minimal one git
// shows (TestDiffAgreesWithGit holds the cases within the search bound to
// it). The go-udiff and sergi/go-diff it was compared with are in the
// commit that added it; see docs/benchmarks.md.
func BenchmarkFileDiff(b *testing.B) {
	for _, c := range diffBenchCases() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var d FileDiff
			for b.Loop() {
				d = newFileDiff("f.go", c.old, c.new)
			}
			b.ReportMetric(float64(d.Added+d.Removed), "changed-lines")
			b.ReportMetric(float64(len(d.Diff)), "diff-bytes")
		})
	}
}
