package tui

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// command is a slash command. Only commands whose feature the backend
// has are offered (see commandList).
type command struct {
	name, args, help string
	// idleOnly commands change the session and wait for the run to end.
	idleOnly bool
	run      func(m *Model, arg string) tea.Cmd
}

// commandList is the commands this backend supports, in help order.
func (m *Model) commandList() []command {
	cs := []command{
		{name: "/help", help: "keys and commands", run: (*Model).cmdHelp},
		{name: "/clear", help: "start a new session", idleOnly: true, run: (*Model).cmdClear},
		{name: "/compact", args: "[instructions]", help: "summarise the conversation to free context", idleOnly: true, run: (*Model).cmdCompact},
		{name: "/resume", help: "resume an earlier session of this directory", idleOnly: true, run: (*Model).cmdResume},
		{name: "/context", help: "how full the context window is", run: (*Model).cmdContext},
		{name: "/cost", help: "tokens and cost of the session", run: (*Model).cmdCost},
	}
	if _, ok := m.b.(ModelSwitcher); ok {
		cs = append(cs, command{name: "/model", args: "[model]", help: "list configured models, or switch (sonnet, opus, …)", idleOnly: true, run: (*Model).cmdModel})
	}
	if _, ok := m.b.(RuleEditor); ok {
		// Idle only: removing a rule rebuilds the session's runtime.
		cs = append(cs, command{name: "/permissions", help: "view permission rules and remove them", idleOnly: true, run: (*Model).cmdPermissions})
	}
	if _, ok := m.b.(Doctor); ok {
		cs = append(cs, command{name: "/doctor", help: "providers, settings and sandbox, as nova doctor prints them", run: (*Model).cmdDoctor})
	}
	if _, ok := m.b.(MCPServers); ok {
		cs = append(cs, command{name: "/mcp", args: "[approve|reject <server>|all]", help: "MCP servers: their state and tools; approve a project's servers", run: (*Model).cmdMCP})
	}
	if _, ok := m.b.(Team); ok {
		cs = append(cs, command{name: "/team", help: "the teammates and the task board of the team you lead (--team)", run: (*Model).cmdTeam})
	}
	if _, ok := m.b.(Memory); ok {
		cs = append(cs, command{name: "/memory", help: "instruction files and memory in effect", run: (*Model).cmdMemory})
	}
	cs = append(cs, hooksCommand(m.b)...)
	cs = append(cs, agentsCommand(m.b)...)
	cs = append(cs, pluginCommand(m.b)...)
	cs = append(cs, m.remoteCommands()...)
	cs = append(cs, m.promptCommands()...)
	cs = append(cs, m.skillCommands(cs)...)
	return append(cs, command{name: "/exit", help: "quit nova", run: func(m *Model, _ string) tea.Cmd { m.interrupt(); return m.quit() }})
}

// commandNames are the commands' names, in help order.
func (m *Model) commandNames() []string {
	var names []string
	for _, c := range m.commandList() {
		names = append(names, c.name)
	}
	return names
}

// loadCommands gives completion the commands as they are now, each with
// its arguments and description. It runs when completion opens (a "/"
// typed at the start of the input), so a skill or command file created
// while nova runs is offered without a restart.
func (m *Model) loadCommands() {
	cs := m.commandList()
	c := &m.in.comp
	c.commands = make([]string, 0, len(cs))
	c.about = make(map[string]commandAbout, len(cs))
	for _, cmd := range cs {
		c.commands = append(c.commands, cmd.name)
		c.about[cmd.name] = commandAbout{args: cmd.args, help: cmd.help}
	}
}

// command runs a slash command line.
func (m *Model) command(line string) tea.Cmd { return m.runCommand(line, true) }

// runCommand runs a slash command line; relist says a /mcp__ command not
// in the prompt list may list the prompts again and retry.
func (m *Model) runCommand(line string, relist bool) tea.Cmd {
	name, arg, _ := strings.Cut(line, " ")
	for _, c := range m.commandList() {
		if c.name != name {
			continue
		}
		if c.idleOnly && (m.run != nil || m.busy != "") {
			m.hint = c.name + " waits until nova is idle · esc interrupts"
			return nil
		}
		return c.run(m, strings.TrimSpace(arg))
	}
	if _, ok := m.b.(MCPPrompter); ok && relist && strings.HasPrefix(name, "/mcp__") {
		return m.unknownMCPCommand(line)
	}
	m.tr.add(&entry{kind: entryError, text: fmt.Sprintf("unknown command %s · /help lists them", name)})
	return nil
}

// background runs fn off the UI goroutine and reports its result.
func (m *Model) background(busy string, fn func() resultMsg) tea.Cmd {
	m.busy = busy
	return tea.Batch(m.startTick(), func() tea.Msg { return fn() })
}

func (m *Model) cmdClear(string) tea.Cmd {
	if err := m.b.NewSession(); err != nil {
		m.tr.add(&entry{kind: entryError, text: err.Error()})
		return nil
	}
	m.tr.reset()
	m.todos = nil
	m.status = m.b.Status()
	m.tr.add(&entry{kind: entryNotice, text: "New session " + m.status.SessionID})
	return nil
}

func (m *Model) cmdCompact(instr string) tea.Cmd {
	b, ctx := m.b, m.ctx
	return m.background("Compacting…", func() resultMsg {
		err := b.Compact(ctx, instr)
		if err != nil {
			return resultMsg{err: err}
		}
		text := "Conversation compacted"
		if c := b.Status().Context; c != nil && c.Limit > 0 {
			text += fmt.Sprintf(" · context now %d%%", c.Percent)
		}
		return resultMsg{text: text}
	})
}

func (m *Model) cmdResume(string) tea.Cmd {
	list, err := m.b.Sessions()
	if err != nil {
		m.tr.add(&entry{kind: entryError, text: err.Error()})
		return nil
	}
	cur := m.status.SessionID
	var rows []resumeRow
	for _, s := range list {
		if s.ID == cur || s.MessageCount == 0 {
			continue
		}
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		label := fmt.Sprintf("%s · %s · %d messages · %s", title, ago(m.now().Sub(s.UpdatedAt)), s.MessageCount, s.ID)
		rows = append(rows, resumeRow{id: s.ID, label: label, search: strings.ToLower(label)})
	}
	if len(rows) == 0 {
		m.tr.add(&entry{kind: entryNotice, text: "No other sessions in this directory"})
		return nil
	}
	b := m.b
	var load func(string) tea.Cmd
	if pv, ok := b.(SessionPreviewer); ok {
		load = func(id string) tea.Cmd {
			return func() tea.Msg {
				prompt, answer, err := pv.SessionPreview(id)
				return resumePreviewMsg{id: id, p: resumePreview{prompt: prompt, answer: answer, err: err}}
			}
		}
	}
	d := newResumeDialog(rows, load, func(id string) tea.Cmd {
		return m.background("Resuming…", func() resultMsg {
			if err := b.Resume(id); err != nil {
				return resultMsg{err: err}
			}
			return resultMsg{text: "Resumed session " + id, reload: true}
		})
	})
	m.dialogs = append(m.dialogs, d)
	return d.want()
}

func (m *Model) cmdContext(string) tea.Cmd {
	st := m.b.Status()
	c := st.Context
	if c == nil {
		c = m.status.Context
	}
	if c == nil || c.Limit == 0 {
		m.tr.add(&entry{kind: entryInfo, text: "Context: nothing measured yet (after the first answer)"})
		return nil
	}
	m.tr.add(&entry{kind: entryInfo, text: fmt.Sprintf("Context: %s of %s tokens used (%d%%) · %d messages · compaction at 100%%, or /compact now",
		tokens(c.Used), tokens(c.Limit), c.Percent, c.MessageCount)})
	return nil
}

func (m *Model) cmdCost(string) tea.Cmd {
	st := m.b.Status()
	u := st.Usage
	text := fmt.Sprintf("Tokens this session: %s input · %s output · %s cache read · %s cache write",
		tokens(u.InputTokens), tokens(u.OutputTokens), tokens(u.CacheReadTokens), tokens(u.CacheWriteTokens))
	if c := st.CostUSD; c != nil {
		text += fmt.Sprintf("\nCost: $%.4f", *c)
	} else {
		text += "\nCost: unknown: no prices for " + st.Model + " (give them in config.json: https://github.com/nova-dev/nova/blob/main/docs/configuration.md#prices)"
	}
	m.tr.add(&entry{kind: entryInfo, text: text})
	return nil
}

func (m *Model) cmdModel(arg string) tea.Cmd {
	ms := m.b.(ModelSwitcher)
	if arg != "" {
		return m.switchModel(arg, false)
	}
	if cat, ok := m.b.(ModelCatalog); ok {
		entries := cat.ModelEntries()
		if len(entries) == 0 {
			m.tr.add(&entry{kind: entryError, text: "no models configured"})
			return nil
		}
		m.dialogs = append(m.dialogs, newModelDialog(entries, m.status.Model, func(e ModelEntry, def bool) tea.Cmd {
			return m.switchModel(e.ID, def)
		}))
		return nil
	}
	models := ms.Models()
	if len(models) == 0 {
		m.tr.add(&entry{kind: entryError, text: "no models configured"})
		return nil
	}
	p := newPicker("Model (current: "+m.status.Model+")", models, func(i int) tea.Cmd { return m.switchModel(models[i], false) })
	for i, id := range models {
		if id == m.status.Model {
			p.list.sel = i
		}
	}
	m.dialogs = append(m.dialogs, p)
	return nil
}

// switchModel makes id the session's model (unless it is already) and,
// with makeDefault, the default of new sessions, in the background.
func (m *Model) switchModel(id string, makeDefault bool) tea.Cmd {
	ms := m.b.(ModelSwitcher)
	cat, _ := m.b.(ModelCatalog)
	b, current := m.b, m.status.Model
	return m.background("Switching model…", func() resultMsg {
		if id != current {
			if err := ms.SetModel(id); err != nil {
				return resultMsg{err: err}
			}
		}
		// An alias says which model it resolved to.
		now := b.Status().Model
		text := "Model: " + now
		if makeDefault && cat != nil {
			where, err := cat.SetDefaultModel(now)
			if err != nil {
				return resultMsg{err: fmt.Errorf("%s, but it is not saved as the default: %w", text, err)}
			}
			text += " · the default of new sessions from now on (" + where + ")"
		}
		return resultMsg{text: text}
	})
}

func (m *Model) cmdDoctor(string) tea.Cmd {
	out, err := m.b.(Doctor).Doctor()
	m.info(out, err)
	return nil
}

func (m *Model) cmdTeam(string) tea.Cmd {
	out, err := m.b.(Team).Team()
	m.info(out, err)
	return nil
}

func (m *Model) cmdMemory(string) tea.Cmd {
	mem := m.b.(Memory)
	out, err := mem.Memory()
	editor := strings.Fields(m.opts.Editor)
	if len(editor) == 0 {
		m.info(out+"Set $EDITOR (or $VISUAL) and /memory opens these files in it.\n", err)
		return nil
	}
	files, ferr := mem.MemoryFiles()
	if ferr != nil {
		m.info(out, ferr)
		return nil
	}
	m.info(out+"Opening them in "+editor[0]+"; edits apply to new sessions and after /compact.\n", err)
	c := exec.Command(editor[0], append(editor[1:], files...)...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return editorDoneMsg{err: err} })
}

// editorDoneMsg says the editor /memory started has exited.
type editorDoneMsg struct{ err error }

func (m *Model) info(text string, err error) {
	if text = strings.TrimRight(text, "\n"); text != "" {
		m.tr.add(&entry{kind: entryInfo, text: text})
	}
	if err != nil {
		m.tr.add(&entry{kind: entryError, text: err.Error()})
	}
	if text == "" && err == nil {
		m.tr.add(&entry{kind: entryError, text: errors.New("nothing to show").Error()})
	}
	m.tr.toBottom()
}

// ago says how long ago a time was, coarsely.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
