package skills

import (
	"os"
	"path/filepath"
	"strings"
)

// ScopePlugin skills come with a plugin the user installed, or one a
// trusted project's settings turned on (package plugins decides which
// load; what it hands over is loaded).
const ScopePlugin Scope = "plugin"

// PluginRoot is one path a plugin supplies skills, commands or agents
// from: a directory of them, or (as a plugin's manifest may name) one
// skill directory or one .md file.
type PluginRoot struct {
	Path string
	Kind Kind
	// Plugin is the plugin's name: what it supplies is called
	// "<Plugin>:<name>" ("guard-kit:greet"), as in Claude Code.
	Plugin string
	// Vars are ${NAME} values its bodies may use, and the environment of
	// its skills' hooks: ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA}.
	Vars map[string]string
}

// scanPlugins reads the plugins' skill and command paths into keep, and
// returns what it could not read.
func (d Dirs) scanPlugins(keep func(*Skill)) []string {
	var warns []string
	for _, pr := range d.Plugins {
		if pr.Kind == KindAgent {
			continue
		}
		r := Root{Dir: pr.Path, Kind: pr.Kind, Scope: ScopePlugin}
		var found []*Skill
		var w []string
		switch {
		case pr.Kind == KindSkill && isFile(filepath.Join(pr.Path, "SKILL.md")):
			// The path is one skill, not a directory of them.
			sk, ws, err := parseFile(filepath.Join(pr.Path, "SKILL.md"), filepath.Base(pr.Path), KindSkill, ScopePlugin)
			w = prefixed(filepath.Join(pr.Path, "SKILL.md"), ws, err)
			if err == nil {
				found = []*Skill{sk}
			}
		case pr.Kind == KindCommand && isFile(pr.Path):
			sk, ws, err := parseFile(pr.Path, strings.TrimSuffix(filepath.Base(pr.Path), ".md"), KindCommand, ScopePlugin)
			w = prefixed(pr.Path, ws, err)
			if err == nil {
				found = []*Skill{sk}
			}
		default:
			found, w = scan(r)
		}
		warns = append(warns, w...)
		for _, sk := range found {
			// A command's subdirectory is part of its name
			// (commands/sub/deep.md is guard-kit:sub:deep).
			name := sk.Name
			if sk.Namespace != "" {
				name = strings.ReplaceAll(sk.Namespace, "/", ":") + ":" + name
			}
			sk.Name, sk.Namespace, sk.Plugin, sk.Vars = pr.Plugin+":"+name, "", pr.Plugin, pr.Vars
			keep(sk)
		}
	}
	return warns
}

// scanPluginAgents reads the plugins' agent paths into keep.
func (d Dirs) scanPluginAgents(keep func(AgentFile)) []string {
	var warns []string
	for _, pr := range d.Plugins {
		if pr.Kind != KindAgent {
			continue
		}
		var found []AgentFile
		if isFile(pr.Path) {
			a, ws, err := parseAgentFile(pr.Path, ScopePlugin)
			warns = append(warns, prefixed(pr.Path, ws, err)...)
			if err == nil {
				found = []AgentFile{a}
			}
		} else {
			var w []string
			found, w = scanAgents(Root{Dir: pr.Path, Kind: KindAgent, Scope: ScopePlugin})
			warns = append(warns, w...)
		}
		for _, a := range found {
			a.Name = pr.Plugin + ":" + a.Name
			keep(a)
		}
	}
	return warns
}

// prefixed are a file's warnings as scan words them.
func prefixed(path string, warns []string, err error) []string {
	var out []string
	for _, w := range warns {
		out = append(out, path+": "+w)
	}
	if err != nil {
		out = append(out, path+": left out: "+err.Error())
	}
	return out
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
