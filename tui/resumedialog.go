package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// SessionPreviewer is the backend's optional preview of a session for
// /resume: its last exchange.
type SessionPreviewer interface {
	// SessionPreview returns the last prompt of session id and the answer
	// that followed it ("" for either that is missing).
	SessionPreview(id string) (prompt, answer string, err error)
}

// resumeRow is one session the /resume picker offers.
type resumeRow struct {
	id, label string
	search    string // what typing matches, lower case
}

// resumePreview is a loaded preview, or why it could not be.
type resumePreview struct {
	prompt, answer string
	err            error
}

// resumePreviewMsg delivers the preview of session id.
type resumePreviewMsg struct {
	id string
	p  resumePreview
}

// resumeDialog is /resume: the sessions of the directory, filtered as you
// type (every word must appear in the title, the id or the age line), with
// the last exchange of the highlighted one below the list.
type resumeDialog struct {
	rows    []resumeRow
	query   lineEditor
	shown   []int // indices into rows that match the query
	sel     int   // index into shown
	preview map[string]resumePreview
	loading map[string]bool
	load    func(id string) tea.Cmd // nil: no previews
	pick    func(id string) tea.Cmd
}

// resumeListRoom is how many sessions the list shows at once.
const resumeListRoom = 8

func newResumeDialog(rows []resumeRow, load func(string) tea.Cmd, pick func(string) tea.Cmd) *resumeDialog {
	d := &resumeDialog{rows: rows, load: load, pick: pick, preview: map[string]resumePreview{}, loading: map[string]bool{}}
	d.filter()
	return d
}

// filter recomputes the shown rows from the query, keeping the highlight
// on the same session when it still matches.
func (d *resumeDialog) filter() {
	cur := d.current()
	words := strings.Fields(strings.ToLower(d.query.text))
	d.shown = d.shown[:0]
	d.sel = 0
	for i, r := range d.rows {
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(r.search, w)
		}
		if ok {
			if r.id == cur {
				d.sel = len(d.shown)
			}
			d.shown = append(d.shown, i)
		}
	}
}

// current is the highlighted session's id, "" when none matches.
func (d *resumeDialog) current() string {
	if d.sel < 0 || d.sel >= len(d.shown) {
		return ""
	}
	return d.rows[d.shown[d.sel]].id
}

// want loads the highlighted session's preview unless it is known or on
// its way.
func (d *resumeDialog) want() tea.Cmd {
	id := d.current()
	if d.load == nil || id == "" || d.loading[id] {
		return nil
	}
	if _, ok := d.preview[id]; ok {
		return nil
	}
	d.loading[id] = true
	return d.load(id)
}

func (d *resumeDialog) update(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	switch msg.String() {
	case "esc":
		if d.query.text != "" {
			d.query.text = ""
			d.filter()
			return false, d.want()
		}
		return true, nil
	case "enter":
		if id := d.current(); id != "" {
			return true, d.pick(id)
		}
		return false, nil
	case "up", "ctrl+p", "shift+tab":
		if len(d.shown) > 0 {
			d.sel = (d.sel + len(d.shown) - 1) % len(d.shown)
		}
	case "down", "ctrl+n", "tab":
		if len(d.shown) > 0 {
			d.sel = (d.sel + 1) % len(d.shown)
		}
	default:
		before := d.query.text
		d.query.key(msg)
		if d.query.text != before {
			d.filter()
		}
	}
	return false, d.want()
}

// loaded stores a preview that arrived.
func (d *resumeDialog) loaded(msg resumePreviewMsg) tea.Cmd {
	delete(d.loading, msg.id)
	d.preview[msg.id] = msg.p
	return d.want()
}

func (d *resumeDialog) view(width int, st *styles) string {
	inner := max(20, width-4)
	var body []string
	body = append(body, "Search: "+d.query.text+st.selected.Render(" "))
	if len(d.shown) == 0 {
		body = append(body, st.dim.Render("  no session matches"))
	}
	start := 0
	if len(d.shown) > resumeListRoom {
		start = min(max(0, d.sel-resumeListRoom/2), len(d.shown)-resumeListRoom)
	}
	for i := start; i < min(len(d.shown), start+resumeListRoom); i++ {
		line := clipLine(d.rows[d.shown[i]].label, inner-2)
		if i == d.sel {
			body = append(body, "❯ "+st.selected.Render(line))
		} else {
			body = append(body, "  "+line)
		}
	}
	if n := len(d.shown); n > resumeListRoom {
		body = append(body, st.dim.Render(fmt.Sprintf("  %d of %d sessions", n, len(d.rows))))
	}
	if id := d.current(); id != "" && d.load != nil {
		body = append(body, "")
		p, ok := d.preview[id]
		switch {
		case !ok:
			body = append(body, st.dim.Render("loading the last exchange…"))
		case p.err != nil:
			body = append(body, st.dim.Render("no preview: "+p.err.Error()))
		default:
			body = append(body, previewLines("❯ ", p.prompt, inner, 3, st)...)
			body = append(body, previewLines("⏺ ", p.answer, inner, 5, st)...)
		}
	}
	return frame(width, st, "Resume a session", body, "type to search · ↑/↓ move · enter resume · esc clear / cancel")
}

// previewLines is text under a lead, wrapped to width and cut to at most n
// lines.
func previewLines(lead, text string, width, n int, st *styles) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	lines := strings.Split(wrapPlain(text, width-len([]rune(lead))), "\n")
	if len(lines) > n {
		lines = append(lines[:n-1], lines[n-1]+" …")
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		pad := strings.Repeat(" ", len([]rune(lead)))
		if i == 0 {
			pad = lead
		}
		out[i] = st.dim.Render(pad + l)
	}
	return out
}
