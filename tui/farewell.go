package tui

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/charmbracelet/colorprofile"
)

// farewell is what nova prints into the terminal's own scrollback when it
// exits the alternate screen: the whole conversation as the transcript
// showed it (prompts, answers, tool calls collapsed), then the command
// that resumes it. The transcript lives in the alternate screen, which the
// terminal throws away on exit; printing it all keeps every earlier answer
// in the terminal's history, searchable and copyable there, as Claude Code
// and Codex leave it. Thinking and command output such as /help are left
// out: they were context for the moment, not the conversation.
//
// Rendering the transcript into the scrollback as each message finishes
// is the other way, and the inline screen mode takes it (inline.go), with
// its costs: text printed above an inline program is fixed at the width it
// was printed at and never reflows on a resize; ctrl+o cannot expand a past
// tool call, nor the scrolled view pin what is being read; and Bubble Tea
// v2's inline renderer redraws the managed area whenever its height changes
// (a dialog, the todo list). The alternate screen, the default, keeps all
// of that, and this keeps the whole conversation after quitting; inline
// mode keeps it during the session and prints only its rest at exit
// (inlineFarewell).
func (m *Model) farewell() string {
	line := m.resumeLine()
	if line == "" {
		return "" // nothing to resume
	}
	rc := m.renderCtx()
	rc.expanded = false
	var b strings.Builder
	for _, e := range m.tr.entries {
		switch e.kind {
		case entryThinking, entryInfo:
			continue
		case entryAssistant:
			if strings.TrimSpace(e.text) == "" {
				continue
			}
		}
		for _, l := range e.lines(m.width, rc) {
			b.WriteString(trimPadding(l) + "\n")
		}
	}
	b.WriteString("\n" + line)
	return strings.TrimLeft(b.String(), "\n")
}

// resumeLine is the command that resumes the session, or "" when there is
// nothing to resume (no prompt in it).
func (m *Model) resumeLine() string {
	id := m.b.Status().SessionID
	prompted := false
	for _, e := range m.tr.entries {
		if e.kind == entryUser {
			prompted = true
			break
		}
	}
	if id == "" || !prompted {
		return ""
	}
	return fmt.Sprintf("%s %s\n", m.st.dim.Render("Resume this session with:"), m.st.key.Render("nova -r "+id))
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

// trailingPad is the padding glamour puts after a line's text: spaces,
// each maybe in its own colour.
var trailingPad = regexp.MustCompile(`(?:[ \t]|\x1b\[[0-9;]*m)+$`)

// trimPadding drops a rendered line's trailing padding, so what is left in
// the scrollback copies as the text it is; a reset closes any colour.
func trimPadding(l string) string {
	return trailingPad.ReplaceAllStringFunc(l, func(pad string) string {
		if strings.Contains(pad, "\x1b[") {
			return "\x1b[m"
		}
		return ""
	})
}
