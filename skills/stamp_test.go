package skills

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The stamp changes when a skill or command file is added, edited or
// removed, and only then.
func TestDirsStamp(t *testing.T) {
	ws := t.TempDir()
	d := Dirs{NovaHome: t.TempDir(), Workdir: ws, Trusted: true}
	s0 := d.Stamp()
	if d.Stamp() != s0 {
		t.Fatal("the stamp changed with nothing changed")
	}
	write := func(rel, text string) {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/commands/release.md", "Cut a release.\n")
	s1 := d.Stamp()
	if s1 == s0 {
		t.Error("a new command file left the stamp as it was")
	}
	write(".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploy\n---\nGo.\n")
	s2 := d.Stamp()
	if s2 == s1 {
		t.Error("a new SKILL.md left the stamp as it was")
	}
	write(".claude/commands/release.md", "Cut a release, carefully.\n")
	// Same second on a coarse clock: the size tells the edit.
	s3 := d.Stamp()
	if s3 == s2 {
		t.Error("an edited command file left the stamp as it was")
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(ws, ".claude/commands/release.md"), past, past); err != nil {
		t.Fatal(err)
	}
	if d.Stamp() == s3 {
		t.Error("a new modification time left the stamp as it was")
	}
	if err := os.Remove(filepath.Join(ws, ".claude/skills/deploy/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	s4 := d.Stamp()
	write(".claude/notes.txt", "not a skill")
	if d.Stamp() != s4 {
		t.Error("a file that is no skill or command changed the stamp")
	}
	d.Trusted = false
	if d.Stamp() == s4 {
		t.Error("trust changed and the stamp did not")
	}
}
