package tui

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakeBackend is a Backend whose runs replay scripted events.
type fakeBackend struct {
	mu       sync.Mutex
	status   Status
	runs     [][]agent.Event // one script per Run
	inputs   []llm.Message
	history  []llm.Message
	sessions []session.Meta
	resumed  string
	shell    []string
	chans    []chan agent.Event
}

func newFake() *fakeBackend {
	return &fakeBackend{status: Status{Model: "anthropic:claude-sonnet-4-5", Mode: permission.ModeDefault, Cwd: "/work/project", Branch: "main", SessionID: "01JTEST"}}
}

// Run replays the next script; a script ending without a done event
// leaves the channel open for the test to feed (see feed).
func (f *fakeBackend) Run(ctx context.Context, in llm.Message) <-chan agent.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, in)
	ch := make(chan agent.Event, 256)
	f.chans = append(f.chans, ch)
	if len(f.runs) > 0 {
		script := f.runs[0]
		f.runs = f.runs[1:]
		for _, ev := range script {
			ch <- ev
		}
		if n := len(script); n > 0 && script[n-1].Type == agent.EventDone {
			close(ch)
		}
	}
	return ch
}
func (f *fakeBackend) Compact(context.Context, string) error { return nil }
func (f *fakeBackend) Status() Status                        { f.mu.Lock(); defer f.mu.Unlock(); return f.status }
func (f *fakeBackend) CycleMode() permission.Mode {
	f.mu.Lock()
	defer f.mu.Unlock()
	ms := permission.Modes()
	for i, m := range ms {
		if m == f.status.Mode {
			f.status.Mode = ms[(i+1)%len(ms)]
			break
		}
	}
	return f.status.Mode
}
func (f *fakeBackend) NewSession() error                 { f.history = nil; return nil }
func (f *fakeBackend) Sessions() ([]session.Meta, error) { return f.sessions, nil }
func (f *fakeBackend) Resume(id string) error            { f.resumed = id; return nil }
func (f *fakeBackend) History() []llm.Message            { return f.history }
func (f *fakeBackend) Shell(_ context.Context, c string) (string, error) {
	f.shell = append(f.shell, c)
	return "output of " + c, nil
}

// harness drives a Model the way the program does, deterministically:
// messages in, commands run to completion in order. Only two commands
// block in the program, and the harness makes both recognisable by
// replacing how the model builds them (Model.wait, Model.tick): the
// ticker's beats are dropped, and a read of a run's events is done at once
// when the channel has something (events, or its end) and otherwise parked
// until the test feeds the channel (settle) or the agent sends (next).
type harness struct {
	t      *testing.T
	m      *Model
	b      *fakeBackend
	parked []<-chan agent.Event // runs whose next read waits for events
}

// Stand-ins for the commands that block.
type (
	// eventWait is a read of a run's events (Model.wait).
	eventWait struct{ ch <-chan agent.Event }
	// tickWait is the ticker's next beat (Model.tick), never delivered:
	// spinners stay still so that screens compare equal.
	tickWait struct{}
)

func newHarness(t *testing.T, b *fakeBackend) *harness {
	t.Helper()
	return newHarnessWith(t, b, b)
}

// newHarnessWith drives a model of backend, a fake with capabilities
// built on b (which records the runs), from New on: what New does with a
// capability (the MCP approval dialogs) is seen.
func newHarnessWith(t *testing.T, backend Backend, b *fakeBackend) *harness {
	t.Helper()
	m := New(context.Background(), backend, Options{})
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.now = func() time.Time { return fixed }
	m.wait = func(ch <-chan agent.Event) tea.Cmd { return func() tea.Msg { return eventWait{ch} } }
	m.tick = func() tea.Cmd { return func() tea.Msg { return tickWait{} } }
	// Keys a second apart, as a person types them: two arrows in one
	// test are never taken for a mouse wheel unless the test says so.
	keyTime := fixed
	m.arrowClock = func() time.Time { keyTime = keyTime.Add(time.Second); return keyTime }
	h := &harness{t: t, m: m, b: b}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	return h
}

// send delivers msg and runs the commands it returns, following event
// reads until the run's channel has nothing more for now.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	if cmd != nil {
		h.deliver(h.call(cmd))
	}
}

// call runs cmd to completion. Every command but the two stand-ins returns
// without waiting for anything the test does; one that hangs is a bug,
// reported rather than waited on until the test binary times out.
func (h *harness) call(cmd tea.Cmd) tea.Msg {
	h.t.Helper()
	res := make(chan tea.Msg, 1)
	go func() { res <- cmd() }()
	select {
	case msg := <-res:
		return msg
	case <-time.After(10 * time.Second):
		h.t.Fatal("a command did not return in 10s: only a run's event read and the ticker may wait")
		return nil
	}
}

func (h *harness) deliver(msg tea.Msg) {
	h.t.Helper()
	switch msg := msg.(type) {
	case nil, tickWait:
	case eventWait:
		if ready, ok := h.ready(msg.ch); ok {
			h.deliver(ready)
		} else {
			h.parked = append(h.parked, msg.ch)
		}
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	default:
		h.send(msg)
	}
}

// ready reads ch the way the model's own read does, if that would not
// wait: something is buffered, or the channel is closed.
func (h *harness) ready(ch <-chan agent.Event) (tea.Msg, bool) {
	h.t.Helper()
	if len(ch) > 0 {
		// The model's read: it takes what is buffered (and whatever a real
		// agent adds within a frame) and returns.
		return h.call(waitEvents(ch)), true
	}
	select {
	case ev, ok := <-ch:
		// Closed, or sent to just now by a real agent.
		if !ok {
			return eventsMsg{ch: ch, closed: true}, true
		}
		return eventsMsg{ch: ch, evs: []agent.Event{ev}}, true
	default:
		return nil, false
	}
}

// settle delivers what the test fed to runs whose reads were parked, until
// no parked read has anything more.
func (h *harness) settle() {
	h.t.Helper()
	for h.settleOne() {
	}
}

// settleOne delivers the first parked read that has something; delivering
// may park reads again, or start a run.
func (h *harness) settleOne() bool {
	h.t.Helper()
	for i, ch := range h.parked {
		if msg, ok := h.ready(ch); ok {
			h.parked = append(h.parked[:i:i], h.parked[i+1:]...)
			h.deliver(msg)
			return true
		}
	}
	return false
}

// next waits for the events of the first parked read, for a run whose
// events come from a real agent on its own goroutines, and delivers them.
// It reports false when no read is parked.
func (h *harness) next() bool {
	h.t.Helper()
	if len(h.parked) == 0 {
		return false
	}
	ch := h.parked[0]
	h.parked = h.parked[1:]
	h.deliver(h.call(waitEvents(ch)))
	return true
}

// typeText types s key by key.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (h *harness) press(k string) {
	h.t.Helper()
	var msg tea.KeyPressMsg
	switch k {
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		msg = tea.KeyPressMsg{Code: tea.KeyEsc}
	case "tab":
		msg = tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		msg = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "ctrl+o":
		msg = tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+c":
		msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+j":
		msg = tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}
	case "up":
		msg = tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		msg = tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		msg = tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		msg = tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		msg = tea.KeyPressMsg{Code: tea.KeyEnd}
	default:
		r := []rune(k)[0]
		msg = tea.KeyPressMsg{Code: r, Text: k}
	}
	h.send(msg)
}

// screen is what a person sees: the view without colour, trailing spaces
// trimmed.
func (h *harness) screen() string {
	v := h.m.View()
	lines := strings.Split(ansi.Strip(v.Content), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func (h *harness) golden(name string) {
	h.t.Helper()
	got := h.screen()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		h.t.Errorf("screen differs from %s:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func (h *harness) contains(want string) {
	h.t.Helper()
	if s := h.screen(); !strings.Contains(s, want) {
		h.t.Errorf("screen lacks %q:\n%s", want, s)
	}
}

func js(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func text(s string) agent.Event { return agent.Event{Type: agent.EventTextDelta, Text: s} }

func done(subtype string) agent.Event {
	return agent.Event{Type: agent.EventDone, Done: &agent.Done{Subtype: subtype}}
}

func stripANSI(s string) string { return ansi.Strip(s) }

func goldenString(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func pasteMsg(s string) tea.PasteMsg { return tea.PasteMsg{Content: s} }

func keyCtrlC() tea.KeyPressMsg { return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl} }

func isQuit(msg tea.Msg) bool {
	_, ok := msg.(tea.QuitMsg)
	return ok
}

func sessionsFixture() []session.Meta {
	t0 := time.Date(2026, 1, 1, 3, 4, 5, 0, time.UTC)
	return []session.Meta{
		{ID: "01JTEST", Title: "current", UpdatedAt: t0, MessageCount: 2},
		{ID: "01OLD", Title: "fix the parser", UpdatedAt: t0, MessageCount: 12},
	}
}
