package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
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
	got := src.Discover(context.Background(), []string{filepath.Join(ws, "pkg", "a.go")})
	if !strings.Contains(got, "pkg rule: no globals") {
		t.Errorf("Discover = %q, want the pkg instructions", got)
	}
	if again := src.Discover(context.Background(), []string{filepath.Join(ws, "pkg", "a.go")}); again != "" {
		t.Errorf("instructions discovered twice: %q", again)
	}
	// After a compaction the message is rebuilt from the files as they are now.
	write(filepath.Join(ws, "NOVACODE.md"), "root rule: use spaces\n")
	if msg := src.Message(context.Background()); !strings.Contains(msg, "use spaces") {
		t.Errorf("edited instructions not re-read")
	}
}

// TestContextSourceReportsImportWarnings: a missing @import, a cycle and
// the depth limit reach the run as notices through Env, each once however
// often the context is rebuilt; without Env they wait for Warnings.
func TestContextSourceReportsImportWarnings(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	write := func(name, s string) {
		t.Helper()
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("NOVACODE.md", "See @missing.md and @a.md and @d1.md.\n")
	write("a.md", "back to @NOVACODE.md\n")
	for i := 1; i <= memory.MaxImportDepth+1; i++ {
		write(fmt.Sprintf("d%d.md", i), fmt.Sprintf("level %d @d%d.md\n", i, i+1))
	}
	write("sub/AGENTS.md", "sub rule @nowhere.md\n")
	write("sub/x.go", "package sub\n")

	// In a run, each warning is a notice of the run.
	var mu sync.Mutex
	var notices []string
	run := withSink(context.Background(), func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Type == EventNotice {
			notices = append(notices, ev.Text)
		}
	})
	src := &ContextSource{NovaHome: filepath.Join(home, ".nova"), Workdir: ws, Home: home}
	src.Message(run)
	src.Message(run) // after a compaction
	src.Discover(run, []string{filepath.Join(ws, "sub", "x.go")})
	joined := strings.Join(notices, "\n")
	for _, want := range []string{"import @missing.md not found", "would create a cycle", "at most 4 levels deep", "import @nowhere.md not found"} {
		if n := strings.Count(joined, want); n != 1 {
			t.Errorf("%q told %d times, want once:\n%s", want, n, joined)
		}
	}
	if len(notices) != 4 || !strings.HasPrefix(notices[0], "warning: instruction files: ") {
		t.Errorf("notices = %q", notices)
	}
	if w := src.Warnings(); len(w) != 0 {
		t.Errorf("Warnings after notices = %q", w)
	}

	quiet := &ContextSource{NovaHome: filepath.Join(home, ".nova"), Workdir: ws, Home: home}
	quiet.Message(context.Background())
	quiet.Message(context.Background())
	if w := quiet.Warnings(); len(w) != 3 {
		t.Errorf("Warnings outside a run = %q, want the three, once", w)
	}
}

// The context message is recorded as a part of its own ahead of the
// prompt, so a history shown to a person (session.WithoutContext) leaves
// out exactly it: instruction files and memory included, the prompt's
// own parts whole.
func TestContextRecordedApart(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	novaHome := filepath.Join(home, ".nova")
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("rule: be terse\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := memory.AppendMemory(novaHome, ws, "preference", "short answers"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, permission.ModeDefault, false)
	rec := &memRecorder{}
	h.agent.cfg.Recorder = rec
	h.agent.cfg.Context = (&ContextSource{NovaHome: novaHome, Workdir: ws, Home: home}).Message
	h.client.resps = append(h.client.resps, reply("one"), reply("two"))
	prompt := llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("<document name=\"a\">\nx\n</document>"), llm.TextPart("hi")}}
	drain(h.agent.Run(context.Background(), prompt), nil)
	drain(h.agent.Run(context.Background(), llm.UserText("<environment> is a word I typed")), nil)

	sent := h.client.reqs[0].Messages[0]
	if len(sent.Parts) != 3 || !session.IsContext(sent.Parts[0]) || !strings.Contains(sent.Parts[0].Text, "rule: be terse") || !strings.Contains(sent.Parts[0].Text, "short answers") {
		t.Fatalf("the model's first message = %+v, want the context then the prompt", sent)
	}
	if got := session.WithoutContext(rec.msgs[0]); !reflect.DeepEqual(got, prompt) {
		t.Errorf("first message without the context = %+v, want the prompt %+v", got, prompt)
	}
	if len(rec.msgs) < 3 || rec.msgs[2].Text() != "<environment> is a word I typed" {
		t.Errorf("later messages carry no context: %+v", rec.msgs)
	}
}
