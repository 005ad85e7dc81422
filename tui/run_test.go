package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// runProgram runs the real program on a fake terminal: keys from a pipe,
// output collected, with the given environment (TTY_FORCE=1 makes colour
// detection treat the buffer as the terminal it stands for).
func runProgram(t *testing.T, env []string, keys string) string {
	t.Helper()
	pr, pw := io.Pipe()
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, newFake(), Options{In: pr, Out: &out, Env: env, Width: 80, Height: 24}) }()
	// Keys are sent once the first frame is out, so the program is reading.
	for !strings.Contains(out.String(), "Ask nova anything") {
		select {
		case err := <-errc:
			t.Fatalf("program ended early: %v\n%q", err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	_, _ = pw.Write([]byte(keys))
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
