package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestLS(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ftTree(t, root, map[string]string{
		".git/HEAD":              "x",
		".gitignore":             "node_modules/\n*.log\n",
		"README.md":              "x",
		"go.mod":                 "x",
		"debug.log":              "x",
		"node_modules/a.js":      "x",
		"cmd/nova/main.go":       "x",
		"tools/grep.go":          "x",
		"tools/grep_test.go":     "x",
		"tools/testdata/big.txt": "x",
	})
	env := NewEnv(root)
	res := ftRun(t, &LS{}, env, map[string]any{})
	want := "- " + root + "/\n" +
		"  - .gitignore\n" +
		"  - README.md\n" +
		"  - cmd/\n" +
		"    - nova/\n" +
		"      - main.go\n" +
		"  - go.mod\n" +
		"  - tools/\n" +
		"    - grep.go\n" +
		"    - grep_test.go\n" +
		"    - testdata/\n" +
		"      - big.txt"
	if res.IsError || res.Output != want {
		t.Errorf("LS:\n got %s\nwant %s", res.Output, want)
	}

	res = ftRun(t, &LS{}, env, map[string]any{"path": "tools", "ignore": []string{"*_test.go", "testdata"}})
	want = "- " + root + "/tools/\n  - grep.go"
	if res.Output != want {
		t.Errorf("LS with ignore:\n got %s\nwant %s", res.Output, want)
	}
}

func TestLSCapsAt1000Entries(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		for j := 0; j < 30; j++ {
			files[fmt.Sprintf("dir%02d/file%02d.txt", i, j)] = "x"
		}
	}
	ftTree(t, root, files)
	res := ftRun(t, &LS{}, NewEnv(root), map[string]any{"path": root})
	lines := strings.Split(res.Output, "\n")
	entries := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "  ") {
			entries++
		}
	}
	if entries != 1000 {
		t.Errorf("listed %d entries, want 1000", entries)
	}
	// Breadth-first: every top-level directory is listed even though the cut
	// hides some of their files.
	if !strings.Contains(res.Output, "  - dir39/\n") {
		t.Error("a top-level directory is missing from the cut listing")
	}
	if !strings.Contains(lines[len(lines)-1], "Listing cut at 1000 entries") {
		t.Errorf("no cut note, last line %q", lines[len(lines)-1])
	}
}

func TestLSErrors(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ftTree(t, root, map[string]string{"f.txt": "x"})
	env := NewEnv(root)
	for input, want := range map[string]string{
		`{"path":"missing"}`:   "directory does not exist",
		`{"path":"f.txt"}`:     "is a file, not a directory",
		`{"ignore":["[oops"]}`: "invalid ignore pattern",
	} {
		var in map[string]any
		_ = json.Unmarshal([]byte(input), &in)
		res := ftRun(t, &LS{}, env, in)
		if !res.IsError || !strings.Contains(res.Output, want) {
			t.Errorf("LS(%s) = %+v, want an error containing %q", input, res, want)
		}
	}
	empty := t.TempDir()
	if res := ftRun(t, &LS{}, NewEnv(empty), map[string]any{}); !strings.Contains(res.Output, "(empty)") {
		t.Errorf("empty directory: %q", res.Output)
	}
}

func TestLSPermission(t *testing.T) {
	t.Parallel()
	req := requestFor(&LS{}, json.RawMessage(`{"path":"src"}`), NewEnv("/work"))
	if len(req.Paths) != 1 || req.Paths[0].Path != "/work/src" || req.Paths[0].Write {
		t.Errorf("Permission = %+v", req)
	}
}
