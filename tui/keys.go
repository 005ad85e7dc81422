package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
)

// keyHelp is the key map shown by ? and /help (and in docs/tui.md).
var keyHelp = [][2]string{
	{"enter", "send the prompt, or queue it while nova works (in a dialog: choose)"},
	{"shift+enter, ctrl+j", "new line (so does \\ then enter)"},
	{"up / down", "prompt history, or move through suggestions; scroll while the view is scrolled up"},
	{"tab", "complete a /command, @path or @server:uri"},
	{"esc", "interrupt the running turn, queued prompts back to the input; in a dialog: deny / cancel"},
	{"shift+tab", "cycle permission mode: default, acceptEdits, plan (and bypassPermissions if started in it)"},
	{"ctrl+o", "expand / collapse tool calls and thinking"},
	{"pgup / pgdown", "scroll the transcript (so does the mouse wheel)"},
	{"home / end", "top / bottom of the transcript (on an empty input; ctrl+home / ctrl+end always)"},
	{"ctrl+c", "clear the input; twice on an empty input quits"},
	{"ctrl+l", "redraw the screen"},
	{"?", "this help (on an empty input)"},
	{"!cmd", "run a shell command; output goes with the next prompt"},
	{"@path", "mention a file"},
	{"@server:uri", "attach an MCP server's resource to the prompt"},
}

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.quitArmed = false
		if m.hint == "Press Ctrl+C again to quit" {
			m.hint = ""
		}
	}
	switch s {
	case "ctrl+c":
		return m.ctrlC()
	case "ctrl+l":
		return tea.ClearScreen
	case "ctrl+o":
		if pd, ok := m.firstDialog().(*permissionDialog); ok && pd.toggleFull() {
			return nil // the diff being approved, not the transcript
		}
		m.expanded = !m.expanded
		return nil
	}
	if m.scrollKey(s) {
		return nil
	}
	if len(m.dialogs) > 0 && !m.stepAside(k) {
		d := m.dialogs[0]
		done, cmd := d.update(k)
		if done {
			m.dialogs = m.dialogs[1:]
			if pd, ok := d.(*permissionDialog); ok {
				m.answered(pd)
			}
		}
		return cmd
	}
	switch s {
	case "esc":
		if m.in.comp.active() {
			m.in.comp.items = nil
		} else {
			m.interrupt()
		}
		return nil
	case "shift+tab":
		mode := m.b.CycleMode()
		m.status = m.b.Status()
		m.status.Mode = mode
		return nil
	case "?":
		if m.in.empty() {
			return m.cmdHelp("")
		}
	case "enter":
		if m.in.backslashNewline() {
			return m.in.comp.refresh(m.in.ta.Value(), m.status.Cwd)
		}
		// A command typed in full runs, though longer ones start with it
		// (/mcp and the /mcp__ prompts).
		if m.in.comp.active() && !slices.Contains(m.in.comp.commands, strings.TrimSpace(m.in.ta.Value())) {
			token, item := m.in.comp.token, m.in.comp.items[m.in.comp.sel]
			m.in.ta.SetValue(m.in.comp.accept(m.in.ta.Value()))
			if strings.HasPrefix(token, "@") || m.needsArgs(item) {
				return nil
			}
		}
		return m.submit(m.in.value())
	case "up", "down":
		dir := map[string]int{"up": -1, "down": 1}[s]
		if !m.in.comp.active() && m.arrow(dir) {
			return nil
		}
		cmd := m.in.update(k, m.status.Cwd)
		m.arrowRecalled()
		return tea.Batch(cmd, m.wantMCP())
	}
	return tea.Batch(m.typed(k), m.wantMCP())
}

// typed passes a key to the input. When it opens command completion
// (the input now starts with "/"), the commands are listed afresh first.
func (m *Model) typed(k tea.KeyPressMsg) tea.Cmd {
	was := strings.HasPrefix(m.in.ta.Value(), "/")
	cmd := m.in.update(k, m.status.Cwd)
	if !was && strings.HasPrefix(m.in.ta.Value(), "/") {
		m.loadCommands()
		return tea.Batch(cmd, m.in.comp.refresh(m.in.ta.Value(), m.status.Cwd))
	}
	return cmd
}

// answered follows a permission dialog the person closed. A denial
// with words for nova shows them in the transcript, as a prompt is; a
// plain denial stops the turn (the denial says so, and the run is
// cancelled too, so the model is not asked again) and nova waits for the
// person, as Claude Code does. An answer that came too late (the ask of
// a shared session was answered in the browser first) does nothing: the
// first answer stands, and a "No" must not interrupt the call it
// allowed.
func (m *Model) answered(pd *permissionDialog) {
	if pd.stop {
		// The answer itself stops the run: the cancellation below
		// arrives in its own time.
		pd.late = !pd.ask.Answer(agent.PermissionAnswer{Message: "The person denied this call and stopped the turn.", Interrupt: true})
		if !pd.late {
			m.interrupt()
		}
	}
	if pd.late {
		m.tr.add(&entry{kind: entryNotice, text: pd.ask.Tool + " was answered in the browser first: that answer stands, yours was not taken"})
		m.tr.toBottom()
		return
	}
	if pd.said != "" {
		m.tr.add(&entry{kind: entryUser, text: pd.said})
		m.tr.toBottom()
	}
}

// ctrlC clears the input; on an empty input it interrupts a run, and a
// second press quits.
func (m *Model) ctrlC() tea.Cmd {
	if !m.in.empty() {
		m.in.reset("")
		return nil
	}
	if m.quitArmed {
		m.interrupt()
		return m.quit()
	}
	m.interrupt()
	m.quitArmed = true
	m.hint = "Press Ctrl+C again to quit"
	return nil
}

// submit handles Enter: a slash command, a shell command, or a prompt.
func (m *Model) submit(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	switch {
	case strings.HasPrefix(text, "/"):
		m.in.reset(text)
		return m.command(text)
	case m.run != nil || m.busy != "":
		// Sent when nova stops, as a Claude Code user expects; Esc takes
		// it back into the input.
		m.in.reset(text)
		m.queued = append(m.queued, text)
		return nil
	case strings.HasPrefix(text, "!"):
		m.in.reset(text)
		return m.shell(strings.TrimSpace(text[1:]))
	}
	m.in.reset(text)
	m.hint = ""
	return m.startRun(text)
}

// sendQueued sends what was queued while nova worked, once it is idle: a
// "!cmd" on its own, and the prompts up to the next one as one message.
func (m *Model) sendQueued() tea.Cmd {
	if len(m.queued) == 0 || m.run != nil || m.busy != "" {
		return nil
	}
	if next := m.queued[0]; strings.HasPrefix(next, "!") {
		m.queued = m.queued[1:]
		return m.shell(strings.TrimSpace(next[1:]))
	}
	n := 1
	for n < len(m.queued) && !strings.HasPrefix(m.queued[n], "!") {
		n++
	}
	text := strings.Join(m.queued[:n], "\n\n")
	m.queued = m.queued[n:]
	return m.startRun(text)
}

// unqueue takes queued prompts back into the input, before what is being
// typed, so an interrupt never sends them.
func (m *Model) unqueue() {
	if len(m.queued) == 0 {
		return
	}
	text := strings.Join(m.queued, "\n\n")
	if cur := m.in.ta.Value(); cur != "" {
		text += "\n\n" + cur
	}
	m.queued = nil
	m.in.ta.SetValue(text)
}

// shell runs "!cmd" through the backend (and so through the permission
// checker) in the background.
func (m *Model) shell(command string) tea.Cmd {
	if command == "" {
		return nil
	}
	m.busy = "Running " + command
	b, ctx := m.b, m.ctx
	return tea.Batch(m.startTick(), func() tea.Msg {
		out, err := b.Shell(ctx, command)
		return shellMsg{command: command, output: out, err: err}
	})
}

func (m *Model) showHelp() {
	cs := m.commandList()
	// One column wide enough for every key and command with its
	// arguments ("/compact [instructions]"), up to a third of the screen.
	col := 0
	for _, k := range keyHelp {
		col = max(col, len(k[0]))
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.name
		if c.args != "" {
			names[i] += " " + c.args
		}
		if w := len(names[i]); w <= max(22, m.width/3) {
			col = max(col, w)
		}
	}
	var b strings.Builder
	b.WriteString("Keys\n")
	for _, k := range keyHelp {
		fmt.Fprintf(&b, "  %-*s %s\n", col, k[0], k[1])
	}
	b.WriteString("\nCommands\n")
	for i, c := range cs {
		fmt.Fprintf(&b, "  %-*s %s\n", col, names[i], c.help)
	}
	m.tr.add(&entry{kind: entryInfo, text: strings.TrimRight(b.String(), "\n")})
	m.tr.toBottom()
}
