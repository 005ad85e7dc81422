package plugins

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// Loaded is what a session loads of plugins.
type Loaded struct {
	// Plugins are loaded: --plugin-dir's first, then the installed ones
	// the settings turn on, by id.
	Plugins []*Plugin
	// Warnings are plugins left out or read in part, and why.
	Warnings []string
	// Pending are plugins the settings turn on that are not installed:
	// installing them is the person's call (a project's marketplace is
	// its author's code).
	Pending []Pending
}

// Pending is a plugin turned on by a settings file and not installed.
type Pending struct {
	ID          string
	Marketplace Marketplace
	// File is the settings file that turns it on.
	File string
}

// Command is what installs p, for people.
func (p Pending) Command() string {
	if p.Marketplace.Root == "" && p.Marketplace.Source.Source != "" {
		return fmt.Sprintf("nova plugin marketplace add %s && nova plugin install %s", addArg(p.Marketplace.Source), p.ID)
	}
	return "nova plugin install " + p.ID
}

// Load finds the session's plugins: each directory of dirs (--plugin-dir,
// which must load), then every plugin the settings turn on that nova or
// Claude Code installed. A name two plugins share is the first's.
func (m *Manager) Load(dirs []string) (*Loaded, error) {
	out := &Loaded{}
	names := map[string]string{}
	keep := func(p *Plugin) {
		if other, ok := names[p.Name]; ok {
			out.Warnings = append(out.Warnings, fmt.Sprintf("plugin %s is not loaded: %s has its name %q, and a name prefixes its commands", p.ID, other, p.Name))
			return
		}
		names[p.Name] = p.ID
		p.DataDir = m.Nova().DataDir(p.ID)
		if err := os.MkdirAll(p.DataDir, 0o755); err != nil {
			p.warn("no data directory: %v", err)
			p.DataDir = ""
		}
		out.Warnings = append(out.Warnings, p.Warnings...)
		out.Plugins = append(out.Plugins, p)
	}
	for _, d := range dirs {
		p, err := Load(d, "", OriginFlag)
		if err != nil {
			return nil, fmt.Errorf("--plugin-dir %s: %w", d, err)
		}
		keep(p)
	}
	on, by := m.Enabled()
	installs, warns, err := m.Installs()
	if err != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("no installed plugin is loaded: %v", err))
		return out, nil
	}
	out.Warnings = append(out.Warnings, warns...)
	have := map[string]Installed{}
	for _, in := range installs {
		have[in.ID] = in
	}
	ids := make([]string, 0, len(on))
	for id, v := range on {
		if v {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		in, ok := have[id]
		if !ok {
			out.Pending = append(out.Pending, m.pending(id, by[id]))
			continue
		}
		_, market := SplitID(id)
		origin := OriginNova
		if in.Claude {
			origin = OriginClaude
		}
		p, err := Load(in.Install.InstallPath, market, origin)
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("plugin %s (%s) is not loaded: %v", id, by[id], err))
			continue
		}
		if p.ID != id {
			out.Warnings = append(out.Warnings, fmt.Sprintf("plugin %s is not loaded: its files (%s) call it %s", id, in.Install.InstallPath, p.Name))
			continue
		}
		p.EnabledBy = by[id]
		if p.Version == "" {
			p.Version = in.Install.Version
		}
		keep(p)
	}
	return out, nil
}

// pending is a plugin turned on in file and installed nowhere.
func (m *Manager) pending(id, file string) Pending {
	p := Pending{ID: id, File: file}
	if _, market := SplitID(id); market != "" {
		if mk, err := m.Find(market); err == nil {
			p.Marketplace = mk
		} else {
			p.Marketplace = Marketplace{Name: market}
		}
	}
	return p
}

// Notice says, for the start of a session that cannot ask (print mode),
// what a pending plugin needs.
func (p Pending) Notice() string {
	mk := p.Marketplace
	switch {
	case mk.Source.Source == "" && mk.Root == "":
		return fmt.Sprintf("plugin %s is not loaded: %s turns it on, and no marketplace %s is known; add the marketplace (nova plugin marketplace add <source>), then nova plugin install %s", p.ID, p.File, mk.Name, p.ID)
	case mk.Root == "" && mk.Project:
		return fmt.Sprintf("plugin %s is not loaded: %s turns it on from marketplace %s at %s, which this project names and nobody added; its plugins would run code here, so nova installs only when you say: %s", p.ID, p.File, mk.Name, mk.Source, p.Command())
	}
	return fmt.Sprintf("plugin %s is not loaded: %s turns it on and it is not installed: %s", p.ID, p.File, p.Command())
}

// Supplies says, for people, what p supplies: "2 skills, 1 command, …".
func (p *Plugin) Supplies(skills, commands, agents []string, hooks, servers int) string {
	var parts []string
	add := func(n int, one, many string, names []string) {
		if n == 0 {
			return
		}
		w := many
		if n == 1 {
			w = one
		}
		s := fmt.Sprintf("%d %s", n, w)
		if len(names) > 0 {
			s += " (" + strings.Join(names, ", ") + ")"
		}
		parts = append(parts, s)
	}
	add(len(skills), "skill", "skills", skills)
	add(len(commands), "command", "commands", commands)
	add(len(agents), "agent", "agents", agents)
	add(hooks, "hook", "hooks", nil)
	add(servers, "MCP server", "MCP servers", nil)
	if len(parts) == 0 {
		return "nothing nova loads"
	}
	return strings.Join(parts, ", ")
}
