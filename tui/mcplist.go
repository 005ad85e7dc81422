package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// mcpRow is one server of the /mcp dialog: a session's server, or a
// project's waiting for approval.
type mcpRow struct {
	st      MCPServerStatus
	pending *PendingServer
}

// mcpActions are what the /mcp dialog's keys do, given by the model.
type mcpActions struct {
	// rows reads the servers as they are now: the dialog shows each
	// frame's (a server connecting turns connected under the cursor).
	rows func() []mcpRow
	// reconnect, login and approve are nil when the backend cannot.
	reconnect func(name string) tea.Cmd
	login     func(name string) tea.Cmd
	approve   func(name string, yes bool) tea.Cmd
}

// mcpListDialog is /mcp's: every server with its state (connected with
// its tool count, connecting, failed and why, needs login, disabled and
// why, needs approval), the tools of a server on enter, and the keys that
// act on the highlighted one: r connects it again, l logs in, a and x
// approve or reject a project's server.
type mcpListDialog struct {
	act      mcpActions
	sel      int
	expanded map[string]bool
	// room is how many lines the list may take (fit).
	room int
}

func newMCPListDialog(act mcpActions) *mcpListDialog {
	return &mcpListDialog{act: act, expanded: map[string]bool{}, room: 14}
}

// fit gives the list the screen's height less the dialog's frame, the
// activity and status lines and a line of transcript.
func (d *mcpListDialog) fit(_, height int, _ *styles) {
	d.room = max(4, height-9)
}

// ticking says the dialog wants frames while nothing else does: a
// server is connecting, and its outcome should show without a key.
func (d *mcpListDialog) ticking() bool {
	for _, r := range d.act.rows() {
		if r.pending == nil && r.st.State == MCPConnecting {
			return true
		}
	}
	return false
}

func (d *mcpListDialog) update(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	rows := d.act.rows()
	if len(rows) == 0 {
		return true, nil
	}
	d.sel = min(d.sel, len(rows)-1)
	r := rows[d.sel]
	switch msg.String() {
	case "esc", "q":
		return true, nil
	case "up", "ctrl+p", "shift+tab", "k":
		d.sel = (d.sel + len(rows) - 1) % len(rows)
	case "down", "ctrl+n", "tab", "j":
		d.sel = (d.sel + 1) % len(rows)
	case "enter", "space", "right", "left":
		if r.pending == nil {
			d.expanded[r.st.Name] = !d.expanded[r.st.Name]
		}
	case "r":
		if r.pending == nil && r.st.State != MCPDisabled && d.act.reconnect != nil {
			return false, d.act.reconnect(r.st.Name)
		}
	case "l":
		if r.pending == nil && d.act.login != nil && canLogin(r.st) {
			// The URL to open goes to the transcript: the dialog steps aside.
			return true, d.act.login(r.st.Name)
		}
	case "a", "x":
		if r.pending != nil && d.act.approve != nil {
			return false, d.act.approve(r.pending.Name, msg.String() == "a")
		}
	}
	return false, nil
}

// canLogin says the server may want an OAuth login: it asks for one, or
// it is remote (a login refreshes one that stopped working).
func canLogin(st MCPServerStatus) bool {
	return st.State == MCPNeedsLogin || strings.HasPrefix(st.Target, "http://") || strings.HasPrefix(st.Target, "https://")
}

func (d *mcpListDialog) view(width int, st *styles) string {
	inner := max(20, width-4)
	rows := d.act.rows()
	if len(rows) == 0 {
		return frame(width, st, "MCP servers", []string{"No MCP servers."}, "esc close")
	}
	d.sel = min(d.sel, len(rows)-1)
	var lines []string
	selStart, selEnd := 0, 0
	for i, r := range rows {
		if i == d.sel {
			selStart = len(lines)
		}
		lines = append(lines, d.rowLines(r, i == d.sel, inner, st)...)
		if i == d.sel {
			selEnd = len(lines)
		}
	}
	// A long list shows a window that holds the highlighted server.
	if len(lines) > d.room {
		start := max(0, min(selStart, selEnd-d.room))
		start = min(start, len(lines)-d.room)
		end := start + d.room
		window := lines[start:end]
		if start > 0 {
			window = append([]string{st.dim.Render(fmt.Sprintf("  ↑ %d more lines", start))}, window[1:]...)
		}
		if end < len(lines) {
			window = append(window[:len(window)-1], st.dim.Render(fmt.Sprintf("  ↓ %d more lines", len(lines)-end)))
		}
		lines = window
	}
	title := fmt.Sprintf("MCP servers (%d)", len(rows))
	return frame(width, st, title, lines, d.hint(rows[d.sel]))
}

// rowLines draws one server: its name and state, what it runs, why it
// failed, and its tools when expanded.
func (d *mcpListDialog) rowLines(r mcpRow, selected bool, inner int, st *styles) []string {
	name, state, target, why := r.st.Name, "", r.st.Target, ""
	if r.pending != nil {
		name, target = r.pending.Name, r.pending.Target
		state = "needs approval (from " + orDefault(r.pending.Source, ".mcp.json") + ")"
	} else {
		state, why = mcpRowState(r.st)
	}
	head := clipLine(name+" · "+state, inner-2)
	out := make([]string, 0, 4)
	if selected {
		out = append(out, "❯ "+st.selected.Render(head))
	} else {
		out = append(out, "  "+head)
	}
	if target != "" {
		out = append(out, st.dim.Render(clipLine("    "+target, inner)))
	}
	if why != "" {
		style := st.err
		if r.st.State != MCPFailed {
			style = st.warn
		}
		for _, l := range strings.Split(wrapPlain(why, inner-4), "\n") {
			out = append(out, "    "+style.Render(l))
		}
	}
	if r.pending == nil && d.expanded[r.st.Name] {
		if len(r.st.Tools) == 0 {
			out = append(out, st.dim.Render("    no tools"))
		}
		for _, t := range r.st.Tools {
			out = append(out, clipLine("    · "+t, inner))
		}
	}
	return out
}

// mcpRowState words a server's state for its line, and the reason, when
// there is one, for the lines under it.
func mcpRowState(st MCPServerStatus) (state, why string) {
	switch st.State {
	case MCPConnecting:
		return "connecting…", ""
	case MCPConnected:
		return fmt.Sprintf("connected · %d tool%s", len(st.Tools), plural(len(st.Tools))), ""
	case MCPFailed:
		why = st.Error
		if st.Retries {
			why += " (started again at the next call to one of its tools, or now with r)"
		}
		return "failed", why
	}
	return st.State, st.Error
}

// hint is the dialog's key line for the highlighted server.
func (d *mcpListDialog) hint(r mcpRow) string {
	keys := []string{"↑/↓ move"}
	switch {
	case r.pending != nil:
		if d.act.approve != nil {
			keys = append(keys, "a approve", "x reject")
		}
	default:
		keys = append(keys, "enter tools")
		if d.act.reconnect != nil && r.st.State != MCPDisabled {
			keys = append(keys, "r reconnect")
		}
		if d.act.login != nil && canLogin(r.st) {
			keys = append(keys, "l log in")
		}
	}
	return strings.Join(append(keys, "esc close"), " · ")
}

// openMCPDialog shows /mcp's dialog on the backend's servers.
func (m *Model) openMCPDialog() tea.Cmd {
	b := m.b.(MCPServers)
	act := mcpActions{rows: func() []mcpRow {
		var rows []mcpRow
		for _, st := range b.MCPStatus() {
			rows = append(rows, mcpRow{st: st})
		}
		for _, p := range b.MCPPending() {
			rows = append(rows, mcpRow{pending: &p})
		}
		return rows
	}}
	act.approve = func(name string, yes bool) tea.Cmd {
		m.answerMCP([]string{name}, yes)
		return nil
	}
	if rb, ok := m.b.(MCPReconnector); ok {
		ctx := m.ctx
		act.reconnect = func(name string) tea.Cmd {
			return m.background("Reconnecting to "+name+"…", func() resultMsg {
				text, err := rb.ReconnectMCP(ctx, name)
				return resultMsg{text: text, err: err}
			})
		}
	}
	if _, ok := m.b.(MCPLogin); ok {
		act.login = m.loginMCP
	}
	m.dialogs = append(m.dialogs, newMCPListDialog(act))
	return m.startTick()
}

// dialogTicking says the dialog shown wants frames of its own (ticking).
func (m *Model) dialogTicking() bool {
	if len(m.dialogs) == 0 {
		return false
	}
	d, ok := m.dialogs[0].(interface{ ticking() bool })
	return ok && d.ticking()
}
