package tui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// echoModel shows the keys typed so far.
type echoModel struct{ typed string }

func (m *echoModel) Init() tea.Cmd { return nil }

func (m *echoModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		if k.String() == "ctrl+c" {
			return m, tea.Quit
		}
		m.typed += k.Text
	}
	return m, nil
}

func (m *echoModel) View() tea.View {
	v := tea.NewView("typed: [" + m.typed + "]")
	v.AltScreen = true
	return v
}

// TestPacerStopsAndWakesTheRenderer runs a real program with the pacer:
// it finds Bubble Tea's frame ticker (a Bubble Tea upgrade that renames
// Program.ticker fails here, not silently in the idle benchmark), stops
// it once nothing happens, and a key typed after that still reaches the
// screen.
func TestPacerStopsAndWakesTheRenderer(t *testing.T) {
	pr, pw := io.Pipe()
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pc := newPacer(fps)
	pc.after = 200 * time.Millisecond // six frames: the first must be drawn before it stops
	quiet := make(chan struct{}, 8)
	pc.onQuiet = func() { quiet <- struct{}{} }
	p := tea.NewProgram(&echoModel{}, append(programOptions(ctx, Options{In: pr, Out: &out, Width: 40, Height: 5}), tea.WithFilter(pc.filter))...)
	pc.prog = p
	errc := make(chan error, 1)
	go func() { _, err := p.Run(); errc <- err }()

	waitQuiet := func(what string) {
		t.Helper()
		select {
		case <-quiet:
		case err := <-errc:
			t.Fatalf("%s: the program ended: %v", what, err)
		case <-ctx.Done():
			t.Fatalf("%s: the renderer's ticker was never stopped (found: %v)", what, pc.found())
		}
	}
	waitQuiet("at start")
	if !pc.found() {
		t.Fatal("the pacer did not find Bubble Tea's frame ticker (Program.ticker)")
	}
	if !strings.Contains(out.String(), "typed: []") {
		t.Fatalf("the first frame was not drawn before the ticker stopped: %q", out.String())
	}

	_, _ = pw.Write([]byte("hi"))
	waitQuiet("after typing")
	// The renderer draws only what changed: the last frame ends in "i]".
	if !strings.Contains(out.String(), "i]") {
		t.Fatalf("keys typed while the ticker was stopped never reached the screen: %q", out.String())
	}
	_, _ = pw.Write([]byte("\x03"))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	pc.stop()
}
