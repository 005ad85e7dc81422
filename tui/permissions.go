package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/permission"
)

// RuleEditor is an optional Backend capability behind /permissions: the
// permission rules in effect, and removing one from its settings file.
type RuleEditor interface {
	// Rules lists the rules in effect: allow, then ask, then deny.
	Rules() ([]RuleInfo, error)
	// RemoveRule removes r from its settings file; from then on the
	// session's permission checker no longer applies it.
	RemoveRule(r RuleInfo) error
}

// RuleInfo is one permission rule as /permissions shows it.
type RuleInfo struct {
	Behavior permission.Behavior // which list: allow, ask or deny
	Rule     string              // as written, e.g. Bash(npm run test:*)
	// Source says where the rule comes from, for people: "local
	// .nova/settings.local.json", "--allowedTools".
	Source string
	// Path is the settings file holding the rule; "" for the command line.
	Path string
	// Removable is false for rules of the command line: they last as long
	// as the process and live in no file.
	Removable bool
}

func (m *Model) cmdPermissions(string) tea.Cmd {
	re := m.b.(RuleEditor)
	rules, err := re.Rules()
	if err != nil {
		m.tr.add(&entry{kind: entryError, text: err.Error()})
		return nil
	}
	mode := m.b.Status().Mode
	if len(rules) == 0 {
		m.tr.add(&entry{kind: entryInfo, text: fmt.Sprintf("Permission mode: %s · no allow, ask or deny rules · \"always\" answers and settings files add them (docs/permissions.md)", mode)})
		return nil
	}
	m.dialogs = append(m.dialogs, &rulesDialog{mode: mode, rules: rules, remove: func(r RuleInfo) tea.Cmd {
		return m.background("Removing rule…", func() resultMsg {
			if err := re.RemoveRule(r); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{text: fmt.Sprintf("Removed %s rule %s from %s", r.Behavior, r.Rule, r.Source)}
		})
	}})
	return nil
}

// rulesDialog lists the rules grouped by list; Enter or d on a rule asks
// to confirm its removal.
type rulesDialog struct {
	mode       permission.Mode
	rules      []RuleInfo
	sel        int
	confirming bool
	note       string // why the highlighted rule cannot be removed
	remove     func(RuleInfo) tea.Cmd
}

func (d *rulesDialog) update(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	s := msg.String()
	if d.confirming {
		switch s {
		case "y", "enter":
			return true, d.remove(d.rules[d.sel])
		case "n", "esc":
			d.confirming = false
		}
		return false, nil
	}
	d.note = ""
	switch s {
	case "esc", "q":
		return true, nil
	case "up", "ctrl+p", "shift+tab", "k":
		d.sel = (d.sel + len(d.rules) - 1) % len(d.rules)
	case "down", "ctrl+n", "tab", "j":
		d.sel = (d.sel + 1) % len(d.rules)
	case "enter", "d", "delete", "backspace":
		r := d.rules[d.sel]
		if !r.Removable {
			d.note = fmt.Sprintf("%s comes from %s: it can't be removed here; start nova without it", r.Rule, r.Source)
			return false, nil
		}
		d.confirming = true
	}
	return false, nil
}

func (d *rulesDialog) view(width int, st *styles) string {
	inner := max(20, width-4)
	// Rules line up in a column as wide as the longest, within reason,
	// so the sources read as a second column.
	col := 0
	for _, r := range d.rules {
		col = max(col, len([]rune(r.Rule)))
	}
	col = min(col, inner/2)
	var body []string
	selLine := 0
	var group permission.Behavior
	for i, r := range d.rules {
		if r.Behavior != group {
			group = r.Behavior
			body = append(body, st.key.Render(groupTitle(group)))
		}
		rule := r.Rule
		if n := len([]rune(rule)); n < col {
			rule += strings.Repeat(" ", col-n)
		}
		line := clipLine(rule+"  "+r.Source, inner-2)
		if i == d.sel {
			selLine = len(body)
			body = append(body, "❯ "+st.selected.Render(line))
		} else {
			body = append(body, "  "+line)
		}
	}
	// Long lists show a window around the highlighted rule.
	const room = 12
	if len(body) > room {
		start := min(max(0, selLine-room/2), len(body)-room)
		body = body[start : start+room]
	}
	hint := "↑/↓ move · enter or d remove · esc close"
	r := d.rules[d.sel]
	switch {
	case d.confirming:
		body = append(body, "", st.warn.Render(fmt.Sprintf("Remove %s rule %s from %s?", r.Behavior, r.Rule, r.Source)))
		hint = "y remove · n keep"
	case d.note != "":
		body = append(body, "", st.warn.Render(d.note))
	}
	return frame(width, st, fmt.Sprintf("Permission rules · mode: %s", d.mode), body, hint)
}

// groupTitle heads a group of rules with what the group does.
func groupTitle(b permission.Behavior) string {
	switch b {
	case permission.Allow:
		return "Allow (run without asking)"
	case permission.Ask:
		return "Ask (always ask first)"
	case permission.Deny:
		return "Deny (never run; beats ask and allow)"
	}
	return string(b)
}
