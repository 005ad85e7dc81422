package tui

import (
	"context"
	"regexp"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// StatusCommand is an optional Backend capability: the statusLine
// setting's command, whose first line of output the UI shows above its
// own status line.
type StatusCommand interface {
	// HasStatusLine reports whether a command is configured.
	HasStatusLine() bool
	// StatusLine runs it for the session as s shows it and returns the
	// first line it printed.
	StatusLine(ctx context.Context, s Status) (string, error)
}

// statusLineState is the command's last line and whether a run of it is
// under way. Runs never overlap: a refresh asked for during one is
// remembered and made once it ends, so turns ending quickly cost one
// more run, not one each.
type statusLineState struct {
	text             string
	running, pending bool
}

// statusLineMsg is the end of one run of the command.
type statusLineMsg struct {
	text string
	err  error
}

// refreshStatusLine runs the status line command, or remembers to when
// the run under way ends; nil when none is configured.
func (m *Model) refreshStatusLine() tea.Cmd {
	sc, ok := m.b.(StatusCommand)
	if !ok || !sc.HasStatusLine() {
		return nil
	}
	if m.sl.running {
		m.sl.pending = true
		return nil
	}
	m.sl.running = true
	ctx, s := m.ctx, m.status
	return func() tea.Msg {
		text, err := sc.StatusLine(ctx, s)
		return statusLineMsg{text: text, err: err}
	}
}

// statusLineDone takes a run's line: a command that failed shows nothing
// (its error is not the UI's to show on every turn).
func (m *Model) statusLineDone(msg statusLineMsg) tea.Cmd {
	m.sl.running = false
	m.sl.text = ""
	if msg.err == nil {
		m.sl.text = safeLine(msg.text)
	}
	if m.sl.pending {
		m.sl.pending = false
		return m.refreshStatusLine()
	}
	return nil
}

// sgr matches the colour and style sequences a status line may keep.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// safeLine keeps a command's text and its colours (SGR sequences), and
// drops every other escape and control character: the line is drawn
// inside the UI's screen, where a cursor move or a clear would wreck it.
func safeLine(s string) string {
	var b strings.Builder
	coloured := false
	last := 0
	clean := func(part string) {
		for _, r := range ansi.Strip(part) {
			if r >= 0x20 && r != 0x7f {
				b.WriteRune(r)
			}
		}
	}
	for _, loc := range sgr.FindAllStringIndex(s, -1) {
		clean(s[last:loc[0]])
		b.WriteString(s[loc[0]:loc[1]])
		coloured, last = true, loc[1]
	}
	clean(s[last:])
	out := b.String()
	if strings.TrimSpace(ansi.Strip(out)) == "" {
		return ""
	}
	if coloured {
		out += "\x1b[m"
	}
	return out
}
