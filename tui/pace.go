package tui

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
)

// quietAfter is how long the renderer keeps its frame rate after the last
// message before it is paused. A message is followed by one Update and one
// View, and the next frame tick (a frame interval later) writes that view;
// quietAfter leaves that tick fifteen chances to run.
const quietAfter = 500 * time.Millisecond

// pacer makes an idle UI cost nothing. Bubble Tea v2 draws from a
// time.Ticker that fires at the frame rate for the program's whole life,
// whether or not anything changed (Program.startRenderer): 30 wake-ups a
// second of an idle nova, 0.03–0.12 s of CPU per 10 s. Its renderer is an
// unexported interface, so it cannot be replaced, and no option pauses it.
// But every change of the view is the result of a message, and every
// message passes the program's filter (tea.WithFilter) before Update: so
// the filter restarts the renderer's ticker, and once no message has come
// for quietAfter the ticker is stopped. A stopped time.Ticker whose
// channel nobody can receive from is off the runtime's timer heap (Go
// 1.23+), so an idle nova is not woken at all.
//
// The ticker is the unexported field Program.ticker, reached with reflect
// and read only from the event loop's goroutine (the filter's), after
// Run's startRenderer set it there. If a Bubble Tea upgrade renames or
// retypes it, the pacer finds nothing and the program ticks as Bubble Tea
// does; TestPacerFindsTheTicker fails so the upgrade notices.
// Bubble Tea's own stop and restart of the renderer (around an editor run
// by tea.ExecProcess, or a suspend) Stop and Reset the same ticker; the
// pacer's next wake or quiet agrees with either.
type pacer struct {
	mu     sync.Mutex
	prog   *tea.Program
	looked bool
	ticker *time.Ticker
	frame  time.Duration
	last   time.Time
	quiet  bool
	timer  *time.Timer // pending check for quiet; nil when none
	// after is quietAfter; tests shorten it. onQuiet, when set, is told
	// each time the ticker stops.
	after   time.Duration
	onQuiet func()
}

func newPacer(fps int) *pacer {
	return &pacer{frame: time.Second / time.Duration(fps), after: quietAfter}
}

// filter is the program's message filter: every message wakes the ticker.
func (pc *pacer) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	pc.wake()
	return msg
}

func (pc *pacer) wake() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if !pc.looked && pc.prog != nil {
		pc.looked = true
		pc.ticker = rendererTicker(pc.prog)
	}
	if pc.ticker == nil {
		return
	}
	pc.last = time.Now()
	if pc.quiet {
		pc.quiet = false
		pc.ticker.Reset(pc.frame)
	}
	if pc.timer == nil {
		pc.timer = time.AfterFunc(pc.after, pc.check)
	}
}

// check stops the ticker when nothing came for quietAfter, and looks
// again later otherwise.
func (pc *pacer) check() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.timer == nil {
		return // stopped
	}
	if d := time.Since(pc.last); d < pc.after {
		pc.timer.Reset(pc.after - d)
		return
	}
	pc.timer = nil
	pc.quiet = true
	pc.ticker.Stop()
	if pc.onQuiet != nil {
		pc.onQuiet()
	}
}

// stop cancels a pending check (the program ended).
func (pc *pacer) stop() {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.timer != nil {
		pc.timer.Stop()
		pc.timer = nil
	}
}

// rendererTicker returns Bubble Tea's frame ticker, or nil when the
// program has no such field (see pacer) or it is not set yet.
func rendererTicker(p *tea.Program) *time.Ticker {
	v := reflect.ValueOf(p).Elem().FieldByName("ticker")
	if !v.IsValid() || v.Type() != reflect.TypeFor[*time.Ticker]() {
		return nil
	}
	return *(**time.Ticker)(unsafe.Pointer(v.UnsafeAddr()))
}

// found reports whether the pacer controls the ticker (tests).
func (pc *pacer) found() bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.ticker != nil
}
