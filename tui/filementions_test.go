package tui

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/nova-dev/nova/agent"
)

// fileBackend reads @file mentions from files (path -> text); a path in
// denied is an error, any other is no file.
type fileBackend struct {
	*fakeBackend
	files  map[string]string
	denied map[string]bool
	asked  []string
}

func (b *fileBackend) ReadMentionedFile(_ context.Context, path string) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked = append(b.asked, path)
	if b.denied[path] {
		return "", false, errors.New("@" + path + ": not attached, reading it is denied")
	}
	text, ok := b.files[path]
	return text, ok, nil
}

// TestTUIFileMentionAttached: @path attaches the file (as the backend
// reads it) after the typed text, with a notice; an @word that is no file
// stays text; punctuation after the path is the sentence's.
func TestTUIFileMentionAttached(t *testing.T) {
	b := &fileBackend{fakeBackend: newFake(), files: map[string]string{"src/main.go": "     1\tpackage main\n     2\t\n"}}
	b.runs = [][]agent.Event{{text("It is a main package."), done(agent.SubtypeSuccess)}}
	h := newHarnessWith(t, b, b.fakeBackend)
	h.send(pasteMsg("what is @src/main.go? ask @alice"))
	h.press("enter")
	got := lastInput(t, b.fakeBackend)
	want := []string{"what is @src/main.go? ask @alice", "<file path=\"src/main.go\">\n     1\tpackage main\n     2\t\n</file>"}
	if !slices.Equal(got, want) {
		t.Errorf("the agent got %q\nwant %q", got, want)
	}
	if !slices.Equal(b.asked, []string{"src/main.go", "alice"}) {
		t.Errorf("asked for %q", b.asked)
	}
	h.says("· Attached @src/main.go (2 lines)")
	h.says("It is a main package.")

	// A resumed session shows the attachment as a line, not its text.
	tr := newTranscript()
	tr.loadHistory(b.inputs[len(b.inputs)-1 : len(b.inputs)])
	if n := len(tr.entries); n != 2 || tr.entries[1].kind != entryNotice || tr.entries[1].text != "Attached @src/main.go" {
		t.Errorf("resumed: %+v", tr.entries)
	}
}

// TestTUIFileMentionRefused: a file that may not be read is not sent; the
// prompt comes back to the input, as for an MCP resource that cannot be
// read.
func TestTUIFileMentionRefused(t *testing.T) {
	b := &fileBackend{fakeBackend: newFake(), denied: map[string]bool{"secret/key.txt": true}}
	h := newHarnessWith(t, b, b.fakeBackend)
	h.send(pasteMsg("print @secret/key.txt"))
	h.press("enter")
	h.says("✗ @secret/key.txt: not attached, reading it is denied")
	h.says("Not sent: the prompt is back in the input.")
	if runs(b.fakeBackend) != 0 {
		t.Error("the prompt was sent without its file")
	}
}
