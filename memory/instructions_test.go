package memory

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeFiles creates files (path relative to root -> content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rels returns the files' paths relative to root, with forward slashes.
func rels(t *testing.T, root string, files []File) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		r, err := filepath.Rel(root, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

func TestLoadInstructions(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		git      string // directory (relative) holding .git; "" for none
		workdir  string // relative to the temp root
		want     []string
		warnings []string // substrings, one per expected warning
	}{
		{
			name: "order root to workdir, three names, local last",
			git:  "repo",
			files: map[string]string{
				"nova/NOVACODE.md":                "user",
				"repo/NOVACODE.md":                "root nova",
				"repo/AGENTS.md":                  "root agents",
				"repo/CLAUDE.md":                  "root claude",
				"repo/NOVACODE.local.md":          "root local",
				"repo/sub/AGENTS.md":              "sub agents",
				"repo/sub/work/CLAUDE.md":         "work claude",
				"repo/sub/work/NOVACODE.md":       "work nova",
				"repo/sub/work/NOVACODE.local.md": "work local",
				"repo/sub/work/deeper/CLAUDE.md":  "below the workdir: not loaded",
				"CLAUDE.md":                       "above the repository root: not loaded",
			},
			workdir: "repo/sub/work",
			want: []string{
				"nova/NOVACODE.md",
				"repo/NOVACODE.md", "repo/AGENTS.md", "repo/CLAUDE.md",
				"repo/sub/AGENTS.md",
				"repo/sub/work/NOVACODE.md", "repo/sub/work/CLAUDE.md",
				"repo/NOVACODE.local.md", "repo/sub/work/NOVACODE.local.md",
			},
		},
		{
			name:    "no repository: only the workdir",
			files:   map[string]string{"a/CLAUDE.md": "parent", "a/b/AGENTS.md": "here"},
			workdir: "a/b",
			want:    []string{"a/b/AGENTS.md"},
		},
		{
			name: "nested imports inlined after the importer",
			git:  ".",
			files: map[string]string{
				"NOVACODE.md":       "see @docs/a.md\n",
				"docs/a.md":         "a imports @sub/b.md.",
				"docs/sub/b.md":     "b",
				"AGENTS.md":         "agents",
				"docs/unused.md":    "never imported",
				"NOVACODE.local.md": "local",
			},
			workdir: ".",
			want:    []string{"NOVACODE.md", "docs/a.md", "docs/sub/b.md", "AGENTS.md", "NOVACODE.local.md"},
		},
		{
			name: "depth limit at 4",
			git:  ".",
			files: map[string]string{
				"CLAUDE.md": "@1.md", "1.md": "@2.md", "2.md": "@3.md", "3.md": "@4.md", "4.md": "@5.md", "5.md": "too deep",
			},
			workdir:  ".",
			want:     []string{"CLAUDE.md", "1.md", "2.md", "3.md", "4.md"},
			warnings: []string{"at most 4 levels deep"},
		},
		{
			name:     "cycle reported",
			git:      ".",
			files:    map[string]string{"CLAUDE.md": "@a.md", "a.md": "@b.md", "b.md": "back to @a.md"},
			workdir:  ".",
			want:     []string{"CLAUDE.md", "a.md", "b.md"},
			warnings: []string{"cycle"},
		},
		{
			name:     "missing import is a warning",
			git:      ".",
			files:    map[string]string{"CLAUDE.md": "@nope.md and @there.md", "there.md": "x"},
			workdir:  ".",
			want:     []string{"CLAUDE.md", "there.md"},
			warnings: []string{"@nope.md not found"},
		},
		{
			name: "code fences and inline code ignored",
			git:  ".",
			files: map[string]string{
				"CLAUDE.md": "```java\n@Override @a.md\n```\n~~~~\n@b.md\n```\n~~~~\nrun `npm i @scope/pkg` then @c.md\nmail me@example.com\n",
				"a.md":      "a", "b.md": "b", "c.md": "c",
			},
			workdir: ".",
			want:    []string{"CLAUDE.md", "c.md"},
		},
		{
			name:    "home import",
			git:     "repo",
			files:   map[string]string{"repo/CLAUDE.md": "@~/prefs.md", "home/prefs.md": "mine"},
			workdir: "repo",
			want:    []string{"repo/CLAUDE.md", "home/prefs.md"},
		},
		{
			name:    "file loaded once even when also imported",
			git:     ".",
			files:   map[string]string{"AGENTS.md": "shared", "CLAUDE.md": "@AGENTS.md"},
			workdir: ".",
			want:    []string{"AGENTS.md", "CLAUDE.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			if tt.git != "" {
				if err := os.MkdirAll(filepath.Join(root, tt.git, ".git"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			wd := filepath.Join(root, tt.workdir)
			if err := os.MkdirAll(wd, 0o755); err != nil {
				t.Fatal(err)
			}
			files, warnings, err := LoadInstructions(filepath.Join(root, "nova"), wd, filepath.Join(root, "home"), filepath.Join(root, "home", ".claude"))
			if err != nil {
				t.Fatal(err)
			}
			if got := rels(t, root, files); !slices.Equal(got, tt.want) {
				t.Errorf("files = %q, want %q", got, tt.want)
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("warnings = %q, want %d matching %q", warnings, len(tt.warnings), tt.warnings)
			}
			for i, w := range tt.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warnings[i], w)
				}
			}
		})
	}
}

func TestLoadInstructionsTruncates(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("line of text\n", MaxFileBytes/10)
	writeFiles(t, root, map[string]string{"CLAUDE.md": big})
	files, _, err := LoadInstructions("", root, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Fatalf("got %d files", len(files))
	}
	c := files[0].Content
	if len(c) > MaxFileBytes+300 || !strings.Contains(c, "[... truncated:") {
		t.Errorf("content of %d bytes, ends %q", len(c), c[len(c)-200:])
	}
}

func TestLoadInstructionsBadWorkdir(t *testing.T) {
	if _, _, err := LoadInstructions("", filepath.Join(t.TempDir(), "missing"), "", ""); err == nil {
		t.Error("want an error for a missing workdir")
	}
}

func TestRender(t *testing.T) {
	if got := Render(nil); got != "" {
		t.Errorf("Render(nil) = %q", got)
	}
	got := Render([]File{{Path: "/p/NOVACODE.md", Content: "Use tabs.\n"}, {Path: "/p/empty.md", Content: "\n"}})
	for _, want := range []string{"<instructions>", "override default behaviour", "/p/NOVACODE.md", "Use tabs.", "</instructions>"} {
		if !strings.Contains(got, want) {
			t.Errorf("Render missing %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "empty.md") {
		t.Errorf("Render shows an empty file:\n%s", got)
	}
}

func TestTracker(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{
		"wd/CLAUDE.md":             "workdir",
		"wd/pkg/AGENTS.md":         "pkg agents",
		"wd/pkg/NOVACODE.local.md": "pkg local",
		"wd/pkg/api/NOVACODE.md":   "api @notes.md",
		"wd/pkg/api/notes.md":      "notes",
		"wd/pkg/api/handler.go":    "package api",
		"wd/other/CLAUDE.md":       "other",
		"outside/CLAUDE.md":        "outside",
	})
	root := filepath.Join(base, "wd")
	files, _, err := LoadInstructions("", root, "", "")
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTracker(root, "", files)
	steps := []struct {
		path string
		want []string
	}{
		{"CLAUDE.md", nil},
		{filepath.Join(root, "pkg", "api", "handler.go"), []string{"pkg/AGENTS.md", "pkg/NOVACODE.local.md", "pkg/api/NOVACODE.md", "pkg/api/notes.md"}},
		{"pkg/api/handler.go", nil},
		{"pkg", nil},
		{"other", []string{"other/CLAUDE.md"}},
		{"other/new/file.go", nil},
		{filepath.Join(base, "outside", "x"), nil},
		{"../outside/CLAUDE.md", nil},
	}
	for _, s := range steps {
		if got := rels(t, root, tr.Touch(s.path)); !slices.Equal(got, s.want) {
			t.Errorf("Touch(%s) = %q, want %q", s.path, got, s.want)
		}
	}
	if w := tr.Warnings(); len(w) != 0 {
		t.Errorf("warnings = %q", w)
	}
}

// TestTrackerHome checks "~/" imports of a nested file lead to the home
// directory the tracker was given, not the process's.
func TestTrackerHome(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{"wd/pkg/CLAUDE.md": "@~/prefs.md", "home/prefs.md": "mine", "decoy/prefs.md": "not mine"})
	t.Setenv("HOME", filepath.Join(base, "decoy"))
	root := filepath.Join(base, "wd")
	got := rels(t, base, NewTracker(root, filepath.Join(base, "home"), nil).Touch("pkg/x.go"))
	if want := []string{"wd/pkg/CLAUDE.md", "home/prefs.md"}; !slices.Equal(got, want) {
		t.Errorf("Touch = %q, want %q", got, want)
	}
	tr := NewTracker(root, "", nil)
	if got := rels(t, base, tr.Touch("pkg/x.go")); !slices.Equal(got, []string{"wd/pkg/CLAUDE.md"}) || len(tr.Warnings()) != 1 {
		t.Errorf("without a home: Touch = %q, warnings %q; want the file and a warning", got, tr.Warnings())
	}
}

func TestTrackerConcurrent(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a/b/CLAUDE.md": "x", "a/AGENTS.md": "y"})
	tr := NewTracker(root, "", nil)
	results := make(chan int, 8)
	for range 8 {
		go func() { results <- len(tr.Touch("a/b/c.go")) }()
	}
	total := 0
	for range 8 {
		total += <-results
	}
	if total != 2 {
		t.Errorf("files returned in all = %d, want 2", total)
	}
}
