package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// pasteLines is the size past which a paste is shown as a placeholder.
const pasteLines = 10

// input is the prompt editor: a multi-line textarea (Enter sends; Shift+Enter,
// Ctrl+J or a backslash before Enter starts a new line), a history on Up/Down, large pastes folded
// into placeholders, and completion of commands and @paths.
type input struct {
	ta      textarea.Model
	history []string
	hpos    int    // index into history while browsing; len(history) when not
	draft   string // what was typed before browsing history
	pastes  map[string]string
	comp    completer
}

func newInput(dark bool) input {
	ta := textarea.New()
	// ❯ on the first line only, as Claude Code shows it; the lines
	// after it (and a long first line's wrapped rest) are indented.
	ta.SetPromptFunc(2, func(pi textarea.PromptInfo) string {
		if pi.LineNumber == 0 {
			return "❯ "
		}
		return "  "
	})
	ta.Placeholder = "Ask nova anything · / for commands · ? for keys"
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 8
	ta.MaxContentHeight = 100_000
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "ctrl+j"))
	// The terminal's own cursor is used: the virtual one needs a blink
	// timer, and idle must mean idle.
	ta.SetVirtualCursor(false)
	in := input{ta: ta, pastes: map[string]string{}}
	in.ta.Focus()
	in.setDark(dark)
	return in
}

func (in *input) setDark(dark bool) {
	s := textarea.DefaultStyles(dark)
	s.Focused.CursorLine = s.Focused.Text
	s.Cursor.Blink = false
	in.ta.SetStyles(s)
}

func (in *input) setWidth(w int) { in.ta.SetWidth(w) }

// value is what is sent: the text with every paste placeholder expanded.
func (in *input) value() string {
	v := in.ta.Value()
	for ph, full := range in.pastes {
		v = strings.ReplaceAll(v, ph, full)
	}
	return v
}

func (in *input) empty() bool { return strings.TrimSpace(in.ta.Value()) == "" }

// reset clears the editor, remembering text in the history.
func (in *input) reset(remember string) {
	if remember != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != remember) {
		in.history = append(in.history, remember)
	}
	in.hpos = len(in.history)
	in.draft = ""
	in.ta.Reset()
	in.pastes = map[string]string{}
	in.comp.items = nil
}

// paste inserts pasted text, folding a large paste into a placeholder that
// is expanded again when the prompt is sent. Line ends are made "\n"
// first: terminals send pasted lines separated by CR (what the Enter key
// sends), some by CRLF, a few by LF.
func (in *input) paste(text string) {
	text = normalizeNewlines(text)
	n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	if n <= pasteLines {
		in.ta.InsertString(text)
		return
	}
	ph := fmt.Sprintf("[pasted %d lines]", n)
	for i := 2; strings.Contains(in.ta.Value(), ph); i++ {
		ph = fmt.Sprintf("[pasted %d lines #%d]", n, i)
	}
	in.pastes[ph] = text
	in.ta.InsertString(ph)
}

// browse moves through the history; d is -1 for older, +1 for newer.
func (in *input) browse(d int) bool {
	next := in.hpos + d
	if next < 0 || next > len(in.history) {
		return false
	}
	if in.hpos == len(in.history) {
		in.draft = in.ta.Value()
	}
	in.hpos = next
	if next == len(in.history) {
		in.ta.SetValue(in.draft)
	} else {
		in.ta.SetValue(in.history[next])
	}
	return true
}

// update handles a key the model did not take. Up/Down browse the history
// when the cursor is on the first/last line, or move through suggestions;
// Tab accepts a suggestion.
func (in *input) update(msg tea.Msg, root string) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "tab":
			if in.comp.active() {
				in.ta.SetValue(in.comp.accept(in.ta.Value()))
			}
			return nil
		case "up":
			if in.comp.active() {
				in.comp.move(-1)
				return nil
			}
			if in.ta.Line() == 0 && in.browse(-1) {
				return nil
			}
		case "down":
			if in.comp.active() {
				in.comp.move(1)
				return nil
			}
			if in.ta.Line() == in.ta.LineCount()-1 && in.browse(1) {
				return nil
			}
		}
	}
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return tea.Batch(cmd, in.comp.refresh(in.ta.Value(), root))
}

// backslashNewline handles Enter after a backslash, as Claude Code does
// (the portable newline: every terminal sends it): the backslash becomes
// a new line. It reports whether there was one before the cursor.
func (in *input) backslashNewline() bool {
	lines := strings.Split(in.ta.Value(), "\n")
	row := in.ta.Line()
	if row >= len(lines) {
		return false
	}
	line, col := []rune(lines[row]), in.ta.Column()
	if col < 1 || col > len(line) || line[col-1] != '\\' {
		return false
	}
	in.ta, _ = in.ta.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	in.ta.InsertRune('\n')
	return true
}

// normalizeNewlines turns CRLF and lone CR into LF.
func normalizeNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
