package tui

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// The screen modes (Options.Screen, the "screen" setting, --screen).
const (
	// ScreenAlternate runs the UI in the terminal's alternate screen: the
	// whole conversation scrolls inside nova and reflows on a resize, and
	// is printed into the terminal's scrollback at exit (farewell.go).
	ScreenAlternate = "alternate"
	// ScreenInline runs the UI in the normal screen, as Claude Code and
	// Codex do: each finished message is printed once into the terminal's
	// own scrollback, above a live region that holds only what still
	// changes.
	ScreenInline = "inline"
)

// DefaultScreen is the mode when neither --screen nor the setting names
// one. Flipping nova to inline by default is this one line.
const DefaultScreen = ScreenAlternate

// ValidScreen reports whether s names a screen mode.
func ValidScreen(s string) bool { return s == ScreenAlternate || s == ScreenInline }

// printDelay is how long a finished entry waits, out of the live region,
// before it is printed above it: a frame or two, so the renderer has drawn
// the region without it first. Bubble Tea's print above the program
// scrolls the screen by the lines printed, measuring the region by the
// frame it last drew; printed while a taller frame is still the last one,
// lines of the region itself would scroll into the scrollback.
const printDelay = 3 * frameInterval

// Messages of the printing above the program.
type (
	// printReadyMsg says a print may go out now.
	printReadyMsg struct{}
	// printedMsg says the last chunk went out.
	printedMsg struct{}
)

// inlineState is the inline mode's: what is printed above the program
// and what waits for its turn. Entries carry their own printed flag.
type inlineState struct {
	on bool
	// sized is set by the first window size: nothing is printed at the
	// default width before the terminal's is known.
	sized bool
	// headed says the first line went to the print queue (collect).
	headed bool
	// pending are rendered lines waiting to be printed, in order; busy
	// says a print is on its way (one at a time keeps them in order).
	pending []string
	busy    bool
	// sent says a chunk is on its way to the terminal (its printedMsg
	// has not come); quitOnPrinted that the person quit meanwhile: the
	// program ends once it is printed, so it is neither lost nor printed
	// again at exit.
	sent, quitOnPrinted bool
	// lastH is the height of the last view; tallest the tallest since the
	// last chunk went out: the renderer may not have drawn a shorter one.
	lastH, tallest int
	// sentH is the height of the view when the last chunk went out, -1
	// before the first: while every view since has been as tall, the
	// renderer's frame is too, and the next chunk need not wait.
	sentH int
	// quitting empties the live region for the last frame: what it held
	// is printed after the program ends, once.
	quitting bool
	// printCmd and readyCmd make the print of a chunk and the wait before
	// it; tests replace them.
	printCmd func(chunk string) tea.Cmd
	readyCmd func(d time.Duration) tea.Cmd
	// profile is the colours the terminal shows (Run detects it): Bubble
	// Tea writes a print above the program as it is, without the
	// downsampling its frames get, so NO_COLOR would not hold for it.
	// nil leaves the text as it is (tests).
	profile *colorprofile.Profile
}

// detectProfile is the colour profile of the terminal the program runs in.
func detectProfile(opts Options) *colorprofile.Profile {
	out, env := opts.Out, opts.Env
	if out == nil {
		out = os.Stdout
	}
	if env == nil {
		env = os.Environ()
	}
	p := colorprofile.Detect(out, env)
	return &p
}

func newInlineState(on bool) inlineState {
	return inlineState{
		on:    on,
		sentH: -1,
		printCmd: func(chunk string) tea.Cmd {
			return tea.Sequence(tea.Println(chunk), func() tea.Msg { return printedMsg{} })
		},
		readyCmd: func(d time.Duration) tea.Cmd {
			if d == 0 {
				return func() tea.Msg { return printReadyMsg{} }
			}
			return tea.Tick(d, func(time.Time) tea.Msg { return printReadyMsg{} })
		},
	}
}

// liveCap is the most rows the live region takes in inline mode: two
// thirds of the screen, which leaves a third for each chunk printed above
// it (see printDelay).
func (m *Model) liveCap() int { return max(4, m.height-m.height/3) }

// finished says an entry will not change any more, so it can be printed.
func (m *Model) finished(e *entry) bool {
	return !e.live() && e != m.tr.text && e != m.tr.think
}

// collect moves the finished entries at the head of the unprinted ones to
// the print queue, in order: an entry finished after one still running
// waits for it. all takes the running ones too (the program is ending).
// A permission ask whose diff the dialog cannot show whole has the diff
// printed above it, once.
func (m *Model) collect(all bool) {
	if !m.inl.on || !m.inl.sized {
		return
	}
	if !m.inl.headed {
		// A first line, where nova works, printed at once: it moves the
		// live region off the screen's top row. The renderer redraws the
		// region by erasing from its first row down; from the top-left
		// corner that is a clear of the whole screen, which tmux (its
		// scroll-on-clear) and some terminals move into the scrollback,
		// region and all.
		m.inl.headed = true
		m.inl.pending = append(m.inl.pending, m.st.dim.Render("nova · "+shortPath(m.status.Cwd, m.status.Home)))
	}
	rc := m.renderCtx()
	rc.expanded = false
	for _, e := range m.tr.entries {
		if e.printed {
			continue
		}
		if !all && !m.finished(e) {
			break
		}
		e.printed = true
		if !printable(e) {
			continue
		}
		for _, l := range e.lines(m.width, rc) {
			m.inl.pending = append(m.inl.pending, trimPadding(l))
		}
	}
	if pd, ok := m.firstDialog().(*permissionDialog); ok && !pd.printedAbove && !all {
		if pd.preview == nil && pd.ask.Preview != nil {
			pd.previewView(&m.st)
		}
		pd.fit(m.width, m.liveCap(), &m.st)
		if len(pd.preview) > pd.room {
			pd.printedAbove = true
			// The subject line (tool, path, counts) heads the diff, as
			// in the dialog, which stays below with the choices.
			head := pd.subject(m.width-4, &m.st)[0]
			m.inl.pending = append(m.inl.pending, "", head+m.st.dim.Render(fmt.Sprintf(" · the change asked about, %d lines; answer below", len(pd.preview))))
			for _, l := range pd.preview {
				m.inl.pending = append(m.inl.pending, trimPadding(clipLine(l, m.width)))
			}
		}
	}
}

// printable says whether an entry goes into the scrollback; as in the
// farewell, thinking and empty text do not. Command output (/help) does:
// in inline mode there is nowhere else to read it.
func printable(e *entry) bool {
	switch e.kind {
	case entryThinking:
		return false
	case entryAssistant:
		return strings.TrimSpace(e.text) != ""
	}
	return true
}

// printNext starts the wait before the next chunk, unless one is on its
// way or nothing waits.
func (m *Model) printNext() tea.Cmd {
	if !m.inl.on || m.inl.busy || len(m.inl.pending) == 0 || m.inl.quitting {
		return nil
	}
	m.inl.busy = true
	if m.inl.sentH == m.inl.lastH && m.inl.tallest == m.inl.lastH {
		return m.inl.readyCmd(0) // the region has not changed since the last chunk
	}
	return m.inl.readyCmd(printDelay)
}

// printReady prints as many waiting lines as the screen has room for
// above the live region; with no room (a dialog as tall as the screen) it
// waits for the region to shrink.
func (m *Model) printReady() tea.Cmd {
	if m.inl.quitting {
		m.inl.busy = false
		return nil
	}
	// Never more than the region's cap leaves: the region may grow (an
	// ask opens, an answer streams) between this and the print, and the
	// renderer measures it when it prints.
	room := min(m.height-max(m.inl.tallest, m.inl.lastH), m.height-m.liveCap()) - 1
	m.inl.tallest = m.inl.lastH
	if room < 1 {
		return m.inl.readyCmd(4 * printDelay)
	}
	m.inl.sentH = m.inl.lastH
	m.inl.sent = true
	n := min(room, len(m.inl.pending))
	chunk := strings.Join(m.inl.pending[:n], "\n")
	m.inl.pending = m.inl.pending[n:]
	if p := m.inl.profile; p != nil {
		var b strings.Builder
		_, _ = io.WriteString(&colorprofile.Writer{Forward: &b, Profile: *p}, chunk)
		chunk = b.String()
	}
	return m.inl.printCmd(chunk)
}

// liveView is the inline mode's frame: the entries not printed yet (the
// streaming answer, running tool calls, and finished ones a moment before
// they are printed), the bottom of them when they are taller than the
// region allows, then everything under them. It returns the lines and
// the row of the input, or -1.
func (m *Model) liveView() ([]string, int) {
	if m.inl.quitting {
		return nil, -1
	}
	bottom, inputTop := m.bottom()
	rc := m.renderCtx()
	var live []string
	for _, e := range m.tr.entries {
		if !e.printed {
			live = append(live, e.lines(m.width, rc)...)
		}
	}
	if room := max(0, m.liveCap()-len(bottom)); len(live) > room {
		// PgUp/PgDn scroll what the region cannot show whole (a long
		// answer streaming); the printed part is the terminal's to scroll.
		off := min(m.tr.offset, len(live)-room)
		m.tr.offset = off
		live = live[len(live)-room-off : len(live)-off]
		if off > 0 && room > 0 {
			live[room-1] = m.st.warn.Render(clipLine(fmt.Sprintf("  ↓ %d line%s below · end to return", off, plural(off)), m.width))
		}
	} else {
		m.tr.offset = 0
	}
	if inputTop >= 0 {
		inputTop += len(live)
	}
	return append(live, bottom...), inputTop
}

// inlineFarewell is what inline mode prints once the program has ended:
// what was never printed (the lines waiting, and the entries of the live
// region), then the command that resumes the session.
func (m *Model) inlineFarewell() string {
	m.inl.sized = true
	m.collect(true)
	var b strings.Builder
	for _, l := range m.inl.pending {
		b.WriteString(l + "\n")
	}
	m.inl.pending = nil
	if line := m.resumeLine(); line != "" {
		b.WriteString("\n" + line)
	}
	return b.String()
}

// quit ends the program; in inline mode its last frame is empty, and
// what the live region held is printed after it, once (inlineFarewell).
func (m *Model) quit() tea.Cmd {
	m.inl.quitting = true
	if m.inl.sent {
		m.inl.quitOnPrinted = true
		return nil
	}
	return tea.Quit
}

// printed is the news that a chunk went out: the next may go, or the
// program end if the person quit while it was on its way.
func (m *Model) printed() tea.Cmd {
	m.inl.busy, m.inl.sent = false, false
	if m.inl.quitOnPrinted {
		return tea.Quit
	}
	return m.printNext()
}
