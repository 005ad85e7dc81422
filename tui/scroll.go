package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// wheelLines is how far one step of the mouse wheel scrolls.
const wheelLines = 3

// wheelBurst is how close together two arrow keys come when they are a
// mouse wheel, not a finger: a terminal that turns the wheel into arrows
// (xterm's alternateScroll, VTE, kitty, iTerm2 in the alternate screen)
// sends several in one write, microseconds apart, where a key held down
// repeats every 30 ms or more.
const wheelBurst = 15 * time.Millisecond

// arrows is what the UI remembers of the last Up or Down key, to tell a
// wheel from a person browsing the prompt history.
type arrows struct {
	at       time.Time
	onEmpty  bool // it came while the input was empty
	recalled bool // and recalled a prompt into it
	scrolled bool // it scrolled the transcript
}

// scrollKey handles the keys that scroll the transcript: PgUp/PgDn
// always; Home/End while the input is empty (in text they move the
// cursor), ctrl+home/ctrl+end always.
func (m *Model) scrollKey(s string) bool {
	if pd, ok := m.firstDialog().(*permissionDialog); ok && (s == "pgup" || s == "pgdown") {
		// The diff being approved scrolls before the transcript does.
		if pd.scroll(map[string]int{"pgup": -1, "pgdown": 1}[s]) {
			return true
		}
	}
	switch s {
	case "pgup":
		m.tr.scroll(m.transcriptHeight() - 2)
	case "pgdown":
		m.tr.scroll(-(m.transcriptHeight() - 2))
	case "ctrl+home":
		m.tr.toTop()
	case "ctrl+end":
		m.tr.toBottom()
	case "home", "end":
		if len(m.dialogs) > 0 || !m.in.empty() {
			return false
		}
		if s == "home" {
			m.tr.toTop()
		} else {
			m.tr.toBottom()
		}
	default:
		return false
	}
	return true
}

// wheel scrolls for a mouse wheel that the terminal reports as such (only
// when the mouse is captured, which nova does not do, but a terminal may
// send them all the same).
func (m *Model) wheel(msg tea.MouseWheelMsg) {
	switch msg.Mouse().Button {
	case tea.MouseWheelUp:
		m.tr.scroll(wheelLines)
	case tea.MouseWheelDown:
		m.tr.scroll(-wheelLines)
	}
}

// arrow decides whether Up (dir -1) or Down (+1) scrolls the transcript
// rather than going to the input, where it browses the prompt history.
// Without mouse capture the wheel arrives as arrows, so: while the view is
// scrolled up and the input is empty, arrows scroll; and an arrow that
// follows another on an empty input within wheelBurst is the wheel too,
// so the prompt the first one recalled is taken back and both scroll.
func (m *Model) arrow(dir int) bool {
	now := m.arrowClock()
	prev := m.arrows
	d := now.Sub(prev.at)
	burst := !prev.at.IsZero() && d >= 0 && d < wheelBurst
	empty := m.in.empty()
	m.arrows = arrows{at: now, onEmpty: empty}
	switch {
	case burst && prev.onEmpty:
		n := wheelLines
		if !prev.scrolled {
			n *= 2 // the step the previous arrow did not scroll
		}
		if prev.recalled {
			m.in.browse(1) // back to the empty draft
		}
		m.tr.scroll(-dir * n)
		m.arrows.onEmpty, m.arrows.scrolled = true, true
		return true
	case empty && m.tr.offset > 0:
		m.tr.scroll(-dir * wheelLines)
		m.arrows.scrolled = true
		return true
	}
	return false
}

// arrowRecalled records that the last arrow recalled a prompt.
func (m *Model) arrowRecalled() {
	m.arrows.recalled = m.arrows.onEmpty && !m.in.empty()
}

// firstDialog is the dialog that has the keyboard, or nil.
func (m *Model) firstDialog() dialog {
	if len(m.dialogs) == 0 {
		return nil
	}
	return m.dialogs[0]
}
