package tui

import (
	"cmp"
	"fmt"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Agents is an optional Backend capability behind /agents: the subagent
// types of the session, and a new agent file.
type Agents interface {
	// AgentTypes lists the types the Agent tool can start now, in the
	// order the model is told them.
	AgentTypes() []AgentType
	// CreateAgent writes a new agent file called name (in the project's
	// .claude/agents, or the user's ~/.claude/agents when user is true)
	// and returns its path; an existing file is an error.
	CreateAgent(name string, user bool) (string, error)
}

// AgentType is one subagent type as /agents shows it.
type AgentType struct {
	Name, Description string
	Tools             []string // as the type gets them
	Model             string   // "" is the session's
	Mode              string   // permission mode it asks for; "" none
	Source            string   // "built-in", a file's path
	Prompt            string
}

// agentsCommand is /agents, offered when the backend lists agent types.
func agentsCommand(b Backend) []command {
	if _, ok := b.(Agents); !ok {
		return nil
	}
	return []command{{name: "/agents", args: "[name | new <name> [user]]", help: "subagent types: list, view one, or create an agent file", run: (*Model).cmdAgents}}
}

// cmdAgents lists the agent types, shows one, or creates an agent file
// and opens it in $EDITOR, as Claude Code's /agents menu does.
func (m *Model) cmdAgents(arg string) tea.Cmd {
	a := m.b.(Agents)
	fields := strings.Fields(arg)
	switch {
	case len(fields) == 0:
		var b strings.Builder
		b.WriteString("Agent types (the Agent tool's subagent_type):\n")
		for _, t := range a.AgentTypes() {
			fmt.Fprintf(&b, "  %s · %s\n    %s\n", t.Name, t.Source, oneLineText(t.Description))
		}
		b.WriteString("/agents <name> shows one; /agents new <name> [user] creates an agent file.")
		m.info(b.String(), nil)
	case fields[0] == "new" || fields[0] == "create":
		if len(fields) < 2 || len(fields) > 3 || (len(fields) == 3 && fields[2] != "user") {
			m.info("", fmt.Errorf("usage: /agents new <name> [user]"))
			return nil
		}
		path, err := a.CreateAgent(fields[1], len(fields) == 3)
		if err != nil {
			m.info("", fmt.Errorf("/agents new: %w", err))
			return nil
		}
		editor := strings.Fields(m.opts.Editor)
		if len(editor) == 0 {
			m.info("Created "+path+": edit its description, tools and prompt; the Agent tool offers it from the next turn on.\nSet $EDITOR (or $VISUAL) and /agents new opens the file in it.", nil)
			return nil
		}
		m.info("Created "+path+"; opening it in "+editor[0]+". The Agent tool offers it from the next turn on.", nil)
		c := exec.Command(editor[0], append(editor[1:], path)...)
		return tea.ExecProcess(c, func(err error) tea.Msg { return editorDoneMsg{err: err} })
	default:
		for _, t := range a.AgentTypes() {
			if t.Name != fields[0] {
				continue
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s · %s\n%s\n", t.Name, t.Source, strings.TrimSpace(t.Description))
			fmt.Fprintf(&b, "Tools: %s\n", strings.Join(t.Tools, ", "))
			fmt.Fprintf(&b, "Model: %s\n", cmp.Or(t.Model, "the session's"))
			if t.Mode != "" {
				fmt.Fprintf(&b, "Mode: %s\n", t.Mode)
			}
			fmt.Fprintf(&b, "Prompt:\n%s", strings.TrimSpace(t.Prompt))
			m.info(b.String(), nil)
			return nil
		}
		m.info("", fmt.Errorf("no agent type %q: /agents lists them", fields[0]))
	}
	return nil
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
