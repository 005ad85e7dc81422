package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ftRun calls tool with input (a map or struct marshalled to JSON), after
// checking the input against the tool's schema as the pipeline would.
func ftRun(t testing.TB, tool Tool, env *Env, input any) Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	if err := reg.Register(tool); err != nil {
		t.Fatalf("register %s: %v", tool.Name(), err)
	}
	if err := reg.validate(tool.Name(), raw); err != nil {
		t.Fatalf("input %s rejected by the schema: %v", raw, err)
	}
	res, err := tool.Run(context.Background(), raw, env)
	if err != nil {
		t.Fatalf("%s(%s): %v", tool.Name(), raw, err)
	}
	return res
}

// grepFixture builds a small project with ignored, hidden, binary, CRLF and
// multi-line content, with distinct modification times (a.go newest).
func grepFixture(t testing.TB) string {
	root := t.TempDir()
	files := map[string]string{
		".git/HEAD":      "ref: refs/heads/main\n",
		".gitignore":     "ignored/\n*.min.js\n",
		"a.go":           "package a\n\n// TODO: fix\nfunc A() {}\n\ntype S struct {\n\tX int\n}\nfunc B() { // todo later\n}\n",
		"b/c.go":         "package b\n\nfunc C() {\n\treturn\n}\n",
		"b/d.py":         "def d():\n    # TODO python\n    pass\n",
		"b/e.ts":         "function e() {}\nexport const TODO = 1\n",
		"b/deep/f.md":    "# Title\n\nSome TODO text\n\nfunc in markdown\n",
		"README.md":      "Readme\nfunc mention\n",
		"ignored/x.go":   "func Ignored() {}\n",
		"app.min.js":     "function min(){} // TODO\n",
		"app.js":         "function app() {} // TODO\n",
		"bin.dat":        "func\x00binary TODO\n",
		".hidden/h.go":   "package hidden\nfunc H() {}\n",
		"crlf.txt":       "hello world\r\nfunc crlf\r\n",
		"uni.txt":        "naïve café\nplain cafe\n",
		"multi.txt":      "start\nstruct {\n  a\n  b\n}\nend\nstruct { c }\n",
		"sub/.gitignore": "*.gen\n",
		"sub/x.gen":      "func generated\n",
		"sub/y.txt":      "func y\n",
		"long.txt":       "func " + strings.Repeat("x", 700) + "\n",
	}
	ftTree(t, root, files)
	// Symlinks are not followed by either backend, as rg does by default.
	for link, target := range map[string]string{"link.go": "a.go", "linkdir": "b"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Now().Add(-time.Hour)
	order := []string{"long.txt", "sub/y.txt", "multi.txt", "uni.txt", "crlf.txt", ".hidden/h.go", "app.js", "README.md", "b/deep/f.md", "b/e.ts", "b/d.py", "b/c.go", "a.go"}
	for i, p := range order {
		ftTouch(t, filepath.Join(root, p), base, i)
	}
	return root
}

func grepCases() []map[string]any {
	return []map[string]any{
		{"pattern": "func"},
		{"pattern": "TODO", "output_mode": "content"},
		{"pattern": "TODO", "output_mode": "content", "-n": false},
		{"pattern": "todo", "output_mode": "content", "-i": true},
		{"pattern": "TODO", "output_mode": "content", "-A": 1},
		{"pattern": "TODO", "output_mode": "content", "-B": 2},
		{"pattern": "func", "output_mode": "content", "-C": 1},
		{"pattern": "func", "output_mode": "content", "-C": 1, "-A": 0},
		{"pattern": "func", "glob": "*.go"},
		{"pattern": "func", "glob": "b/*.go", "output_mode": "content"},
		{"pattern": "func", "glob": "!*.go"},
		{"pattern": "TODO", "glob": "*.{ts,py,js}", "output_mode": "count"},
		{"pattern": "TODO", "glob": "*.js"},
		{"pattern": "func", "type": "go", "output_mode": "content"},
		{"pattern": "TODO", "type": "py"},
		{"pattern": "func", "type": "md", "glob": "deep/**", "path": "b"},
		{"pattern": `struct \{[\s\S]*?\}`, "multiline": true, "output_mode": "content"},
		{"pattern": `struct \{.*?\}`, "multiline": true, "output_mode": "count"},
		{"pattern": `a\n  b`, "multiline": true, "output_mode": "content", "-C": 1},
		{"pattern": "func", "output_mode": "count"},
		{"pattern": "func", "output_mode": "content", "head_limit": 3},
		{"pattern": "func", "head_limit": 2},
		{"pattern": "func", "output_mode": "count", "head_limit": 1},
		{"pattern": "func", "path": "b", "output_mode": "content"},
		{"pattern": "func", "path": "a.go", "output_mode": "content"},
		{"pattern": `caf\w`, "output_mode": "content"},
		{"pattern": `CAFÉ`, "-i": true, "output_mode": "content"},
		{"pattern": `^$`, "output_mode": "count"},
		{"pattern": `x*`, "path": "b", "output_mode": "count"},
		{"pattern": `^func`, "output_mode": "content"},
		{"pattern": `world$`, "output_mode": "content"},
		{"pattern": `\}$`, "output_mode": "content", "-n": false},
		{"pattern": `\bfunc\b\s+\w+\(`, "output_mode": "content"},
		{"pattern": "nothing-matches-this"},
		{"pattern": "nothing-matches-this", "output_mode": "content"},
		{"pattern": "-pattern-with-dash"},
	}
}

// TestGrepBackendsAgree runs every case through the built-in walker and
// through rg and requires the same output.
func TestGrepBackendsAgree(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg not installed")
	}
	root := grepFixture(t)
	env := NewEnv(root)
	for _, c := range grepCases() {
		name, _ := json.Marshal(c)
		t.Run(string(name), func(t *testing.T) {
			built := ftRun(t, &Grep{Backend: "builtin"}, env, c)
			rg := ftRun(t, &Grep{Backend: "rg"}, env, c)
			if testing.Verbose() {
				t.Logf("output:\n%s", built.Output)
			}
			if built.Output != rg.Output || built.IsError != rg.IsError {
				t.Errorf("backends differ\n--- builtin:\n%s\n--- rg:\n%s", built.Output, rg.Output)
			}
		})
	}
}

func TestGrepBuiltinOutput(t *testing.T) {
	t.Parallel()
	root := grepFixture(t)
	env := NewEnv(root)
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	cases := []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"pattern": "func"}, strings.Join([]string{
			"Found 10 files", p("a.go"), p("b/c.go"), p("b/e.ts"), p("b/deep/f.md"), p("README.md"), p("app.js"),
			p(".hidden/h.go"), p("crlf.txt"), p("sub/y.txt"), p("long.txt")}, "\n")},
		{map[string]any{"pattern": "TODO", "output_mode": "content", "path": "b"}, strings.Join([]string{
			p("b/d.py") + ":2:    # TODO python",
			p("b/deep/f.md") + ":3:Some TODO text",
			p("b/e.ts") + ":2:export const TODO = 1"}, "\n")},
		{map[string]any{"pattern": "TODO", "output_mode": "content", "path": "b", "-n": false, "-B": 1, "type": "py"}, strings.Join([]string{
			p("b/d.py") + "-def d():",
			p("b/d.py") + ":    # TODO python"}, "\n")},
		{map[string]any{"pattern": "func", "output_mode": "content", "path": "a.go", "-A": 1}, strings.Join([]string{
			p("a.go") + ":4:func A() {}",
			p("a.go") + "-5-",
			"--",
			p("a.go") + ":9:func B() { // todo later",
			p("a.go") + "-10-}"}, "\n")},
		{map[string]any{"pattern": `struct \{[^}]*\}`, "multiline": true, "output_mode": "content", "path": "multi.txt"}, strings.Join([]string{
			p("multi.txt") + ":2:struct {",
			p("multi.txt") + ":3:  a",
			p("multi.txt") + ":4:  b",
			p("multi.txt") + ":5:}",
			p("multi.txt") + ":7:struct { c }"}, "\n")},
		{map[string]any{"pattern": "TODO", "output_mode": "count", "path": "b"}, strings.Join([]string{
			p("b/d.py") + ":1", p("b/deep/f.md") + ":1", p("b/e.ts") + ":1", "", "Found 3 total matches across 3 files."}, "\n")},
		{map[string]any{"pattern": "func", "head_limit": 2}, strings.Join([]string{
			"Found 10 files", p("a.go"), p("b/c.go"), "[showing the first 2 of 10 files (head_limit)]"}, "\n")},
		{map[string]any{"pattern": "^func", "output_mode": "content", "path": "long.txt"},
			p("long.txt") + ":1:func " + strings.Repeat("x", 495) + " [... 205 more characters]"},
		{map[string]any{"pattern": "absent"}, "No files found"},
		{map[string]any{"pattern": "absent", "output_mode": "count"}, "No matches found"},
	}
	for _, c := range cases {
		res := ftRun(t, &Grep{Backend: "builtin"}, env, c.input)
		if res.IsError || res.Output != c.want {
			t.Errorf("Grep(%v):\n got %q\nwant %q", c.input, res.Output, c.want)
		}
	}
}

func TestGrepErrors(t *testing.T) {
	t.Parallel()
	root := grepFixture(t)
	env := NewEnv(root)
	cases := []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"pattern": "func("}, "invalid regular expression"},
		{map[string]any{"pattern": "a\nb"}, "set multiline: true"},
		{map[string]any{"pattern": "x", "type": "klingon"}, `unknown file type "klingon"`},
		{map[string]any{"pattern": "x", "path": "nope"}, "path does not exist: " + filepath.Join(root, "nope")},
		{map[string]any{"pattern": "x", "glob": "[abc"}, "invalid glob"},
		{map[string]any{"pattern": ""}, "pattern is required"},
	}
	for _, backend := range []string{"builtin", "rg"} {
		if _, err := exec.LookPath("rg"); err != nil && backend == "rg" {
			continue
		}
		for _, c := range cases {
			res := ftRun(t, &Grep{Backend: backend}, env, c.input)
			if !res.IsError || !strings.Contains(res.Output, c.want) {
				t.Errorf("%s: Grep(%v) = %+v, want an error containing %q", backend, c.input, res, c.want)
			}
		}
	}
}

func TestGrepOutputCap(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "match line %d\n", i)
	}
	ftTree(t, root, map[string]string{"big.txt": b.String()})
	res := ftRun(t, &Grep{Backend: "builtin"}, NewEnv(root), map[string]any{"pattern": "match", "output_mode": "content"})
	if len(res.Output) > grepMaxOutput+300 {
		t.Errorf("output is %d characters, want at most about %d", len(res.Output), grepMaxOutput)
	}
	if !strings.Contains(res.Output, "[output cut at 30000 characters:") || !strings.Contains(res.Output, "more lines not shown") {
		t.Errorf("cut output has no note: ...%s", res.Output[len(res.Output)-200:])
	}
}

func TestGrepBackendChoice(t *testing.T) {
	root := grepFixture(t)
	env := NewEnv(root)
	raw, _ := json.Marshal(map[string]any{"pattern": "x"})
	if _, err := (&Grep{Backend: "grep"}).Run(context.Background(), raw, env); err == nil || !strings.Contains(err.Error(), "unknown grep backend") {
		t.Errorf("unknown backend: err = %v", err)
	}
	bin := t.TempDir()
	t.Setenv("PATH", bin) // no rg here
	if _, err := (&Grep{Backend: "rg"}).Run(context.Background(), raw, env); err == nil {
		t.Error("forcing rg without rg on PATH should fail")
	}
	res := ftRun(t, &Grep{}, env, map[string]any{"pattern": "TODO", "type": "py"})
	if !strings.Contains(res.Output, "d.py") {
		t.Errorf("auto without rg should fall back to the built-in search, got %q", res.Output)
	}

	// An rg that fails (here: one that knows none of our flags) is an error
	// when forced and is replaced by the built-in search in auto mode.
	fake := "#!/bin/sh\necho 'error: unexpected argument --no-require-git' >&2\nexit 2\n"
	if err := os.WriteFile(filepath.Join(bin, "rg"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Grep{Backend: "rg"}).Run(context.Background(), raw, env); err == nil || !strings.Contains(err.Error(), "unexpected argument") {
		t.Errorf("a failing forced rg: err = %v", err)
	}
	res = ftRun(t, &Grep{}, env, map[string]any{"pattern": "TODO", "type": "py"})
	if res.IsError || !strings.Contains(res.Output, "d.py") {
		t.Errorf("auto with a failing rg should fall back to the built-in search, got %q", res.Output)
	}
}

func TestGrepPermission(t *testing.T) {
	t.Parallel()
	env := NewEnv("/work")
	req := requestFor(&Grep{}, json.RawMessage(`{"pattern":"x","path":"src"}`), env)
	if len(req.Paths) != 1 || req.Paths[0].Path != "/work/src" || req.Paths[0].Write {
		t.Errorf("Permission = %+v, want a read of /work/src", req)
	}
	req = requestFor(&Grep{}, json.RawMessage(`{"pattern":"x"}`), env)
	if len(req.Paths) != 1 || req.Paths[0].Path != "/work" {
		t.Errorf("Permission without path = %+v, want a read of the workdir", req)
	}
}

func TestGrepStopsRunawayContent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ftTree(t, root, map[string]string{"many.txt": strings.Repeat("m\n", 1010)})
	backends := []string{"builtin"}
	if _, err := exec.LookPath("rg"); err == nil {
		backends = append(backends, "rg")
	}
	for _, b := range backends {
		res := ftRun(t, &Grep{Backend: b, maxLines: 1000}, NewEnv(root), map[string]any{"pattern": "m", "output_mode": "content"})
		if !strings.HasPrefix(res.Output, filepath.Join(root, "many.txt")+":1:m\n") || !strings.Contains(res.Output, "the search stopped after 1000 matching lines") {
			t.Errorf("%s: runaway search output ends %q", b, res.Output[max(0, len(res.Output)-300):])
		}
	}
}

// ftSparse writes a file of size bytes that starts with head, without
// writing (or using the disk for) the rest.
func ftSparse(t *testing.T, p, head string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
}

// TestGrepLargeFiles: a file over the size limit is named as not searched,
// with the limit and how to search it, never answered "No matches found".
func TestGrepLargeFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ftTree(t, root, map[string]string{
		".gitignore":  "ignored/\n",
		"small.txt":   "needle small\n",
		"ignored/x.c": "x\n",
	})
	big, huge := filepath.Join(root, "big.txt"), filepath.Join(root, "sub/huge.dat")
	ftSparse(t, big, "needle big\n", 50<<20)
	ftSparse(t, huge, "needle huge\n", 21<<20)
	ftSparse(t, filepath.Join(root, "ignored/skip.txt"), "needle\n", 30<<20)
	env := NewEnv(root)
	note := "[2 files over Grep's 20 MB limit were not searched: " + big + " (50 MB), " + huge + " (21 MB). Search them with Bash (grep -n -E PATTERN FILE), or read them in parts with Read (offset and limit).]"
	for _, backend := range denyBackends(t) {
		res := ftRun(t, &Grep{Backend: backend}, env, map[string]any{"pattern": "needle", "path": "big.txt"})
		if !res.IsError || !strings.Contains(res.Output, big+" was not searched: it is 50 MB, over Grep's 20 MB limit") ||
			!strings.Contains(res.Output, "Read") || !strings.Contains(res.Output, "Bash (grep") {
			t.Errorf("%s: Grep on a 50 MB file = %+v", backend, res)
		}
		for _, mode := range []string{"files_with_matches", "content", "count"} {
			res := ftRun(t, &Grep{Backend: backend}, env, map[string]any{"pattern": "needle", "output_mode": mode})
			if !strings.Contains(res.Output, filepath.Join(root, "small.txt")) || !strings.HasSuffix(res.Output, "\n"+note) {
				t.Errorf("%s %s: output\n%s\nwant small.txt and the note\n%s", backend, mode, res.Output, note)
			}
		}
		// Only files the search would have read are reported.
		res = ftRun(t, &Grep{Backend: backend}, env, map[string]any{"pattern": "needle", "glob": "*.dat"})
		if want := "No files found\n[1 file over Grep's 20 MB limit was not searched: " + huge + " (21 MB). Search it with Bash (grep -n -E PATTERN FILE), or read it in parts with Read (offset and limit).]"; res.Output != want {
			t.Errorf("%s: with glob *.dat got\n%s\nwant\n%s", backend, res.Output, want)
		}
		res = ftRun(t, &Grep{Backend: backend}, env, map[string]any{"pattern": "needle", "glob": "*.md"})
		if res.Output != "No files found" {
			t.Errorf("%s: with glob *.md got %q, want no note", backend, res.Output)
		}
	}
}
