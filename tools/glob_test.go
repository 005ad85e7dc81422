package tools

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGlob(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ftTree(t, root, map[string]string{
		".git/HEAD":         "x",
		".gitignore":        "dist/\n*.gen.go\n",
		"main.go":           "x",
		"util.go":           "x",
		"z.gen.go":          "x",
		"cmd/app/app.go":    "x",
		"cmd/app/README.md": "x",
		"dist/bundle.go":    "x",
		"src/.gitignore":    "!keep.gen.go\n",
		"src/keep.gen.go":   "x",
		".github/ci.yml":    "x",
	})
	base := time.Now().Add(-time.Hour)
	for i, p := range []string{"src/keep.gen.go", "util.go", "cmd/app/app.go", "main.go"} {
		ftTouch(t, filepath.Join(root, p), base, i)
	}
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	env := NewEnv(root)
	cases := []struct {
		input map[string]any
		want  []string
	}{
		// newest first; gitignored and .git files never appear
		{map[string]any{"pattern": "**/*.go"}, []string{p("main.go"), p("cmd/app/app.go"), p("util.go"), p("src/keep.gen.go")}},
		{map[string]any{"pattern": "*.go"}, []string{p("main.go"), p("util.go")}},
		{map[string]any{"pattern": "./*.go"}, []string{p("main.go"), p("util.go")}},
		{map[string]any{"pattern": "cmd/**/*.md"}, []string{p("cmd/app/README.md")}},
		{map[string]any{"pattern": "*.go", "path": "cmd/app"}, []string{p("cmd/app/app.go")}},
		{map[string]any{"pattern": "**/*.yml"}, []string{p(".github/ci.yml")}},
		{map[string]any{"pattern": p("cmd") + "/**/{app.go,README.md}"}, []string{p("cmd/app/README.md"), p("cmd/app/app.go")}},
		{map[string]any{"pattern": "**/*.rs"}, []string{"No files found"}},
		{map[string]any{"pattern": "nowhere/**/*.go"}, []string{"No files found"}},
	}
	for _, c := range cases {
		res := ftRun(t, &Glob{}, env, c.input)
		if res.IsError || res.Output != strings.Join(c.want, "\n") {
			t.Errorf("Glob(%v):\n got %q\nwant %q", c.input, res.Output, strings.Join(c.want, "\n"))
		}
	}
}

func TestGlobCapsAt100NewestFirst(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 130; i++ {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = "x"
	}
	ftTree(t, root, files)
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 130; i++ {
		ftTouch(t, filepath.Join(root, fmt.Sprintf("d%d/f%03d.txt", i%7, i)), base, i)
	}
	res := ftRun(t, &Glob{}, NewEnv(root), map[string]any{"pattern": "**/*.txt"})
	lines := strings.Split(res.Output, "\n")
	if len(lines) != 101 {
		t.Fatalf("got %d lines, want 100 paths and a note", len(lines))
	}
	if lines[0] != filepath.Join(root, "d3/f129.txt") || lines[99] != filepath.Join(root, "d2/f030.txt") {
		t.Errorf("not newest first: first %s, 100th %s", lines[0], lines[99])
	}
	if !strings.Contains(lines[100], "truncated") || !strings.Contains(lines[100], "100 most recently modified of 130") {
		t.Errorf("cut note = %q", lines[100])
	}
}

func TestGlobErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ftTree(t, root, map[string]string{"file.txt": "x"})
	env := NewEnv(root)
	cases := []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"pattern": "*.go", "path": "missing"}, "directory does not exist: " + filepath.Join(root, "missing")},
		{map[string]any{"pattern": "*.go", "path": "file.txt"}, "is not a directory"},
		{map[string]any{"pattern": "[abc"}, "invalid glob pattern"},
		{map[string]any{"pattern": " "}, "pattern is required"},
	}
	for _, c := range cases {
		res := ftRun(t, &Glob{}, env, c.input)
		if !res.IsError || !strings.Contains(res.Output, c.want) {
			t.Errorf("Glob(%v) = %+v, want an error containing %q", c.input, res, c.want)
		}
	}
}

func TestGlobPermission(t *testing.T) {
	t.Parallel()
	env := NewEnv("/work")
	for input, want := range map[string]string{
		`{"pattern":"**/*.go"}`:              "/work",
		`{"pattern":"*.go","path":"sub"}`:    "/work/sub",
		`{"pattern":"src/**/*.go"}`:          "/work/src",
		`{"pattern":"/etc/**/*.conf"}`:       "/etc",
		`{"pattern":"*.go","path":"/other"}`: "/other",
	} {
		req := (&Glob{}).Permission(json.RawMessage(input), env)
		if len(req.Paths) != 1 || req.Paths[0].Path != want || req.Paths[0].Write {
			t.Errorf("Permission(%s) = %+v, want a read of %s", input, req, want)
		}
	}
}
