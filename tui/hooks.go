package tui

import tea "charm.land/bubbletea/v2"

// hooksCommand is /hooks, offered when the backend can list its hooks.
func hooksCommand(b Backend) []command {
	if _, ok := b.(HookList); !ok {
		return nil
	}
	return []command{{name: "/hooks", help: "hooks configured for this session, and where each comes from", run: (*Model).cmdHooks}}
}

// cmdHooks shows the session's hooks; it is read-only, as Claude Code's
// /hooks menu is: hooks are changed in the settings files.
func (m *Model) cmdHooks(string) tea.Cmd {
	m.info(m.b.(HookList).HookReport(), nil)
	return nil
}
