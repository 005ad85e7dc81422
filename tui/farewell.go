package tui

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/colorprofile"
)

// farewell is what nova prints into the terminal's own scrollback when it
// exits: the session's last answer and the command that resumes it. The
// transcript lives in the alternate screen, which the terminal throws
// away on exit; without this, quitting lost the conversation from view.
//
// Rendering the whole transcript into the scrollback as it is finished
// (Bubble Tea's inline mode, as Claude Code does) was the other way. It is
// not taken: text printed above an inline program is fixed at the width
// it was printed at and never reflows on a resize; ctrl+o could no longer
// expand a past tool call, nor the scrolled view pin what is being read;
// and Bubble Tea v2's inline renderer redraws the managed area whenever
// its height changes (a dialog, the todo list), which with a tall area
// flickers through the scrollback. The alternate screen keeps all of that;
// this keeps what matters after quitting.
func (m *Model) farewell() string {
	id := m.b.Status().SessionID
	var answer *entry
	prompted := false
	for _, e := range m.tr.entries {
		switch e.kind {
		case entryUser:
			prompted = true
		case entryAssistant:
			if strings.TrimSpace(e.text) != "" {
				answer = e
			}
		}
	}
	if id == "" || !prompted {
		return "" // nothing to resume
	}
	var b strings.Builder
	if answer != nil {
		for _, l := range m.md.renderBlocks(answer.text, m.width, &answer.md, true) {
			b.WriteString(strings.TrimRight(l, " ") + "\n")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s %s\n", m.st.dim.Render("Resume this session with:"), m.st.key.Render("nova -r "+id))
	return b.String()
}

// printFarewell writes the farewell to the terminal, in the colours it
// can show (none under NO_COLOR or into a pipe).
func printFarewell(out io.Writer, env []string, text string) {
	if text == "" {
		return
	}
	if out == nil {
		out = os.Stdout
	}
	if env == nil {
		env = os.Environ()
	}
	_, _ = io.WriteString(colorprofile.NewWriter(out, env), text)
}
