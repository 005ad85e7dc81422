package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
)

// permissionDialog answers an agent.PermissionAsk: allow once, allow
// always (showing the exact rule that will be written), deny, or deny with
// a message for the model. Enter takes the highlighted choice, which
// starts on "allow once"; y / a / n and digits pick directly; Esc denies.
type permissionDialog struct {
	ask     *agent.PermissionAsk
	list    choiceList
	actions []func() agent.PermissionAnswer
	// typing is set while the denial message is being written.
	typing bool
	msg    lineEditor
}

func newPermissionDialog(ask *agent.PermissionAsk) *permissionDialog {
	d := &permissionDialog{ask: ask}
	d.addChoice("Yes, allow once", "y", func() agent.PermissionAnswer { return agent.PermissionAnswer{Allow: true} })
	if len(ask.Suggestions) > 0 {
		rule := ask.Suggestions[0]
		d.addChoice("Yes, and always allow "+rule, "a", func() agent.PermissionAnswer {
			return agent.PermissionAnswer{Allow: true, Always: true, Rule: rule}
		})
	}
	d.addChoice("No, deny", "n", func() agent.PermissionAnswer { return agent.PermissionAnswer{} })
	d.addChoice("No, and tell nova what to do instead", "", nil)
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
			d.ask.Answer(agent.PermissionAnswer{Message: strings.TrimSpace(d.msg.text)})
			return true, nil
		default:
			d.msg.key(msg)
		}
		return false, nil
	}
	if msg.String() == "esc" {
		d.ask.Answer(agent.PermissionAnswer{})
		return true, nil
	}
	i := d.list.key(msg)
	if i < 0 {
		return false, nil
	}
	if d.actions[i] == nil {
		d.typing = true
		return false, nil
	}
	d.ask.Answer(d.actions[i]())
	return true, nil
}

func (d *permissionDialog) view(width int, st *styles) string {
	body := []string{st.toolName.Render(d.ask.Tool) + " " + st.toolArg.Render(describeInput(d.ask.Input, width-8))}
	if r := d.ask.Decision.Reason; r != "" {
		body = append(body, st.dim.Render(r))
	}
	body = append(body, "")
	if d.typing {
		body = append(body, "What should nova do instead?", d.msg.view(st))
		return frame(width, st, "Deny "+d.ask.Tool, body, "enter send · esc back")
	}
	body = append(body, d.list.view(width-4, st)...)
	return frame(width, st, fmt.Sprintf("Allow %s?", d.ask.Tool), body, "enter choose · y/a/n or 1-9 pick · esc deny")
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
	ask     *agent.QuestionAsk
	idx     int
	answers []string
	list    choiceList
}

func newQuestionDialog(q *agent.QuestionAsk) *questionDialog {
	d := &questionDialog{ask: q}
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
	body := []string{wrapPlain(q.Question, width-4), ""}
	body = append(body, d.list.view(width-4, st)...)
	hint := "enter choose · 1-9 pick · esc decline"
	if q.MultiSelect {
		hint = "space/1-9 tick · enter confirm · esc decline"
	}
	return frame(width, st, title, body, hint)
}
