package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/agent"
)

// runProgram runs the real program on a fake terminal: keys from a pipe,
// output collected, with the given environment (TTY_FORCE=1 makes colour
// detection treat the buffer as the terminal it stands for).
func runProgram(t *testing.T, env []string, keys string) string {
	t.Helper()
	return runProgramWith(t, newFake(), env, keys)
}

// runProgramWith runs the program on b; each of keys is sent once the
// screen shows what the one before it waits for (keys[i] is sent when the
// output holds waits[i-1]).
func runProgramWith(t *testing.T, b Backend, env []string, keys string, more ...string) string {
	t.Helper()
	pr, pw := io.Pipe()
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, b, Options{In: pr, Out: &out, Env: env, Width: 80, Height: 24}) }()
	// Keys are sent once the screen shows what they wait for: at first,
	// the first frame, so the program is reading.
	waitFor := func(want string) {
		for !strings.Contains(out.String(), want) {
			select {
			case err := <-errc:
				t.Fatalf("program ended early: %v\n%q", err, out.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	waitFor("Ask nova anything")
	_, _ = pw.Write([]byte(keys))
	for i := 0; i+1 < len(more); i += 2 {
		waitFor(more[i])
		_, _ = pw.Write([]byte(more[i+1]))
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-ctx.Done():
		t.Fatalf("the program did not quit on %q", keys)
	}
	return out.String()
}

func TestTUIRunQuitsOnCtrlCTwice(t *testing.T) {
	out := runProgram(t, []string{"TERM=xterm-256color", "COLORTERM=truecolor", "TTY_FORCE=1"}, "\x03\x03")
	if !strings.Contains(out, "\x1b[?1049h") {
		t.Error("the alternate screen was not entered")
	}
	if strings.Contains(out, "\x1b[?1000h") || strings.Contains(out, "\x1b[?1002h") || strings.Contains(out, "\x1b[?1003h") {
		t.Error("the mouse was captured; terminal selection would break")
	}
	if !strings.Contains(out, "\x1b[38;") {
		t.Error("no colour on a colour terminal")
	}
}

func TestTUINoColor(t *testing.T) {
	out := runProgram(t, []string{"TERM=xterm-256color", "COLORTERM=truecolor", "TTY_FORCE=1", "NO_COLOR=1"}, "\x03\x03")
	if strings.Contains(out, "\x1b[38;") || strings.Contains(out, "\x1b[48;") {
		t.Errorf("colour escapes with NO_COLOR set")
	}
}

// TestTUIRunPrintsFarewell: after quitting, the whole conversation (each
// prompt and answer, not only the last) and the command that resumes the
// session are printed into the normal screen (after the alternate screen is
// left), without colour under NO_COLOR.
func TestTUIRunPrintsFarewell(t *testing.T) {
	b := newFake()
	b.runs = [][]agent.Event{
		{text("First answer: the build is green."), done(agent.SubtypeSuccess)},
		{text("All **done**: the tests pass."), done(agent.SubtypeSuccess)},
	}
	out := runProgramWith(t, b, []string{"TERM=xterm-256color", "COLORTERM=truecolor", "TTY_FORCE=1", "NO_COLOR=1"}, "build it\r", "the build is green", "check it\r", "the tests pass", "\x03\x03")
	leave := strings.LastIndex(out, "\x1b[?1049l")
	if leave < 0 {
		t.Fatalf("the alternate screen was not left: %q", out)
	}
	after := out[leave:]
	// Glamour's padding is left out: the scrollback copies as text.
	for _, want := range []string{"❯ build it", "First answer: the build is green.\n", "❯ check it", "All done: the tests pass.\n", "Resume this session with: nova -r 01JTEST"} {
		if !strings.Contains(ansi.Strip(after), want) {
			t.Errorf("after exit the terminal lacks %q: %q", want, after)
		}
	}
	if strings.Contains(after, "\x1b[38;") {
		t.Errorf("colour printed under NO_COLOR: %q", after)
	}
}

// TestTUIRunNoFarewellForNothing: a session nobody prompted has nothing
// to resume, and nothing is printed.
func TestTUIRunNoFarewellForNothing(t *testing.T) {
	out := runProgram(t, []string{"TERM=xterm-256color"}, "\x03\x03")
	if i := strings.LastIndex(out, "\x1b[?1049l"); i < 0 || strings.Contains(out[i:], "Resume") {
		t.Errorf("printed a resume line for an empty session: %q", out)
	}
}

// syncBuffer is a bytes.Buffer safe for the program's writer goroutine and
// the test's reads. (A zero sync.Mutex: a lazily made lock would itself
// race between the first writer and the first reader.)
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
