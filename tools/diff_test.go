package tools

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func TestDiffUnified(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{
			"one line changed in the middle",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
			"--- f.txt\n+++ f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n",
		},
		{
			"created file",
			"", "x\ny\n",
			"--- f.txt\n+++ f.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n",
		},
		{
			"emptied file",
			"x\n", "",
			"--- f.txt\n+++ f.txt\n@@ -1 +0,0 @@\n-x\n",
		},
		{
			"newline added at end",
			"a\nb", "a\nb\n",
			"--- f.txt\n+++ f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			"two distant changes make two hunks",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n",
			"--- f.txt\n+++ f.txt\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+twelve\n",
		},
		{
			"close changes share a hunk",
			"1\n2\n3\n4\n5\n6\n7\n8\n", "one\n2\n3\n4\n5\n6\n7\neight\n",
			"--- f.txt\n+++ f.txt\n@@ -1,8 +1,8 @@\n-1\n+one\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+eight\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UnifiedDiff("f.txt", tt.old, tt.new); got != tt.want {
				t.Errorf("UnifiedDiff =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestDiffCounts(t *testing.T) {
	d := newFileDiff("a.go", "a\nb\nc\n", "a\nB\nc\nd\n")
	if d.Path != "a.go" || d.Added != 2 || d.Removed != 1 {
		t.Errorf("FileDiff = %+v, want 2 added, 1 removed", d)
	}
}

// TestDiffScriptsRebuildBothSides checks on random inputs that every edit
// script, the bounded-search fallback included, turns old into new.
func TestDiffScriptsRebuildBothSides(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	gen := func(n int) []string {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = fmt.Sprintf("%c\n", 'a'+rng.Intn(4))
		}
		return lines
	}
	check := func(a, b []string) {
		t.Helper()
		var olds, news strings.Builder
		for _, op := range diffLineOps(a, b) {
			if op.kind != '+' {
				olds.WriteString(op.text)
			}
			if op.kind != '-' {
				news.WriteString(op.text)
			}
		}
		if olds.String() != strings.Join(a, "") || news.String() != strings.Join(b, "") {
			t.Fatalf("script does not rebuild inputs:\nold %q\nnew %q", a, b)
		}
	}
	for i := 0; i < 300; i++ {
		check(gen(rng.Intn(30)), gen(rng.Intn(30)))
	}
	// Far more differences than the search bound: the fallback.
	check(gen(3000), gen(3000))
	a := gen(50)
	if ops := diffLineOps(a, a); len(ops) != 50 {
		t.Errorf("identical inputs gave %d ops", len(ops))
	}
}

func TestDiffMinimal(t *testing.T) {
	a := strings.SplitAfter("a\nb\nc\na\nb\nb\na\n", "\n")
	b := strings.SplitAfter("c\nb\na\nb\na\nc\n", "\n")
	changes := 0
	for _, op := range diffLineOps(a[:len(a)-1], b[:len(b)-1]) {
		if op.kind != ' ' {
			changes++
		}
	}
	if changes != 5 { // the classic Myers example: D = 5
		t.Errorf("edit distance %d, want 5", changes)
	}
}
