package skills

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies the directory src to dest.
func copyTree(t *testing.T, src, dest string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dest, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dest, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Anthropic's own public skills (testdata/public/anthropics-skills, Apache
// 2.0, SOURCE.md says from where), put in ~/.claude/skills as a Claude Code
// user has them: both are listed for the model with their whole
// description (internal-comms' is past the 250 characters nova once cut
// at), and the Skill tool loads one's instructions with its directory, so
// its examples/ can be read.
func TestPublicClaudeSkills(t *testing.T) {
	d := world(t)
	copyTree(t, filepath.Join("testdata", "public", "anthropics-skills"), filepath.Join(d.ClaudeHome, "skills"))
	s := newSession(t, d)
	l := s.m.Listing()
	for _, want := range []string{
		"- brand-guidelines: Applies Anthropic's official brand colors and typography",
		"(status reports, leadership updates, 3P updates, company newsletters, FAQs, incident reports, project updates, etc.).",
	} {
		if !strings.Contains(l, want) {
			t.Errorf("the listing lacks %q:\n%s", want, l)
		}
	}
	if set := s.m.Load(); len(set.Warnings) > 0 {
		t.Errorf("loading public skills warned: %v", set.Warnings)
	}
	res, err := s.m.LoadSkill(context.Background(), "internal-comms", "", nil)
	dir := filepath.Join(d.ClaudeHome, "skills", "internal-comms")
	if err != nil || res.IsError || !strings.Contains(res.Output, "Base directory for this skill: "+dir) || !strings.Contains(res.Output, "## When to use this skill") {
		t.Errorf("Skill(internal-comms) = %.300q (%v)", res.Output, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "examples", "3p-updates.md")); err != nil {
		t.Errorf("the skill's example is not beside it: %v", err)
	}
}
