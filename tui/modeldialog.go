package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// ModelCatalog is an optional capability of a ModelSwitcher: /model's
// models described (a name, context size and price each), and the
// default of new sessions.
type ModelCatalog interface {
	// ModelEntries are the models /model offers, the current one among them.
	ModelEntries() []ModelEntry
	// SetDefaultModel makes id the model new sessions use (saved in
	// NOVA_HOME); it says where it was saved.
	SetDefaultModel(id string) (string, error)
}

// ModelEntry is one model of the /model dialog.
type ModelEntry struct {
	// ID is "provider:model", what SetModel takes.
	ID string
	// Name is what a person calls it ("Claude Sonnet 5.5").
	Name string
	// Alias is the family alias naming it ("sonnet"), if any.
	Alias string
	// ContextWindow is in tokens; 0 when unknown.
	ContextWindow int
	// Price is its price, worded ("$2 in, $10 out /Mtok"); "" when unknown.
	Price string
	// Default says new sessions use it.
	Default bool
}

// modelRoom is how many models the dialog shows at once (two lines each).
const modelRoom = 6

// modelDialog is /model's: the models by name, each with its id, context
// window and price, the cursor on the one in use. enter switches the
// session to the highlighted one; d also makes it the default of new
// sessions, which /model alone never does (a model tried for one session
// must not become every session's).
type modelDialog struct {
	entries []ModelEntry
	current string
	list    choiceList
	pick    func(e ModelEntry, makeDefault bool) tea.Cmd
}

func newModelDialog(entries []ModelEntry, current string, pick func(ModelEntry, bool) tea.Cmd) *modelDialog {
	d := &modelDialog{entries: entries, current: current, pick: pick}
	for i, e := range entries {
		d.list.choices = append(d.list.choices, choice{label: e.Name})
		if e.ID == current {
			d.list.sel = i
		}
	}
	return d
}

func (d *modelDialog) update(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	switch msg.String() {
	case "esc":
		return true, nil
	case "d":
		return true, d.pick(d.entries[d.list.sel], true)
	}
	if i := d.list.key(msg); i >= 0 {
		return true, d.pick(d.entries[i], false)
	}
	return false, nil
}

func (d *modelDialog) view(width int, st *styles) string {
	inner := max(20, width-4)
	body := []string{st.dim.Render(clipLine("Switches this session; d also makes it the default of new sessions.", inner)), ""}
	start := 0
	if n := len(d.entries); n > modelRoom {
		start = min(max(0, d.list.sel-modelRoom/2), n-modelRoom)
	}
	end := min(len(d.entries), start+modelRoom)
	if start > 0 {
		body = append(body, st.dim.Render(fmt.Sprintf("  ↑ %d more", start)))
	}
	for i := start; i < end; i++ {
		e := d.entries[i]
		head := fmt.Sprintf("%d. %s", i+1, e.Name)
		if e.Alias != "" {
			head += " (" + e.Alias + ")"
		}
		var marks []string
		if e.ID == d.current {
			marks = append(marks, "✔ current")
		}
		if e.Default {
			marks = append(marks, "default")
		}
		if len(marks) > 0 {
			head += " · " + strings.Join(marks, " · ")
		}
		facts := []string{e.ID}
		if e.ContextWindow > 0 {
			facts = append(facts, windowSize(e.ContextWindow)+" context")
		}
		if e.Price != "" {
			facts = append(facts, e.Price)
		}
		head = clipLine(head, inner-2)
		if i == d.list.sel {
			body = append(body, "❯ "+st.selected.Render(head))
		} else {
			body = append(body, "  "+head)
		}
		body = append(body, st.dim.Render(clipLine("     "+strings.Join(facts, " · "), inner)))
	}
	if end < len(d.entries) {
		body = append(body, st.dim.Render(fmt.Sprintf("  ↓ %d more", len(d.entries)-end)))
	}
	return frame(width, st, "Select a model", body, "enter switch · d switch and make default · ↑/↓ move · esc cancel")
}

// windowSize words a context window as models are sold: 200k, 1M.
func windowSize(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return tokens(n)
}
