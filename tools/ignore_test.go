package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// ftTree writes files (path -> content) under root, creating directories.
func ftTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ftWalk lists what walkTree reports under root, as sorted relative paths.
func ftWalk(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	ch := make(chan string, 1024)
	done := make(chan struct{})
	go func() {
		for p := range ch {
			got = append(got, p)
		}
		close(done)
	}()
	if _, err := walkTree(context.Background(), root, walkOptions{}, func(e walkEntry) { ch <- e.Rel }); err != nil {
		t.Fatal(err)
	}
	close(ch)
	<-done
	sort.Strings(got)
	return got
}

func TestIgnorePatterns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern string
		path    string
		dir     bool
		want    bool // ignored
	}{
		{"*.log", "a.log", false, true},
		{"*.log", "deep/er/a.log", false, true},
		{"*.log", "a.log.txt", false, false},
		{"/root.txt", "root.txt", false, true},
		{"/root.txt", "sub/root.txt", false, false},
		{"build/", "build", true, true},
		{"build/", "build", false, false},
		{"build/", "src/build", true, true},
		{"doc/*.txt", "doc/a.txt", false, true},
		{"doc/*.txt", "doc/x/a.txt", false, false},
		{"doc/*.txt", "x/doc/a.txt", false, false},
		{"**/foo", "a/b/foo", false, true},
		{"**/foo", "foo", false, true},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"a/**", "a/x/y", false, true},
		{"a/**", "a", true, false},
		{"f?o", "fxo", false, true},
		{"f?o", "f/o", false, false},
		{"[abc].txt", "b.txt", false, true},
		{"[!abc].txt", "b.txt", false, false},
		{"[!abc].txt", "d.txt", false, true},
		{`\#hash`, "#hash", false, true},
		{"# comment", "# comment", false, false},
		{"trail   ", "trail", false, true},
		{`\!bang`, "!bang", false, true},
		{"*", "any/thing", false, true},
		{"*.log", ".log", false, true},
		{"/*.log", "a/b.log", false, false},
		{"/*.log", "b.log", false, true},
		{"Makefile", "src/Makefile", false, true},
		{"src/Makefile", "src/Makefile", false, true},
		{"src/Makefile", "x/src/Makefile", false, false},
	}
	for _, c := range cases {
		f := parseGitignore("/base", []byte(c.pattern+"\n"))
		got, _ := f.match(c.path, c.dir)
		if got != c.want {
			t.Errorf("pattern %q on %q (dir=%v): ignored=%v, want %v", c.pattern, c.path, c.dir, got, c.want)
		}
	}
}

func TestIgnoreWalkerHonoursGitignore(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ftTree(t, root, map[string]string{
		".git/HEAD":            "ref: refs/heads/main\n",
		".git/info/exclude":    "secret.txt\n",
		".gitignore":           "*.log\nbuild/\n/top.tmp\n!keep.log\nvendor\n",
		"a.go":                 "package a\n",
		"debug.log":            "x",
		"keep.log":             "x",
		"top.tmp":              "x",
		"sub/top.tmp":          "x",
		"secret.txt":           "x",
		"build/out.bin":        "x",
		"vendor/v.go":          "x",
		"sub/.gitignore":       "*.gen.go\n!important.log\n",
		"sub/x.gen.go":         "x",
		"sub/y.go":             "x",
		"sub/important.log":    "x",
		"sub/deeper/z.gen.go":  "x",
		".github/workflow.yml": "x",
		"other/.git":           "gitdir: elsewhere\n",
	})
	got := strings.Join(ftWalk(t, root), " ")
	want := ".github/workflow.yml .gitignore a.go keep.log sub/.gitignore sub/important.log sub/top.tmp sub/y.go"
	if got != want {
		t.Errorf("walk:\n got %s\nwant %s", got, want)
	}

	// Walking a subdirectory still applies the parent .gitignore files and
	// the repository's exclude file.
	ftTree(t, root, map[string]string{"sub/secret.txt": "x", "sub/n.log": "x"})
	got = strings.Join(ftWalk(t, filepath.Join(root, "sub")), " ")
	want = ".gitignore important.log top.tmp y.go"
	if got != want {
		t.Errorf("walk of sub:\n got %s\nwant %s", got, want)
	}
}

// TestIgnoreMatchesGit compares the walker with git itself on a tree of
// tricky patterns; it is skipped where git is not installed.
func TestIgnoreMatchesGit(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	ftTree(t, root, map[string]string{
		".gitignore":          "*.o\n/dist\nlogs/**\n!logs/keep/\ndocs/**/*.tmp\n[Tt]emp*\n**/gen/\n!*.keep.o\nspace\\ \n",
		"main.c":              "x",
		"main.o":              "x",
		"lib.keep.o":          "x",
		"dist/a.js":           "x",
		"src/dist/b.js":       "x",
		"logs/a.txt":          "x",
		"logs/keep/b.txt":     "x",
		"docs/a.tmp":          "x",
		"docs/x/y/b.tmp":      "x",
		"docs/x/y/b.md":       "x",
		"Temp1":               "x",
		"src/temp2/c.go":      "x",
		"src/gen/d.go":        "x",
		"src/gen.go":          "x",
		"space ":              "x",
		"src/.gitignore":      "!/gen/\n*.md\n",
		"src/readme.md":       "x",
		"src/sub/.gitignore":  "!*.md\n",
		"src/sub/readme.md":   "x",
		"src/sub/deep/x.md":   "x",
		"nested/a/b/c/d.txt":  "x",
		"nested/a/.gitignore": "/b/c\n",
	})
	cmd := exec.Command(git, "init", "-q", root)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	cmd = exec.Command(git, "-C", root, "ls-files", "--others", "--exclude-standard")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	want := strings.Fields(strings.ReplaceAll(string(out), "\"space \"", "space_"))
	for i, w := range want {
		want[i] = strings.ReplaceAll(w, "space_", "space ")
	}
	sort.Strings(want)
	got := ftWalk(t, root)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("walker and git disagree:\nwalker %q\n   git %q", got, want)
	}
}

func TestIgnoreWalkerStopsOnCancel(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ftTree(t, root, map[string]string{"a/b.txt": "x"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := walkTree(ctx, root, walkOptions{}, func(walkEntry) {}); err == nil {
		t.Fatal("walk of a cancelled context returned no error")
	}
}

// ftTouch sets p's modification time to base plus offset seconds.
func ftTouch(t testing.TB, p string, base time.Time, offset int) {
	t.Helper()
	ts := base.Add(time.Duration(offset) * time.Second)
	if err := os.Chtimes(p, ts, ts); err != nil {
		t.Fatal(err)
	}
}
