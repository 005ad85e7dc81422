package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Plugins is an optional Backend capability behind /plugin: nova
// plugin's subcommands (marketplace add, install, enable, list, …) run
// from the terminal UI, with the session reloaded in place when one
// changed which plugins load, as Claude Code's /plugin does.
type Plugins interface {
	// Plugin runs `nova plugin` with args and returns what it printed;
	// changed says a plugin was installed, removed, updated or turned on
	// or off, so the session should be reloaded to have it.
	Plugin(ctx context.Context, args []string) (out string, changed bool, err error)
	// ReloadSession builds the current session again in place, its
	// history kept, so plugins, skills and settings changed since load.
	ReloadSession() error
}

// pluginHelp is what /plugin with no arguments adds after the lists.
const pluginHelp = "/plugin marketplace add <git URL | owner/repo | directory> · /plugin install <name@marketplace> · " +
	"/plugin enable|disable|uninstall|update <name@marketplace> · /plugin marketplace list (what each offers) · /plugin marketplace update|remove (docs/plugins.md)"

// pluginCommand is /plugin, offered when the backend manages plugins.
func pluginCommand(b Backend) []command {
	if _, ok := b.(Plugins); !ok {
		return nil
	}
	return []command{{name: "/plugin", args: "[install|uninstall|enable|disable|update|list|marketplace …]",
		help: "plugins and marketplaces, as nova plugin; a change loads into this session", idleOnly: true, run: (*Model).cmdPlugin}}
}

// cmdPlugin runs a nova plugin subcommand in the background (an install
// clones a repository) and, when it changed what loads, reloads the
// session so its commands, agents, skills, hooks and servers are there
// now rather than from the next session.
func (m *Model) cmdPlugin(arg string) tea.Cmd {
	p, ctx := m.b.(Plugins), m.ctx
	args := strings.Fields(arg)
	return m.background("Working on plugins…", func() resultMsg {
		var out string
		var changed bool
		var err error
		if len(args) == 0 {
			// The installed plugins; a marketplace's whole offer (92
			// plugins in a popular one) is /plugin marketplace list's.
			out, _, err = p.Plugin(ctx, []string{"list"})
			out = strings.TrimRight(out, "\n") + "\n\n" + pluginHelp
		} else {
			out, changed, err = p.Plugin(ctx, args)
		}
		if err != nil {
			return resultMsg{err: err}
		}
		if changed {
			if err := p.ReloadSession(); err != nil {
				return resultMsg{err: fmt.Errorf("%s\nThe session could not be reloaded (the change is in effect from the next session): %w", strings.TrimRight(out, "\n"), err)}
			}
			out = strings.TrimRight(out, "\n") + "\nReloaded the session: the change is in effect now."
		}
		return resultMsg{text: out, info: true}
	})
}
