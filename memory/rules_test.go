package memory

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Claude Code's four memory locations are read in their places, and a
// rule with paths: is held back until a tool touches a match.
func TestClaudeCodeMemoryLocations(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	writeFiles(t, root, map[string]string{
		"home/.claude/CLAUDE.md":                "user claude",
		"home/.claude/rules/style.md":           "user rule",
		"repo/CLAUDE.md":                        "project claude",
		"repo/.claude/CLAUDE.md":                "project dot claude",
		"repo/.claude/rules/always.md":          "---\ndescription: no paths\n---\nalways rule",
		"repo/.claude/rules/api/handlers.md":    "---\npaths:\n  - \"src/api/**/*.go\"\n---\napi rule\n",
		"repo/.claude/rules/tests.md":           "---\npaths: \"**/*_test.go, testdata/**\"\n---\ntest rule\n",
		"repo/.claude/rules/notes.txt":          "not a rule",
		"repo/CLAUDE.local.md":                  "local claude",
		"repo/src/api/v1/users.go":              "package v1",
		"repo/src/api/README.md":                "readme",
		"repo/src/.claude/CLAUDE.md":            "src dot claude",
		"repo/src/CLAUDE.local.md":              "src local",
		"repo/src/.claude/rules/nested.md":      "nested rule",
		"repo/src/.claude/rules/nested-cond.md": "---\npaths: [\"**/*.go\"]\n---\nnested cond\n",
	})
	if err := os.Mkdir(filepath.Join(root, "repo", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	wd := filepath.Join(root, "repo")
	files, warns, err := LoadInstructions(filepath.Join(root, "nova"), wd, home, filepath.Join(home, ".claude"))
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	want := []string{"home/.claude/CLAUDE.md", "home/.claude/rules/style.md", "repo/CLAUDE.md", "repo/.claude/CLAUDE.md",
		"repo/.claude/rules/always.md", "repo/.claude/rules/api/handlers.md", "repo/.claude/rules/tests.md", "repo/CLAUDE.local.md"}
	if got := rels(t, root, files); !slices.Equal(got, want) {
		t.Errorf("files = %v\nwant %v", got, want)
	}
	var always []string
	for _, f := range Unconditional(files) {
		always = append(always, f.Content)
	}
	if want := []string{"user claude", "user rule", "project claude", "project dot claude", "always rule", "local claude"}; !slices.Equal(always, want) {
		t.Errorf("unconditional contents = %q, want %q", always, want)
	}
	if f := files[5]; !slices.Equal(f.Paths, []string{"src/api/**/*.go"}) || f.Content != "api rule\n" {
		t.Errorf("conditional rule = %+v", f)
	}
	if f := files[6]; !slices.Equal(f.Paths, []string{"**/*_test.go", "testdata/**"}) {
		t.Errorf("comma-separated paths = %q", f.Paths)
	}

	tr := NewTracker(wd, home, files)
	if got := rels(t, root, tr.Touch("src/api/README.md")); !slices.Equal(got, []string{"repo/src/.claude/CLAUDE.md", "repo/src/.claude/rules/nested.md", "repo/src/CLAUDE.local.md"}) {
		t.Errorf("a non-matching file in src/ gave %v", got)
	}
	if got := rels(t, root, tr.Touch("src/api/v1/users.go")); !slices.Equal(got, []string{"repo/.claude/rules/api/handlers.md", "repo/src/.claude/rules/nested-cond.md"}) {
		t.Errorf("a matching file gave %v, want the api rule and the nested conditional one", got)
	}
	if got := tr.Touch(filepath.Join(wd, "src/api/v1/users.go")); len(got) != 0 {
		t.Errorf("a rule was given twice: %v", rels(t, root, got))
	}
	if got := rels(t, root, tr.Touch("pkg/x_test.go")); !slices.Equal(got, []string{"repo/.claude/rules/tests.md"}) {
		t.Errorf("a test file gave %v", got)
	}
	if got := tr.Touch(filepath.Join(root, "elsewhere", "src", "api", "a.go")); len(got) != 0 {
		t.Errorf("a file outside the project matched %v", rels(t, root, got))
	}
	if w := tr.Warnings(); len(w) > 0 {
		t.Errorf("warnings %v", w)
	}
}

// A rule whose frontmatter is broken YAML still applies (everywhere),
// with a warning naming it.
func TestRuleBadFrontmatter(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".claude/rules/bad.md": "---\npaths: [unclosed\n---\nbody\n"})
	files, warns, err := LoadInstructions("", root, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Conditional() || len(warns) != 1 {
		t.Errorf("files %+v, warnings %v", files, warns)
	}
}
