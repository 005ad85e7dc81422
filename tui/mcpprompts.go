package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// mcpListTimeout bounds listing the servers' prompts or resources: a
// server that does not answer leaves its entries out of completion; it
// never holds the UI.
const mcpListTimeout = 5 * time.Second

// mcpList is one cached listing of the servers (prompts or resources).
// A listing is made for the set of connected servers, its key, and made
// again when that set changes (a server connected since) or /mcp drops it.
type mcpList[T any] struct {
	items []T
	// key is the connected servers of the latest listing, done or under way.
	key string
	// gen numbers listings, so a result that was dropped meanwhile is not
	// taken for the current one.
	gen     int
	valid   bool // items were listed for key, and not dropped since
	pending bool // a listing for key is under way
	// after runs once the listing under way ends (/help, a prompt typed
	// before completion ever listed them).
	after []func(*Model) tea.Cmd
}

// want reports whether a listing must start for key.
func (l *mcpList[T]) want(key string) bool {
	return !((l.valid || l.pending) && l.key == key)
}

// start begins a listing for key and returns its number.
func (l *mcpList[T]) start(key string) int {
	l.gen++
	l.key, l.valid, l.pending = key, false, true
	return l.gen
}

// drop forgets the listing, so the next ask lists again.
func (l *mcpList[T]) drop() {
	l.gen++
	l.valid, l.pending = false, false
}

// done takes the result of listing gen and returns what was waiting for
// it; a result dropped meanwhile is ignored.
func (l *mcpList[T]) done(gen int, items []T) ([]func(*Model) tea.Cmd, bool) {
	if gen != l.gen {
		return nil, false
	}
	l.items, l.valid, l.pending = items, true, false
	after := l.after
	l.after = nil
	return after, true
}

// mcpCache is what the TUI knows of the servers' prompts and resources.
type mcpCache struct {
	prompts   mcpList[MCPPrompt]
	resources mcpList[MCPResource]
}

// stale drops both listings (/mcp).
func (c *mcpCache) stale() {
	c.prompts.drop()
	c.resources.drop()
}

// Messages of MCP listings and commands.
type (
	mcpPromptsMsg struct {
		gen     int
		prompts []MCPPrompt
	}
	mcpResourcesMsg struct {
		gen       int
		resources []MCPResource
	}
	// mcpPromptMsg is a prompt rendered by its server.
	mcpPromptMsg struct {
		command, busy, text string
		err                 error
	}
)

// mcpKey names the connected servers: a listing made for other servers
// is out of date. Without MCPServers it is constant (listed once).
func (m *Model) mcpKey() string {
	b, ok := m.b.(MCPServers)
	if !ok {
		return ""
	}
	var names []string
	for _, st := range b.MCPStatus() {
		if st.State == MCPConnected {
			names = append(names, st.Name)
		}
	}
	return strings.Join(names, "\x00")
}

// wantMCP starts the listings completion needs for what is typed: the
// prompts while a /command is typed, the resources while an @word is.
func (m *Model) wantMCP() tea.Cmd {
	v := m.in.ta.Value()
	var cmds []tea.Cmd
	if _, ok := m.b.(MCPPrompter); ok && strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") {
		if key := m.mcpKey(); m.mcp.prompts.want(key) {
			cmds = append(cmds, m.listMCPPrompts(key))
		}
	}
	if _, ok := m.b.(MCPResources); ok {
		if i := strings.LastIndexAny(v, " \n\t"); strings.HasPrefix(v[i+1:], "@") {
			if key := m.mcpKey(); m.mcp.resources.want(key) {
				cmds = append(cmds, m.listMCPResources(key))
			}
		}
	}
	return tea.Batch(cmds...)
}

// loadMCPPrompts lists the prompts again, then runs after (when set).
// Without the capability after runs at once.
func (m *Model) loadMCPPrompts(after func(*Model) tea.Cmd) tea.Cmd {
	if _, ok := m.b.(MCPPrompter); !ok {
		if after != nil {
			return after(m)
		}
		return nil
	}
	if after != nil {
		m.mcp.prompts.after = append(m.mcp.prompts.after, after)
	}
	key := m.mcpKey()
	if !m.mcp.prompts.want(key) && m.mcp.prompts.pending {
		return nil // the listing under way runs after
	}
	return m.listMCPPrompts(key)
}

// loadMCPResources lists the resources again.
func (m *Model) loadMCPResources() tea.Cmd {
	if _, ok := m.b.(MCPResources); !ok {
		return nil
	}
	return m.listMCPResources(m.mcpKey())
}

func (m *Model) listMCPPrompts(key string) tea.Cmd {
	p, ctx := m.b.(MCPPrompter), m.ctx
	gen := m.mcp.prompts.start(key)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, mcpListTimeout)
		defer cancel()
		return mcpPromptsMsg{gen: gen, prompts: p.MCPPrompts(ctx)}
	}
}

func (m *Model) listMCPResources(key string) tea.Cmd {
	r, ctx := m.b.(MCPResources), m.ctx
	gen := m.mcp.resources.start(key)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, mcpListTimeout)
		defer cancel()
		return mcpResourcesMsg{gen: gen, resources: r.MCPResources(ctx)}
	}
}

// mcpUpdate handles the MCP messages.
func (m *Model) mcpUpdate(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case mcpPromptsMsg:
		after, ok := m.mcp.prompts.done(msg.gen, msg.prompts)
		if !ok {
			return nil
		}
		m.loadCommands()
		cmds := []tea.Cmd{m.in.comp.refresh(m.in.ta.Value(), m.status.Cwd)}
		for _, f := range after {
			cmds = append(cmds, f(m))
		}
		return tea.Batch(cmds...)
	case mcpResourcesMsg:
		if _, ok := m.mcp.resources.done(msg.gen, msg.resources); !ok {
			return nil
		}
		m.in.comp.resources = msg.resources
		return m.in.comp.refresh(m.in.ta.Value(), m.status.Cwd)
	case mcpPromptMsg:
		if m.busy == msg.busy {
			m.busy = ""
		}
		switch {
		case msg.err != nil:
			m.tr.add(&entry{kind: entryError, text: msg.err.Error()})
		case strings.TrimSpace(msg.text) == "":
			m.tr.add(&entry{kind: entryError, text: "/" + msg.command + ": the server's prompt has no text to send"})
		default:
			return m.sendTyped(msg.text)
		}
		return m.sendQueued()
	case mcpMentionsMsg:
		return m.mentionsRead(msg)
	}
	return nil
}

// promptCommands are the servers' prompts as slash commands.
func (m *Model) promptCommands() []command {
	if _, ok := m.b.(MCPPrompter); !ok {
		return nil
	}
	var cs []command
	for _, p := range m.mcp.prompts.items {
		help := p.Description
		if help == "" {
			help = "prompt " + p.Name
		}
		cs = append(cs, command{name: "/" + p.Command, args: promptUsage(p), help: help + " (MCP " + p.Server + ")",
			run: func(m *Model, arg string) tea.Cmd { return m.runMCPPrompt(p, arg) }})
	}
	return cs
}

// promptUsage is a prompt's arguments as /help shows them: <required>
// [optional].
func promptUsage(p MCPPrompt) string {
	var args []string
	for _, a := range p.Arguments {
		if a.Required {
			args = append(args, "<"+a.Name+">")
		} else {
			args = append(args, "["+a.Name+"]")
		}
	}
	return strings.Join(args, " ")
}

// needsArgs reports whether name is a prompt command with a required
// argument: completing it waits for the arguments instead of sending.
func (m *Model) needsArgs(name string) bool {
	for _, p := range m.mcp.prompts.items {
		if "/"+p.Command == name {
			for _, a := range p.Arguments {
				if a.Required {
					return true
				}
			}
		}
	}
	return false
}

// runMCPPrompt renders a prompt with the words after its command and
// sends the text as the person's prompt. A missing required argument is
// said at once, without asking the server.
func (m *Model) runMCPPrompt(p MCPPrompt, arg string) tea.Cmd {
	args := strings.Fields(arg)
	for i, a := range p.Arguments {
		if a.Required && i >= len(args) {
			what := a.Name
			if a.Description != "" {
				what += " (" + a.Description + ")"
			}
			m.info("", fmt.Errorf("/%s needs %s · usage: /%s %s", p.Command, what, p.Command, promptUsage(p)))
			return nil
		}
	}
	pr, ctx := m.b.(MCPPrompter), m.ctx
	busy := "Getting /" + p.Command + " from " + p.Server + "…"
	m.busy = busy
	return tea.Batch(m.startTick(), func() tea.Msg {
		text, err := pr.MCPPrompt(ctx, p, args)
		return mcpPromptMsg{command: p.Command, busy: busy, text: text, err: err}
	})
}

// unknownMCPCommand handles a /mcp__ command the prompt list does not
// have: it may be a prompt of a server that connected since the list was
// made (or before any was), so the prompts are listed again first.
func (m *Model) unknownMCPCommand(line string) tea.Cmd {
	m.mcp.prompts.drop()
	return m.loadMCPPrompts(func(m *Model) tea.Cmd { return m.runCommand(line, false) })
}

// cmdHelp shows the help, with the servers' prompts listed first when the
// list is out of date.
func (m *Model) cmdHelp(string) tea.Cmd {
	if _, ok := m.b.(MCPPrompter); ok && m.mcp.prompts.want(m.mcpKey()) {
		return m.loadMCPPrompts(func(m *Model) tea.Cmd { m.showHelp(); return nil })
	}
	m.showHelp()
	return nil
}

// sendTyped sends text as if the person had typed it: now when nova is
// idle, queued otherwise.
func (m *Model) sendTyped(text string) tea.Cmd {
	if m.run != nil || m.busy != "" {
		m.queued = append(m.queued, text)
		return nil
	}
	m.hint = ""
	return m.startRun(text)
}
