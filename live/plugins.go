package live

import (
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/plugins"
	"github.com/nova-dev/nova/skills"
)

// PluginManager is the plugins of o's person and workspace, weighed by
// the settings st loaded (a project's plugin keys only when trusted).
func PluginManager(o Options, st *config.Settings) *plugins.Manager {
	m := &plugins.Manager{NovaHome: o.NovaHome, Home: o.Home, ClaudeHome: o.claudeHome(), Workdir: o.projectDir()}
	if st != nil {
		m.Sets = st.PluginSets
	}
	return m
}

// loadPlugins finds the session's plugins: --plugin-dir's, and those
// the settings turn on. A --plugin-dir that does not load is the person's
// to fix (a ConfigError).
func loadPlugins(o Options, st *config.Settings) (*plugins.Loaded, error) {
	pl, err := PluginManager(o, st).Load(o.PluginDirs)
	if err != nil {
		return nil, configErr("%v", err)
	}
	return pl, nil
}

// pluginRoots are the skill, command and agent paths the plugins supply,
// for the skills loader.
func pluginRoots(pl *plugins.Loaded) []skills.PluginRoot {
	if pl == nil {
		return nil
	}
	var out []skills.PluginRoot
	for _, p := range pl.Plugins {
		vars := p.Vars()
		for _, kp := range []struct {
			kind  skills.Kind
			paths []string
		}{{skills.KindSkill, p.SkillDirs}, {skills.KindCommand, p.CommandPaths}, {skills.KindAgent, p.AgentPaths}} {
			for _, path := range kp.paths {
				out = append(out, skills.PluginRoot{Path: path, Kind: kp.kind, Plugin: p.Name, Vars: vars})
			}
		}
	}
	return out
}

// pluginMCP are the MCP servers the plugins configure, for config.LoadMCP.
func pluginMCP(pl *plugins.Loaded) []config.MCPPluginServers {
	if pl == nil {
		return nil
	}
	var out []config.MCPPluginServers
	for _, p := range pl.Plugins {
		for _, f := range p.MCP {
			out = append(out, config.MCPPluginServers{Plugin: p.Name, File: f.File, Servers: f.Servers, Vars: p.Vars()})
		}
	}
	return out
}

// SessionHooks reads the hooks a session runs: the settings' (HookConfig)
// and then its plugins', each with CLAUDE_PLUGIN_ROOT in its environment.
// A plugin's hooks file nova cannot read refuses the session, as a
// settings file's does: no guard runs half configured.
func SessionHooks(tr *Setup) (*hooks.Config, error) {
	srcs := make([]hooks.Source, 0, len(tr.Settings.HookSets))
	for _, hs := range tr.Settings.HookSets {
		srcs = append(srcs, hooks.Source{File: hs.File, Hooks: hs.Hooks})
	}
	if tr.Plugins != nil {
		for _, p := range tr.Plugins.Plugins {
			for _, h := range p.Hooks {
				srcs = append(srcs, hooks.Source{File: h.File, Hooks: h.Hooks, Env: p.Vars()})
			}
		}
	}
	cfg, err := hooks.Parse(srcs)
	if err != nil {
		return nil, configErr("%v", err)
	}
	return cfg, nil
}

// PluginSupplies says, for people (nova doctor, nova plugin validate),
// what p supplies, read by the loaders a session uses.
func PluginSupplies(p *plugins.Plugin) string {
	one := &plugins.Loaded{Plugins: []*plugins.Plugin{p}}
	d := skills.Dirs{Plugins: pluginRoots(one)}
	var sks, cmds, agents []string
	for _, sk := range skills.Load(d).All() {
		if sk.Kind == skills.KindSkill {
			sks = append(sks, sk.Name)
		} else {
			cmds = append(cmds, "/"+sk.Name)
		}
	}
	for _, a := range skills.LoadAgents(d).Agents {
		agents = append(agents, a.Name)
	}
	nHooks := 0
	if cfg, err := SessionHooks(&Setup{Settings: &config.Settings{}, Plugins: one}); err == nil {
		nHooks = cfg.Len()
	}
	servers := 0
	for _, f := range p.MCP {
		servers += len(f.Servers)
	}
	return p.Supplies(sks, cmds, agents, nHooks, servers)
}
