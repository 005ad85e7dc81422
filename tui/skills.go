package tui

import (
	tea "charm.land/bubbletea/v2"
)

// skillCommands are the backend's skills and command files as slash
// commands, after the built-in ones (a built-in's name is never taken).
// Running one sends the line as the prompt: the run expands it, so its
// shell lines ask through the usual dialog.
func (m *Model) skillCommands(builtin []command) []command {
	sb, ok := m.b.(Skills)
	if !ok {
		return nil
	}
	taken := map[string]bool{"/exit": true}
	for _, c := range builtin {
		taken[c.name] = true
	}
	var out []command
	for _, sc := range sb.SkillCommands() {
		name := "/" + sc.Name
		if taken[name] {
			continue
		}
		taken[name] = true
		help := sc.Description
		if sc.Source != "" {
			help += " (" + sc.Source + ")"
		}
		out = append(out, command{name: name, args: sc.ArgumentHint, help: help, idleOnly: true,
			run: func(m *Model, arg string) tea.Cmd {
				line := name
				if arg != "" {
					line += " " + arg
				}
				m.hint = ""
				return m.startRun(line)
			}})
	}
	return out
}
