package main

import "github.com/nova-dev/nova/tui"

// SkillCommands implements tui.Skills (live.Controller.SkillCommands):
// the session's skills and command files a person may run as /name.
func (b *interactiveBackend) SkillCommands() []tui.SkillCommand {
	cmds := b.ctl.SkillCommands()
	out := make([]tui.SkillCommand, 0, len(cmds))
	for _, c := range cmds {
		out = append(out, tui.SkillCommand(c))
	}
	return out
}
