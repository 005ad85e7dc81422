package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/memory"
)

func TestContextSource(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	novaHome := filepath.Join(home, ".nova")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "NOVACODE.md"), "root rule: use tabs\n")
	write(filepath.Join(ws, "pkg", "AGENTS.md"), "pkg rule: no globals\n")
	write(filepath.Join(ws, "pkg", "a.go"), "package pkg\n")
	if err := memory.AppendMemory(novaHome, ws, "preference", "the user likes short answers"); err != nil {
		t.Fatal(err)
	}
	src := &ContextSource{NovaHome: novaHome, Workdir: ws, Home: home}
	msg := src.Message(context.Background())
	for _, want := range []string{"<environment>", "Working directory: " + ws, "root rule: use tabs", "the user likes short answers"} {
		if !strings.Contains(msg, want) {
			t.Errorf("context message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "pkg rule") {
		t.Error("a subdirectory's instructions were loaded before it was touched")
	}
	got := src.Discover([]string{filepath.Join(ws, "pkg", "a.go")})
	if !strings.Contains(got, "pkg rule: no globals") {
		t.Errorf("Discover = %q, want the pkg instructions", got)
	}
	if again := src.Discover([]string{filepath.Join(ws, "pkg", "a.go")}); again != "" {
		t.Errorf("instructions discovered twice: %q", again)
	}
	// After a compaction the message is rebuilt from the files as they are now.
	write(filepath.Join(ws, "NOVACODE.md"), "root rule: use spaces\n")
	if msg := src.Message(context.Background()); !strings.Contains(msg, "use spaces") {
		t.Errorf("edited instructions not re-read")
	}
}
