package tools

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiffUnified(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	d := newFileDiff("a.go", "a\nb\nc\n", "a\nB\nc\nd\n")
	if d.Path != "a.go" || d.Added != 2 || d.Removed != 1 {
		t.Errorf("FileDiff = %+v, want 2 added, 1 removed", d)
	}
}

// TestDiffScriptsRebuildBothSides checks on random inputs that every edit
// script, the bounded-search fallback included, turns old into new.
func TestDiffScriptsRebuildBothSides(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestDiffAgreesWithGit holds the display diff to git's on a corpus of
// edits: every diff nova writes must apply exactly where its headers say
// (applyStrict) and git must apply it too and get the new text, which
// checks the hunk headers, the context and the "\ No newline" markers; and
// where the change is within the search bound the added and removed counts
// must be git's --minimal ones. It is skipped where git is not installed.
func TestDiffAgreesWithGit(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	rng := rand.New(rand.NewSource(7))
	short := func(n int) string { // few distinct lines: many equal ways to align
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%c\n", 'a'+rng.Intn(4))
		}
		s := b.String()
		if rng.Intn(4) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	type diffCase struct {
		old, new string
		exact    bool // within maxDiffEdits: the counts must be minimal
	}
	var cases []diffCase
	for i := 0; i < 60; i++ {
		cases = append(cases, diffCase{short(rng.Intn(25)), short(rng.Intn(25)), true})
	}
	for _, c := range diffBenchCases() {
		// Those past the search bound, where nova's counts are not minimal.
		exact := c.name != "rewrite_2000" && c.name != "replace_all_50000"
		cases = append(cases, diffCase{c.old, c.new, exact})
	}
	cases = append(cases,
		diffCase{"", "x\n", true}, diffCase{"x\n", "", true}, diffCase{"x", "x\n", true},
		diffCase{"a\nb\nc\n", "a\nb\nc\nd", true}, diffCase{"head\n" + numbered(1, 400), numbered(1, 400) + "tail", true})

	dir := t.TempDir()
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	var patch strings.Builder
	want := map[string][2]int{}
	for i, c := range cases {
		name := fmt.Sprintf("c%03d", i)
		ftTree(t, oldDir, map[string]string{name: c.old})
		if c.exact { // git --minimal takes a second over the others
			ftTree(t, newDir, map[string]string{name: c.new})
		}
		d := newFileDiff(name, c.old, c.new)
		if got, err := applyStrict(c.old, d.Diff); err != nil || got != c.new {
			t.Errorf("%s: nova's diff does not apply exactly (%v):\n%s", name, err, ftHead(d.Diff))
		}
		patch.WriteString(d.Diff)
		if c.exact && d.Diff != "" {
			want[name] = [2]int{d.Added, d.Removed}
		}
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")

	cmd := exec.Command(git, "diff", "--no-index", "--minimal", "--numstat", "old", "new")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 { // 1: the trees differ
		t.Fatalf("git diff: %v", err)
	}
	got := map[string][2]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// "1\t1\t{old => new}/c000"
		var added, removed int
		if _, err := fmt.Sscanf(line, "%d\t%d\t", &added, &removed); err != nil {
			t.Fatalf("numstat line %q: %v", line, err)
		}
		got[line[strings.LastIndexByte(line, '/')+1:]] = [2]int{added, removed}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: nova +%d -%d, git --minimal +%d -%d", name, w[0], w[1], got[name][0], got[name][1])
		}
	}

	// git apply the whole patch to the old tree: every file must become new.
	if err := os.WriteFile(filepath.Join(dir, "nova.patch"), []byte(patch.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(git, "apply", "-p0", "--whitespace=nowarn", filepath.Join(dir, "nova.patch"))
	cmd.Dir, cmd.Env = oldDir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s", err, out)
	}
	for i, c := range cases {
		name := fmt.Sprintf("c%03d", i)
		data, err := os.ReadFile(filepath.Join(oldDir, name))
		if err != nil && !(c.new == "" && os.IsNotExist(err)) {
			t.Fatal(err)
		}
		if string(data) != c.new {
			t.Errorf("%s: git apply of nova's diff gave %d bytes, want %d", name, len(data), len(c.new))
		}
	}
}

// applyStrict applies a unified diff to old as GNU patch would with no fuzz
// and no offset: each hunk must sit exactly where its header says, its
// context and removed lines must be old's, and the header's counts must be
// the body's. It reads the format independently of the code that writes it.
func applyStrict(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	src := splitKeepEnds(old)
	lines := splitKeepEnds(diff)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no ---/+++ header")
	}
	var out []string
	next, delta := 0, 0 // next old line to copy (0-based); new start - old start so far
	body := lines[2:]
	for len(body) > 0 {
		var oStart, oCount, nStart, nCount int
		if err := parseHunkHeader(strings.TrimSuffix(body[0], "\n"), &oStart, &oCount, &nStart, &nCount); err != nil {
			return "", err
		}
		body = body[1:]
		at := oStart - 1 // 0-based first line of the hunk in old
		if oCount == 0 {
			at = oStart // an empty range names the line before it
		}
		if nCount == 0 {
			nStart++
		}
		if at < next || at+delta != nStart-1 {
			return "", fmt.Errorf("hunk at -%d +%d is out of place", oStart, nStart)
		}
		out = append(out, src[next:at]...)
		next = at
		gotO, gotN := 0, 0
		for len(body) > 0 && !strings.HasPrefix(body[0], "@@") {
			l := body[0]
			body = body[1:]
			text := l[1:]
			if len(body) > 0 && body[0] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				body = body[1:]
			}
			switch l[0] {
			case ' ', '-':
				if next >= len(src) || src[next] != text {
					return "", fmt.Errorf("line %d of old is not %q", next+1, text)
				}
				next++
				gotO++
				if l[0] == ' ' {
					out = append(out, text)
					gotN++
				}
			case '+':
				out = append(out, text)
				gotN++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
		if gotO != oCount || gotN != nCount {
			return "", fmt.Errorf("hunk -%d,%d +%d,%d has %d old and %d new lines", oStart, oCount, nStart, nCount, gotO, gotN)
		}
		delta = nStart - 1 + gotN - next
	}
	return strings.Join(append(out, src[next:]...), ""), nil
}

// parseHunkHeader reads "@@ -o[,c] +n[,c] @@", where a missing count is 1.
func parseHunkHeader(h string, oStart, oCount, nStart, nCount *int) error {
	var o, n string
	if _, err := fmt.Sscanf(h, "@@ -%s +%s @@", &o, &n); err != nil || !strings.HasSuffix(h, " @@") {
		return fmt.Errorf("bad hunk header %q", h)
	}
	side := func(s string, start, count *int) error {
		*count = 1
		if _, err := fmt.Sscanf(s, "%d,%d", start, count); err != nil {
			if _, err := fmt.Sscanf(s, "%d", start); err != nil || strings.Contains(s, ",") {
				return fmt.Errorf("bad hunk range %q in %q", s, h)
			}
		}
		return nil
	}
	if err := side(o, oStart, oCount); err != nil {
		return err
	}
	return side(n, nStart, nCount)
}
