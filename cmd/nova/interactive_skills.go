package main

import (
	"strings"
	"sync"

	"github.com/nova-dev/nova/skills"
	"github.com/nova-dev/nova/tui"
)

// skillMenu keeps the last list of skill commands with the stamp of the
// files it was made from: the TUI asks for the list whenever completion
// opens, and the files are read again only when one was added, edited or
// removed since (a stat of each, not a read).
type skillMenu struct {
	mu    sync.Mutex
	mgr   *skills.Manager
	stamp uint64
	cmds  []tui.SkillCommand
}

// SkillCommands implements tui.Skills: the session's skills and command
// files a person may run as /name, as they are on disk now.
func (b *interactiveBackend) SkillCommands() []tui.SkillCommand {
	rt := b.runtime()
	if rt.Skills == nil {
		return nil
	}
	m := &b.menu
	m.mu.Lock()
	defer m.mu.Unlock()
	stamp := rt.Skills.Dirs.Stamp()
	if m.mgr == rt.Skills && m.stamp == stamp {
		return m.cmds
	}
	var out []tui.SkillCommand
	for _, sk := range rt.Skills.Commands() {
		// A YAML description may span lines; /help gives each one line.
		desc := strings.Join(strings.Fields(sk.Description), " ")
		out = append(out, tui.SkillCommand{Name: sk.Name, Description: desc, ArgumentHint: sk.ArgumentHint, Source: sk.Source()})
	}
	m.mgr, m.stamp, m.cmds = rt.Skills, stamp, out
	return out
}
