package main

import (
	"strings"

	"github.com/nova-dev/nova/tui"
)

// SkillCommands implements tui.Skills: the session's skills and command
// files a person may run as /name, read afresh.
func (b *interactiveBackend) SkillCommands() []tui.SkillCommand {
	rt := b.runtime()
	if rt.Skills == nil {
		return nil
	}
	var out []tui.SkillCommand
	for _, sk := range rt.Skills.Commands() {
		// A YAML description may span lines; /help gives each one line.
		desc := strings.Join(strings.Fields(sk.Description), " ")
		out = append(out, tui.SkillCommand{Name: sk.Name, Description: desc, ArgumentHint: sk.ArgumentHint, Source: sk.Source()})
	}
	return out
}
