package tools

import (
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestWildmatch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, text string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "a/b.go", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**", "a/x/y", true},
		{"a/**", "a", false},
		{"**/b", "b", true},
		{"a**b", "axxb", true},
		{"a**b", "a/b", false},
		{"a?b", "a/b", false},
		{"?", "é", false}, // one byte, not one character
		{"??", "é", true},
		{"[[:digit:]]x", "1x", true},
		{"[[:nope:]]x", "1x", false},
		{"[abc", "[abc", false},
		{`x\`, `x\`, false},
		{`\*`, "*", true},
		{"[!a]", "/", false},
		{"a[/]b", "a/b", false},
		{"[]-]", "-", true},
		{"[]-]", "]", true},
		{"[a-]", "-", true},
		{"*/x", "a/x", true},
		{"*/x", "a/b/x", false},
	}
	for _, c := range cases {
		if got := wildmatch(c.pattern, c.text); got != c.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pattern, c.text, got, c.want)
		}
	}
}

// TestWildmatchMatchesGit checks random patterns against git: each goes
// alone into the .gitignore of its own directory, over the same small
// tree of paths, and git check-ignore's verdict on every path must be
// nova's.
func TestWildmatchMatchesGit(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed: patterns are checked against git check-ignore")
	}
	tree := []string{"a/b", "a/x/b", "a/x/y/b", "ab", "b", "ba", "bb", "aab", "a.b", "x/a", "x/ab", "*", "?", "[", "a*", "A", "é", "aé"}
	tokens := []string{"a", "b", "x", "*", "**", "?", "[ab]", "[!a]", "[a-b]", `\*`, "/", "[[:alpha:]]", "é", ".", "[", "]", "-"}
	rng := rand.New(rand.NewSource(11))
	files := map[string]string{}
	var paths []string
	for k := 0; k < 200; k++ {
		var p strings.Builder
		if rng.Intn(4) == 0 {
			p.WriteString("/")
		}
		for n := 1 + rng.Intn(4); n > 0; n-- {
			p.WriteString(tokens[rng.Intn(len(tokens))])
		}
		if rng.Intn(5) == 0 {
			p.WriteString("/")
		}
		dir := fmt.Sprintf("d%03d", k)
		files[dir+"/.gitignore"] = p.String() + "\n"
		for _, f := range tree {
			paths = append(paths, dir+"/"+f)
		}
	}
	root := t.TempDir()
	cmd := exec.Command(git, "init", "-q", root)
	cmd.Env = gitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	// Only the ignore files are written: git and nova both answer for
	// paths that do not exist, taking them for files and their parents
	// for directories, and a disk write costs more than the whole check.
	ftTree(t, root, files)
	want := gitIgnored(t, git, root, paths)
	ic := newIgnoreCache(root)
	bad := 0
	for _, p := range paths {
		if got := ic.fileIgnored(filepath.Join(root, filepath.FromSlash(p))); got != want[p] {
			if bad++; bad <= 20 {
				pattern := strings.TrimSpace(files[p[:4]+"/.gitignore"])
				t.Errorf("pattern %q on %s: nova says ignored=%v, git %v", pattern, p[5:], got, want[p])
			}
		}
	}
}
