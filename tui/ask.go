package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/tools/display"
)

// permissionDialog answers an agent.PermissionAsk: allow once, allow
// always (showing the exact rule that will be written), deny — which
// stops the turn and waits for the person, as Claude Code's "No" does —
// or deny with a message for the model, which goes on with it. Enter
// takes the highlighted choice, which starts on "allow once"; y / a / n
// and digits pick directly; Esc denies and stops, as n does.
type permissionDialog struct {
	ask *agent.PermissionAsk
	// by is the subagent that asks; nil for the run's own calls.
	by      *agent.AgentRef
	list    choiceList
	actions []func() agent.PermissionAnswer
	// typing is set while the denial message is being written.
	typing bool
	msg    lineEditor
	// stop says the person denied and stopped the turn ("No, deny", esc):
	// the dialog leaves the ask to the model, which denies it and stops
	// the run (Model.answered). said is the message denied with, shown in
	// the transcript.
	stop bool
	said string
	// late says the answer given here was not taken: the ask had been
	// answered elsewhere first (the browser of a shared session), and
	// that answer stands.
	late bool
	// preview is the ask's diff, numbered; room is how many of its lines
	// the screen leaves the dialog, top the first one shown.
	preview []string
	room    int
	top     int
	// full says the diff has the screen (ctrl+o on a diff taller than its
	// window): a long edit is read a screenful at a time, not five lines,
	// and y / a / n answer it there.
	full bool
	// printedAbove says inline mode printed the whole diff above the
	// program, where the terminal's scrollback reads it.
	printedAbove bool
}

func newPermissionDialog(ask *agent.PermissionAsk, by *agent.AgentRef) *permissionDialog {
	d := &permissionDialog{ask: ask, by: by}
	d.addChoice("Yes, allow once", "y", func() agent.PermissionAnswer { return agent.PermissionAnswer{Allow: true} })
	if len(ask.Suggestions) > 0 {
		rule := ask.Suggestions[0]
		d.addChoice("Yes, and always allow "+rule, "a", func() agent.PermissionAnswer {
			return agent.PermissionAnswer{Allow: true, Always: true, Rule: rule}
		})
	}
	if ask.Host != "" {
		// The network question: "no" refuses the host and the command
		// goes on without it (a build's optional telemetry host must not
		// end the turn); esc still stops it.
		d.addChoice("No, refuse "+ask.Host, "n", func() agent.PermissionAnswer { return agent.PermissionAnswer{} })
	} else {
		d.addChoice("No, deny", "n", nil)
	}
	d.addChoice("No, and tell nova what to do instead", "", nil)
	d.room = 10 // until the first frame fits it to the screen
	return d
}

func (d *permissionDialog) addChoice(label, key string, act func() agent.PermissionAnswer) {
	d.list.choices = append(d.list.choices, choice{label: label, key: key})
	d.actions = append(d.actions, act)
}

func (d *permissionDialog) update(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	if d.typing {
		switch msg.String() {
		case "esc":
			d.typing = false
		case "enter":
			d.said = strings.TrimSpace(d.msg.text)
			if d.said == "" {
				d.stop = true // nothing to tell: a plain "No"
				return true, nil
			}
			d.late = !d.ask.Answer(agent.PermissionAnswer{Message: d.said})
			return true, nil
		default:
			d.msg.key(msg)
		}
		return false, nil
	}
	if msg.String() == "esc" {
		d.stop = true
		return true, nil
	}
	if d.full && !hasKey(d.list.choices, msg.String()) {
		// The choices are out of sight: only their own keys answer, so
		// enter cannot take a highlighted choice nobody sees.
		return false, nil
	}
	i := d.list.key(msg)
	if i < 0 {
		return false, nil
	}
	if d.actions[i] == nil {
		if d.list.choices[i].key == "n" {
			d.stop = true
			return true, nil
		}
		d.typing = true
		return false, nil
	}
	d.late = !d.ask.Answer(d.actions[i]())
	return true, nil
}

func (d *permissionDialog) view(width int, st *styles) string {
	if d.full && !d.typing {
		return d.fullView(width, st)
	}
	body := append(askedBy(d.by, "wants to run "+d.ask.Tool, width-4, st), d.subject(width-4, st)...)
	if r := d.ask.Decision.Reason; r != "" {
		body = append(body, st.dim.Render(r))
	}
	body = append(body, "")
	if pv := d.previewView(st); len(pv) > 0 {
		body = append(append(body, pv...), "")
	}
	if d.typing {
		body = append(body, "What should nova do instead?", d.msg.view(st))
		return frame(width, st, "Deny "+d.ask.Tool, body, "enter send · esc back")
	}
	body = append(body, d.list.view(width-4, st)...)
	hint := "enter choose · y/a/n or 1-9 pick · esc deny"
	if d.expandable() {
		hint = "enter choose · y/a/n pick · esc deny · pgup/pgdn scroll · ctrl+o full diff"
		if d.printedAbove {
			hint = "enter choose · y/a/n pick · esc deny · whole diff above · pgup/pgdn scroll"
		}
	}
	return frame(width, st, fmt.Sprintf("Allow %s?", d.ask.Tool), body, hint)
}

// subject is what the call is: the tool and its key input. A command is
// shown whole, wrapped, with the description the model gave it: a person
// approves what runs, not its first 80 columns.
func (d *permissionDialog) subject(width int, st *styles) []string {
	var in map[string]any
	_ = json.Unmarshal(d.ask.Input, &in)
	if c, ok := in["command"].(string); ok {
		ls := strings.Split(wrapPlain("$ "+c, width-len(d.ask.Tool)-1), "\n")
		pad := strings.Repeat(" ", len(d.ask.Tool)+1)
		out := []string{st.toolName.Render(d.ask.Tool) + " " + st.toolArg.Render(ls[0])}
		for _, l := range ls[1:] {
			out = append(out, pad+st.toolArg.Render(l))
		}
		if desc, _ := in["description"].(string); strings.TrimSpace(desc) != "" {
			out = append(out, strings.Split(wrapPlain(strings.TrimSpace(desc), width), "\n")...)
		}
		return out
	}
	head := st.toolName.Render(d.ask.Tool) + " " + st.toolArg.Render(describeInput(d.ask.Input, width-4))
	if p := d.ask.Preview; p != nil && p.Kind == display.KindDiff && len(p.Diffs) == 1 {
		f := p.Diffs[0]
		head = st.toolName.Render(d.ask.Tool) + " " + diffHeader(f, st)
		if d.ask.Tool == "Write" && strings.Contains(f.Diff, "\n@@ -0,0 ") { // nothing before: a new file
			head = st.toolName.Render(d.ask.Tool+" "+f.Path) + st.dim.Render(fmt.Sprintf(" · new file, %d line%s", f.Added, plural(f.Added)))
		}
	}
	return []string{head}
}

// previewView is the window of the numbered diff the dialog has room for,
// with a line saying where it is when it does not all fit.
func (d *permissionDialog) previewView(st *styles) []string {
	if d.preview == nil && d.ask.Preview != nil && d.ask.Preview.Kind == display.KindDiff {
		d.preview = diffsView(d.ask.Preview, st)
	}
	if len(d.preview) <= d.room {
		return d.preview
	}
	d.top = min(max(0, d.top), len(d.preview)-d.room)
	out := append([]string(nil), d.preview[d.top:d.top+d.room]...)
	return append(out, st.dim.Render(fmt.Sprintf("lines %d–%d of %d", d.top+1, d.top+d.room, len(d.preview))))
}

// fullView is the dialog with the screen given to the diff: the subject,
// a screenful of the diff with its position in the title, and the keys
// that answer.
func (d *permissionDialog) fullView(width int, st *styles) string {
	d.top = min(max(0, d.top), max(0, len(d.preview)-d.room))
	end := min(len(d.preview), d.top+d.room)
	body := append(d.subject(width-4, st)[:1], d.preview[d.top:end]...)
	keys := make([]string, 0, len(d.list.choices))
	for _, c := range d.list.choices {
		if c.key != "" {
			keys = append(keys, c.key)
		}
	}
	title := fmt.Sprintf("Allow %s? · lines %d–%d of %d", d.ask.Tool, d.top+1, end, len(d.preview))
	return frame(width, st, title, body, strings.Join(keys, "/")+" answer · esc deny · pgup/pgdn scroll · ctrl+o choices")
}

// expandable says the diff is taller than the dialog's window, so
// ctrl+o may give it the screen.
func (d *permissionDialog) expandable() bool {
	return d.full || len(d.preview) > d.room
}

// toggleFull gives the diff the screen or takes it back; it reports
// whether there was a diff to give it.
func (d *permissionDialog) toggleFull() bool {
	if d.typing || !d.expandable() {
		return false
	}
	d.full = !d.full
	return true
}

// hasKey says whether key is one of choices' own keys.
func hasKey(choices []choice, key string) bool {
	for _, c := range choices {
		if c.key != "" && c.key == key {
			return true
		}
	}
	return false
}

// scroll moves the preview by a page; it reports whether there is one.
func (d *permissionDialog) scroll(pages int) bool {
	if len(d.preview) <= d.room {
		return false
	}
	d.top += pages * max(1, d.room-1)
	return true
}

// fit sizes the preview's window to the screen: what is left besides the
// dialog's other lines (frame, title, subject, reason, choices, hint, the
// preview's position line and blanks), the activity and status lines and
// two lines of transcript; at most 20 lines, at least 3.
func (d *permissionDialog) fit(width, height int, st *styles) {
	if d.full && !d.typing {
		// The frame, title, subject, blank and hint; the blank above the
		// dialog, the activity and status lines; one line of transcript.
		d.room = max(3, height-10)
		return
	}
	fixed := 2 + 1 + len(askedBy(d.by, "", width-4, st)) + len(d.subject(width-4, st)) + 1 + 1 + len(d.list.choices) + 1 + 1 + 2
	d.room = min(20, max(3, height-fixed-1-2-2))
}

// askedBy is the line that says a subagent asks, not the run itself:
// "Explore agent wants to run Bash · find the parser"; none for the
// run's own asks.
func askedBy(by *agent.AgentRef, what string, width int, st *styles) []string {
	if by == nil {
		return nil
	}
	l := by.Type + " agent " + what
	if by.Type == "" {
		l = "A subagent " + what
	}
	if by.Description != "" {
		l += st.dim.Render(" · " + firstLine(by.Description))
	}
	return []string{clipLine(st.warn.Render(l), width)}
}

// describeInput is the part of a call's input a person judges it by.
func describeInput(raw json.RawMessage, width int) string {
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil {
		return string(raw)
	}
	if c, ok := in["command"].(string); ok {
		return "$ " + c
	}
	for _, k := range []string{"file_path", "notebook_path", "path", "url"} {
		if s, ok := in[k].(string); ok {
			return s
		}
	}
	s := string(raw)
	if len(s) > width*3 {
		s = s[:width*3] + "…"
	}
	return s
}

// questionDialog answers AskUserQuestion: one question at a time, in the
// same style as the permission dialog. Esc declines all of them.
type questionDialog struct {
	ask *agent.QuestionAsk
	// by is the subagent that asks; nil for the run's own questions.
	by      *agent.AgentRef
	idx     int
	answers []string
	list    choiceList
}

func newQuestionDialog(q *agent.QuestionAsk, by *agent.AgentRef) *questionDialog {
	d := &questionDialog{ask: q, by: by}
	d.load()
	return d
}

// load shows the current question's options.
func (d *questionDialog) load() {
	q := d.ask.Questions[d.idx]
	d.list = choiceList{multi: q.MultiSelect, marked: map[int]bool{}}
	for _, o := range q.Options {
		label := o.Label
		if o.Description != "" {
			label += " — " + o.Description
		}
		d.list.choices = append(d.list.choices, choice{label: label})
	}
}

func (d *questionDialog) update(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	if msg.String() == "esc" {
		d.ask.Answer(nil)
		return true, nil
	}
	if len(d.list.choices) == 0 {
		d.answers = append(d.answers, "")
	} else {
		i := d.list.key(msg)
		if i < 0 {
			return false, nil
		}
		q := d.ask.Questions[d.idx]
		if q.MultiSelect {
			var picked []string
			for j, o := range q.Options {
				if d.list.marked[j] {
					picked = append(picked, o.Label)
				}
			}
			if len(picked) == 0 {
				picked = []string{q.Options[i].Label}
			}
			d.answers = append(d.answers, strings.Join(picked, ", "))
		} else {
			d.answers = append(d.answers, q.Options[i].Label)
		}
	}
	d.idx++
	if d.idx == len(d.ask.Questions) {
		d.ask.Answer(d.answers)
		return true, nil
	}
	d.load()
	return false, nil
}

func (d *questionDialog) view(width int, st *styles) string {
	q := d.ask.Questions[d.idx]
	title := "Question"
	if q.Header != "" {
		title = q.Header
	}
	if n := len(d.ask.Questions); n > 1 {
		title += fmt.Sprintf(" (%d/%d)", d.idx+1, n)
	}
	body := append(askedBy(d.by, "asks", width-4, st), wrapPlain(q.Question, width-4), "")
	body = append(body, d.list.view(width-4, st)...)
	hint := "enter choose · 1-9 pick · esc decline"
	if q.MultiSelect {
		hint = "space/1-9 tick · enter confirm · esc decline"
	}
	return frame(width, st, title, body, hint)
}
