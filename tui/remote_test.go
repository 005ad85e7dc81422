package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/tools"
)

// remoteBackend is a fake backend with the Remote capability: the test
// plays the browser by sending runs on its channel.
type remoteBackend struct {
	*fakeBackend
	info      RemoteInfo
	on        bool
	addr      string // what StartRemote was given
	runs      chan RemoteRun
	startErr  error
	stops     int
	interrupt int
}

func (r *remoteBackend) StartRemote(addr string) (RemoteInfo, error) {
	if r.startErr != nil {
		return RemoteInfo{}, r.startErr
	}
	r.addr, r.on = addr, true
	r.runs = make(chan RemoteRun, 4)
	return r.info, nil
}

func (r *remoteBackend) StopRemote() error {
	r.stops++
	r.on = false
	close(r.runs)
	return nil
}

func (r *remoteBackend) RemoteInfo() (RemoteInfo, bool) { return r.info, r.on }
func (r *remoteBackend) RemoteRuns() <-chan RemoteRun   { return r.runs }

// remoteWait stands in for the read of a share's next run (shareState.wait):
// the test delivers the run itself (deliverRun), so no command blocks.
type remoteWait struct{ ch <-chan RemoteRun }

func newRemoteHarness(t *testing.T, b *remoteBackend) *harness {
	t.Helper()
	h := newHarness(t, b.fakeBackend)
	h.m.b = b
	h.m.in.comp.commands = h.m.commandNames()
	h.m.share.wait = func(ch <-chan RemoteRun) tea.Cmd { return func() tea.Msg { return remoteWait{ch} } }
	h.send(tea.WindowSizeMsg{Width: 140, Height: 40}) // the URL on one line
	return h
}

// deliverRun hands the model the share's next run (or its end), as the
// real read would.
func (h *harness) deliverRun(ch <-chan RemoteRun) {
	h.t.Helper()
	select {
	case r, ok := <-ch:
		h.send(remoteRunMsg{ch: ch, run: r, closed: !ok})
	case <-time.After(10 * time.Second):
		h.t.Fatal("no run of the share came in 10 s")
	}
}

func (h *harness) command(line string) {
	h.t.Helper()
	h.typeText(line)
	h.press("enter")
}

const testShareURL = "http://127.0.0.1:8765/#token=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// /remote shares the session and shows its URL, a QR code of it and, on
// loopback, that a phone needs --host; again it shows them again; /remote
// off stops the share and says the URL no longer answers.
func TestTUIRemoteOnAndOff(t *testing.T) {
	b := &remoteBackend{fakeBackend: newFake(), info: RemoteInfo{URL: testShareURL}}
	h := newRemoteHarness(t, b)
	h.command("/remote")
	if !b.on || b.addr != "" {
		t.Fatalf("share on %v at %q, want on at the default address", b.on, b.addr)
	}
	h.contains(testShareURL)
	h.contains("Loopback: only this machine can open it")
	if !strings.Contains(h.screen(), "▀") {
		t.Errorf("no QR code on the screen:\n%s", h.screen())
	}
	h.command("/remote 0.0.0.0")
	h.contains("already shared at " + testShareURL)

	h.command("/remote off")
	if b.stops != 1 {
		t.Fatalf("%d stops", b.stops)
	}
	h.contains("Stopped sharing this session: " + testShareURL)
	h.command("/remote off")
	h.contains("This session is not shared.")

	b.info.Exposed = true
	h.command("/remote 0.0.0.0:9000")
	if b.addr != "0.0.0.0:9000" {
		t.Errorf("StartRemote got %q", b.addr)
	}
	h.contains("Not encrypted: anyone on this network can read the traffic")

	b.startErr = errors.New("listen tcp 127.0.0.1:8765: bind: address already in use")
	b.on = false
	h.command("/remote")
	h.contains("/remote: listen tcp 127.0.0.1:8765: bind: address already in use")
}

// A run started in the browser is shown as the TUI's own: its prompt,
// marked as the browser's, then its answer; esc interrupts it; a prompt
// typed meanwhile waits for it, as for a run of the TUI's own.
func TestTUIRemoteRunShown(t *testing.T) {
	b := &remoteBackend{fakeBackend: newFake(), info: RemoteInfo{URL: testShareURL}}
	h := newRemoteHarness(t, b)
	h.command("/remote")
	events := make(chan agent.Event, 8)
	b.runs <- RemoteRun{Prompt: "hello from the phone", Events: events, Interrupt: func() { b.interrupt++ }}
	h.deliverRun(b.runs)
	h.contains("❯ hello from the phone")
	h.contains("Sent from the browser")
	events <- agent.Event{Type: agent.EventTurnStart, Turn: 1}
	events <- text("Hi, phone.")
	h.settle()
	h.contains("Hi, phone.")

	h.command("and from the terminal")
	h.contains("queued: and from the terminal")
	if len(b.inputs) != 0 {
		t.Fatalf("the typed prompt ran during the browser's run: %+v", b.inputs)
	}
	h.press("esc")
	if b.interrupt != 1 {
		t.Errorf("esc interrupted %d times, want 1", b.interrupt)
	}
	// esc took the queued prompt back; send it again once the run ends.
	events <- done(agent.SubtypeInterrupted)
	close(events)
	h.settle()
	if h.m.run != nil {
		t.Fatal("the browser's run is still current after its end")
	}
	h.press("enter")
	if len(b.inputs) != 1 {
		t.Errorf("after the browser's run the prompt did not run: %d runs", len(b.inputs))
	}
}

// A browser's run that begins while the TUI's own last run is still on
// its way out is shown once that run has ended, before the prompts
// queued here.
func TestTUIRemoteRunWaitsForTheRunOnScreen(t *testing.T) {
	b := &remoteBackend{fakeBackend: newFake(), info: RemoteInfo{URL: testShareURL}}
	b.fakeBackend.runs = [][]agent.Event{{text("mine")}}
	h := newRemoteHarness(t, b)
	h.command("/remote")
	h.command("my prompt")
	h.command("queued one")
	events := make(chan agent.Event, 8)
	b.runs <- RemoteRun{Prompt: "the phone's", Events: events}
	h.deliverRun(b.runs)
	if strings.Contains(h.screen(), "the phone's") {
		t.Fatal("the browser's run was shown while the TUI's own was current")
	}
	own := b.chans[0]
	own <- done(agent.SubtypeSuccess)
	close(own)
	h.settle()
	h.contains("❯ the phone's")
	if len(b.inputs) != 1 {
		t.Fatalf("the queued prompt ran before the browser's run: %d runs", len(b.inputs))
	}
	events <- text("theirs")
	events <- done(agent.SubtypeSuccess)
	close(events)
	h.settle()
	if len(b.inputs) != 2 || b.inputs[1].Parts[0].Text != "queued one" {
		t.Errorf("after the browser's run: %d runs", len(b.inputs))
	}
}

// An ask answered in the browser closes the TUI's dialog and says how it
// was answered; the answer the TUI gives itself closes it with no word.
func TestTUIRemoteAnsweredClosesDialog(t *testing.T) {
	b := newAgentBackend(t,
		toolTurn("call_1", "Bash", map[string]any{"command": "echo hi > made.txt"}),
		textTurn("Made the file."))
	h := newAgentHarness(t, b)
	h.typeText("make a file")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	ask := h.m.dialogs[0].(*permissionDialog).ask
	if !ask.Answer(agent.PermissionAnswer{Allow: true}) { // the browser's answer
		t.Fatal("the browser's answer was not taken")
	}
	h.waitFor(func() bool { return len(h.m.dialogs) == 0 })
	h.contains("Bash allowed in the browser")
	h.waitFor(func() bool { return h.m.run == nil })
	h.contains("Made the file.")
}

// The code on the screen is the QR code of the URL: read back from the
// half blocks, module by module, inside its quiet zone.
func TestQRLinesAreTheCode(t *testing.T) {
	lines, err := qrLines(testShareURL)
	if err != nil {
		t.Fatal(err)
	}
	q, err := qrcode.New(testShareURL, qrcode.Low)
	if err != nil {
		t.Fatal(err)
	}
	q.DisableBorder = true
	want := q.Bitmap()
	n := len(want) + 2*qrQuiet
	if len(lines) != (n+1)/2 {
		t.Fatalf("%d lines for %d modules", len(lines), n)
	}
	for r := 0; r < n; r++ {
		row := []rune(ansi.Strip(lines[r/2]))
		if len(row) != n {
			t.Fatalf("line %d is %d wide, want %d", r/2, len(row), n)
		}
		for c := 0; c < n; c++ {
			g := row[c]
			dark := g == '█' || (r%2 == 0 && g == '▀') || (r%2 == 1 && g == '▄')
			wr, wc := r-qrQuiet, c-qrQuiet
			in := wr >= 0 && wc >= 0 && wr < len(want) && wc < len(want)
			if dark != (in && want[wr][wc]) {
				t.Fatalf("module %d,%d: dark %v", r, c, dark)
			}
		}
	}
}

// A question answered elsewhere closes its dialog too; an answered event
// for an ask the TUI does not show changes nothing.
func TestTUIRemoteAnsweredQuestion(t *testing.T) {
	b := newFake()
	q := &agent.QuestionAsk{ID: "q1", Questions: []tools.Question{{Question: "Which one?", Options: []tools.Option{{Label: "A"}, {Label: "B"}}}}}
	b.runs = [][]agent.Event{{{Type: agent.EventQuestion, Question: q}}}
	h := newHarness(t, b)
	h.command("pick")
	h.contains("Which one?")
	ch := b.chans[0]
	ch <- agent.Event{Type: agent.EventAnswered, Answered: &agent.Answered{ID: "other"}}
	h.settle()
	if len(h.m.dialogs) != 1 {
		t.Fatal("an answer to another ask closed the dialog")
	}
	ch <- agent.Event{Type: agent.EventAnswered, Answered: &agent.Answered{ID: "q1"}}
	h.settle()
	if len(h.m.dialogs) != 0 {
		t.Fatal("the answered question's dialog is still open")
	}
	h.contains("Question answered in the browser")
}

// The status line says "shared" while /remote shares the session, and
// no longer once it stops.
func TestTUIRemoteSharedMarker(t *testing.T) {
	b := &remoteBackend{fakeBackend: newFake(), info: RemoteInfo{URL: testShareURL}}
	h := newRemoteHarness(t, b)
	statusLine := func() string {
		ls := strings.Split(h.screen(), "\n")
		return ls[len(ls)-1]
	}
	if s := statusLine(); strings.Contains(s, "shared") {
		t.Fatalf("status line says shared before /remote: %q", s)
	}
	h.command("/remote")
	if s := statusLine(); !strings.Contains(s, "anthropic:claude-sonnet-4-5 · default · shared · ") {
		t.Errorf("status line while shared: %q", s)
	}
	h.send(tea.WindowSizeMsg{Width: 50, Height: 40})
	if s := statusLine(); !strings.Contains(s, "shared") {
		t.Errorf("a narrow status line dropped the marker: %q", s)
	}
	h.command("/remote off")
	if s := statusLine(); strings.Contains(s, "shared") {
		t.Errorf("status line after /remote off: %q", s)
	}
}

// At 80 columns the URL (a token of 43 characters, as remote.NewToken
// makes) is on one line of the screen, whole, so it can be copied; on
// loopback with a LAN address at hand, /remote says how to reach a phone.
func TestTUIRemoteURLWholeAt80Columns(t *testing.T) {
	url := "http://192.168.100.200:8765/#token=" + strings.Repeat("Ab3_-x9", 6) + "Q"
	b := &remoteBackend{fakeBackend: newFake(), info: RemoteInfo{URL: "http://127.0.0.1:8765/#token=" + strings.Repeat("Ab3_-x9", 6) + "Q", LAN: "192.168.100.200"}}
	h := newRemoteHarness(t, b)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 40})
	h.command("/remote")
	lineWith := func(s string) bool {
		for _, l := range strings.Split(ansi.Strip(h.screen()), "\n") {
			if strings.Contains(l, s) {
				return true
			}
		}
		return false
	}
	if !lineWith(b.info.URL) {
		t.Errorf("the loopback URL is not whole on one line at 80 columns:\n%s", h.screen())
	}
	h.contains("/remote lan")
	h.contains("192.168.100.200")

	h.command("/remote off")
	b.info = RemoteInfo{URL: url, Exposed: true}
	h.command("/remote lan")
	if b.addr != "lan" {
		t.Errorf("StartRemote got %q", b.addr)
	}
	if !lineWith(url) {
		t.Errorf("the LAN URL is not whole on one line at 80 columns:\n%s", h.screen())
	}
	h.contains("Not encrypted")
}
