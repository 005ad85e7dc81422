package tui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/nova-dev/nova/agent"
)

// /remote shares the session with browsers (Remote): the URL and a QR
// code go into the transcript, and the runs a browser starts are shown
// as the TUI's own are, from their prompt to their done. An ask is shown
// on both sides and answered once: whichever side answers first wins,
// and the answered event closes the other's dialog.

// shareState is what the model keeps of /remote.
type shareState struct {
	// runs is the channel of the share the model follows; nil when none.
	runs <-chan RemoteRun
	// waiting are runs that began while the TUI's own last run was still
	// winding down on screen: they are shown once it has.
	waiting []RemoteRun
	// wait reads the next run (nil: waitRemoteRun). The harness replaces
	// it, as it does Model.wait, so no command of the tests blocks.
	wait func(<-chan RemoteRun) tea.Cmd
}

// remoteRunMsg is the next run of a share, or its end.
type remoteRunMsg struct {
	ch     <-chan RemoteRun
	run    RemoteRun
	closed bool
}

// waitRemoteRun reads the next run of a share.
func waitRemoteRun(ch <-chan RemoteRun) tea.Cmd {
	return func() tea.Msg {
		r, ok := <-ch
		return remoteRunMsg{ch: ch, run: r, closed: !ok}
	}
}

func (m *Model) waitRemote(ch <-chan RemoteRun) tea.Cmd {
	if m.share.wait != nil {
		return m.share.wait(ch)
	}
	return waitRemoteRun(ch)
}

// remoteCommands is /remote, when the backend can share.
func (m *Model) remoteCommands() []command {
	if _, ok := m.b.(Remote); !ok {
		return nil
	}
	return []command{{name: "/remote", args: "[off|lan|host[:port]]", help: "share this session with a browser or phone: its URL and a QR code (lan: on this machine's LAN address)", run: (*Model).cmdRemote}}
}

// remoteInit shows a share the backend started before the UI (nova
// --remote) and follows its runs.
func (m *Model) remoteInit() tea.Cmd {
	r, ok := m.b.(Remote)
	if !ok {
		return nil
	}
	info, on := r.RemoteInfo()
	if !on {
		return nil
	}
	return m.shared(r, info)
}

// cmdRemote is /remote: share the session (at the address given, or the
// one nova was started with), show where again, or /remote off.
func (m *Model) cmdRemote(arg string) tea.Cmd {
	r := m.b.(Remote)
	info, on := r.RemoteInfo()
	switch {
	case arg == "off":
		if !on {
			m.info("This session is not shared.", nil)
			return nil
		}
		m.share.runs = nil // runs begun already are still shown (waiting)
		return m.background("Stopping the remote…", func() resultMsg {
			if err := r.StopRemote(); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{text: "Stopped sharing this session: " + info.URL + " no longer answers."}
		})
	case on && arg != "":
		m.info("", fmt.Errorf("this session is already shared at %s: /remote off first, then /remote %s", info.URL, arg))
		return nil
	case on:
		m.showShare(info)
		return nil
	}
	info, err := r.StartRemote(arg)
	if err != nil {
		m.info("", fmt.Errorf("/remote: %w", err))
		return nil
	}
	return m.shared(r, info)
}

// shared shows the new share and follows its runs.
func (m *Model) shared(r Remote, info RemoteInfo) tea.Cmd {
	m.showShare(info)
	ch := r.RemoteRuns()
	m.share.runs = ch
	return m.waitRemote(ch)
}

// showShare puts the URL and its QR code into the transcript, the URL
// and the warning last: when the screen is too short for the whole code
// they stay in view (pgup shows the rest).
func (m *Model) showShare(info RemoteInfo) {
	var b strings.Builder
	b.WriteString("Sharing this session: the terminal and every browser that opens it see the same runs; either can prompt, approve or interrupt.\n")
	if qr, err := qrLines(info.URL); err == nil {
		b.WriteString(strings.Join(qr, "\n") + "\n")
	}
	b.WriteString(info.URL + "\n")
	if info.Exposed {
		b.WriteString("⚠ Not encrypted: anyone on this network can read the traffic, the token included. /remote off stops it.")
	} else if info.LAN != "" {
		b.WriteString("Loopback: only this machine can open it. For a phone on this network: /remote off, then /remote lan (serves on " + info.LAN + ", not encrypted). /remote off stops it.")
	} else {
		b.WriteString("Loopback: only this machine can open it (for a phone, --host and a token). /remote off stops it.")
	}
	m.info(b.String(), nil)
}

// remoteUpdate handles the next run of the share.
func (m *Model) remoteUpdate(msg remoteRunMsg) tea.Cmd {
	if msg.ch != m.share.runs {
		return nil // a share stopped since
	}
	if msg.closed {
		m.share.runs = nil
		return nil
	}
	next := m.waitRemote(msg.ch)
	if m.run != nil {
		m.share.waiting = append(m.share.waiting, msg.run)
		return next
	}
	return tea.Batch(m.showRemoteRun(msg.run), next)
}

// adoptWaiting shows the run that began while the last one was still on
// screen; nil when none did. The prompts queued here wait for it too.
func (m *Model) adoptWaiting() tea.Cmd {
	if m.run != nil || len(m.share.waiting) == 0 {
		return nil
	}
	r := m.share.waiting[0]
	m.share.waiting = m.share.waiting[1:]
	return m.showRemoteRun(r)
}

// showRemoteRun makes a run started elsewhere the TUI's current run:
// its prompt, then its events as they come. Esc interrupts it as it
// would the TUI's own.
func (m *Model) showRemoteRun(r RemoteRun) tea.Cmd {
	prompt := r.Prompt
	if strings.TrimSpace(prompt) == "" {
		prompt = "(attachments only)"
	}
	m.tr.add(&entry{kind: entryUser, text: prompt})
	m.tr.add(&entry{kind: entryNotice, text: "Sent from the browser"})
	m.tr.offset = 0
	cancel := r.Interrupt
	if cancel == nil {
		cancel = func() {}
	}
	m.run = &activeRun{ch: r.Events, cancel: cancel, started: m.now()}
	m.todos = nil
	return tea.Batch(m.wait(r.Events), m.startTick())
}

// closeAnswered closes the dialog of an ask that was answered, when it
// is still open: then the answer came from elsewhere (the TUI's own
// answers close their dialog as they are given), and the transcript
// says what it was.
func (m *Model) closeAnswered(a *agent.Answered) {
	if a == nil {
		return
	}
	for i, d := range m.dialogs {
		var what string
		switch d := d.(type) {
		case *permissionDialog:
			if a.RequestID == "" || d.ask.RequestID != a.RequestID {
				continue
			}
			what = d.ask.Tool + " denied"
			if a.Allow {
				what = d.ask.Tool + " allowed"
			}
		case *questionDialog:
			if a.RequestID != "" || d.ask.ID != a.ID {
				continue
			}
			what = "Question answered"
		default:
			continue
		}
		m.dialogs = append(m.dialogs[:i:i], m.dialogs[i+1:]...)
		m.tr.add(&entry{kind: entryNotice, text: what + " in the browser"})
		return
	}
}

// qrQuiet is the light margin around the code, in modules: the standard
// asks for 4, phone cameras read 2, and the code must fit a terminal.
const qrQuiet = 2

// qrLines draws text as a QR code in half blocks (two rows of modules a
// line), dark modules black on white whatever the terminal's colours,
// so it scans on a dark background as on a light one. Without colour
// (NO_COLOR) the dark modules are the terminal's foreground.
func qrLines(text string) ([]string, error) {
	q, err := qrcode.New(text, qrcode.Low)
	if err != nil {
		return nil, fmt.Errorf("QR code: %w", err)
	}
	q.DisableBorder = true
	bm := q.Bitmap()
	if len(bm) == 0 {
		return nil, errors.New("QR code: empty")
	}
	n := len(bm) + 2*qrQuiet
	dark := func(r, c int) bool {
		r, c = r-qrQuiet, c-qrQuiet
		return r >= 0 && c >= 0 && r < len(bm) && c < len(bm[r]) && bm[r][c]
	}
	ink := lipgloss.NewStyle().Foreground(lipgloss.Color("#000000")).Background(lipgloss.Color("#FFFFFF"))
	var lines []string
	for r := 0; r < n; r += 2 {
		var row strings.Builder
		for c := range n {
			switch top, bottom := dark(r, c), dark(r+1, c); {
			case top && bottom:
				row.WriteRune('█')
			case top:
				row.WriteRune('▀')
			case bottom:
				row.WriteRune('▄')
			default:
				row.WriteRune(' ')
			}
		}
		lines = append(lines, ink.Render(row.String()))
	}
	return lines, nil
}
