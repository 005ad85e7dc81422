package main

import (
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
		out = append(out, tui.SkillCommand{Name: sk.Name, Description: sk.Description, ArgumentHint: sk.ArgumentHint, Source: sk.Source()})
	}
	return out
}
