package tui

import (
	"fmt"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// dialog takes the keyboard while it is open: a permission ask, a
// question, or a picker. update reports when the dialog is finished.
type dialog interface {
	update(msg tea.KeyPressMsg) (done bool, cmd tea.Cmd)
	view(width int, st *styles) string
}

// choice is one line of a choice list.
type choice struct {
	label string
	key   string // a letter that picks it directly, besides its number
}

// choiceList is the list every dialog is built on: numbered choices, one
// highlighted; Up/Down move, Enter takes the highlighted one, a digit or the
// choice's letter takes that one at once.
type choiceList struct {
	choices []choice
	sel     int
	marked  map[int]bool // multi-select ticks
	multi   bool
}

// key handles navigation; it returns the picked index or -1.
func (c *choiceList) key(msg tea.KeyPressMsg) int {
	switch s := msg.String(); s {
	case "up", "ctrl+p", "shift+tab":
		c.sel = (c.sel + len(c.choices) - 1) % len(c.choices)
	case "down", "ctrl+n", "tab":
		c.sel = (c.sel + 1) % len(c.choices)
	case "space":
		if c.multi {
			c.marked[c.sel] = !c.marked[c.sel]
		}
	case "enter":
		return c.sel
	default:
		if len(s) == 1 && s[0] >= '1' && s[0] <= '9' {
			if i := int(s[0] - '1'); i < len(c.choices) {
				if c.multi {
					c.sel = i
					c.marked[i] = !c.marked[i]
					return -1
				}
				return i
			}
		}
		for i, ch := range c.choices {
			if ch.key != "" && ch.key == s {
				return i
			}
		}
	}
	return -1
}

func (c *choiceList) view(width int, st *styles) []string {
	out := make([]string, 0, len(c.choices))
	for i, ch := range c.choices {
		box := ""
		if c.multi {
			box = "[ ] "
			if c.marked[i] {
				box = "[x] "
			}
		}
		line := fmt.Sprintf("%d. %s%s", i+1, box, ch.label)
		if ch.key != "" {
			line += fmt.Sprintf(" (%s)", ch.key)
		}
		line = clipLine(line, width-2)
		if i == c.sel {
			out = append(out, "❯ "+st.selected.Render(line))
		} else {
			out = append(out, "  "+line)
		}
	}
	return out
}

// frame draws a dialog: a bordered box with a title, body and a key hint.
func frame(width int, st *styles, title string, body []string, hint string) string {
	inner := max(20, width-4)
	lines := []string{st.dialogTitle.Render(clipLine(title, inner))}
	for _, l := range body {
		lines = append(lines, clip(strings.Split(l, "\n"), inner)...)
	}
	lines = append(lines, "", st.dim.Render(clipLine(hint, inner)))
	return st.dialogBorder.Width(width).Render(strings.Join(lines, "\n"))
}

func clipLine(s string, width int) string {
	return clip([]string{s}, max(1, width))[0]
}

// lineEditor is the one-line text field of a dialog (a denial message).
// It is hand-rolled to stay free of cursor blink timers.
type lineEditor struct{ text string }

func (l *lineEditor) key(msg tea.KeyPressMsg) {
	switch msg.String() {
	case "backspace":
		if l.text != "" {
			_, n := utf8.DecodeLastRuneInString(l.text)
			l.text = l.text[:len(l.text)-n]
		}
	case "space":
		l.text += " "
	default:
		if msg.Text != "" {
			l.text += msg.Text
		}
	}
}

func (l *lineEditor) view(st *styles) string {
	return "❯ " + l.text + st.selected.Render(" ")
}

// pickerDialog chooses one of a list (a session to resume, a model).
type pickerDialog struct {
	title string
	list  choiceList
	pick  func(i int) tea.Cmd
}

func newPicker(title string, labels []string, pick func(int) tea.Cmd) *pickerDialog {
	p := &pickerDialog{title: title, pick: pick}
	for _, l := range labels {
		p.list.choices = append(p.list.choices, choice{label: l})
	}
	return p
}

func (p *pickerDialog) update(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	if msg.String() == "esc" {
		return true, nil
	}
	if i := p.list.key(msg); i >= 0 {
		return true, p.pick(i)
	}
	return false, nil
}

func (p *pickerDialog) view(width int, st *styles) string {
	body := p.list.view(width-4, st)
	// Long lists show a window around the highlighted choice.
	const room = 10
	if len(body) > room {
		start := min(max(0, p.list.sel-room/2), len(body)-room)
		body = body[start : start+room]
	}
	return frame(width, st, p.title, body, "↑/↓ move · enter choose · esc cancel")
}
