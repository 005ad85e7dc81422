// Package plugins is Claude Code's plugin system in nova: a plugin is a
// directory with .claude-plugin/plugin.json and skills/, commands/,
// agents/, hooks/hooks.json and .mcp.json; a marketplace is a directory or
// git repository whose .claude-plugin/marketplace.json lists plugins. The
// package finds the plugins a session loads (--plugin-dir, nova's installs,
// Claude Code's), installs and enables them, and hands their parts to the
// rooms that load everything else: skill, command and agent directories
// to skills, hook sources to hooks, MCP servers to config. It runs none of
// them itself. See docs/plugins.md.
package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ManifestPath is where a plugin's manifest is, under its root.
const ManifestPath = ".claude-plugin/plugin.json"

// Manifest is plugin.json. Only name is required (and even it defaults to
// the directory's name); the paths are relative to the plugin's root and
// start with ./, as Claude Code wants them.
type Manifest struct {
	Name        string          `json:"name"`
	Version     string          `json:"version,omitempty"`
	Description string          `json:"description,omitempty"`
	Author      json.RawMessage `json:"author,omitempty"`
	Homepage    string          `json:"homepage,omitempty"`
	Repository  json.RawMessage `json:"repository,omitempty"`
	License     string          `json:"license,omitempty"`
	Keywords    []string        `json:"keywords,omitempty"`
	// Commands and Agents replace the default commands/ and agents/ when
	// set; Skills adds to skills/ (what Claude Code 2.1 does). Each is a
	// path or a list of paths.
	Commands json.RawMessage `json:"commands,omitempty"`
	Agents   json.RawMessage `json:"agents,omitempty"`
	Skills   json.RawMessage `json:"skills,omitempty"`
	// Hooks and MCPServers add to hooks/hooks.json and .mcp.json: a path,
	// a list of paths, or the object itself.
	Hooks      json.RawMessage `json:"hooks,omitempty"`
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
}

// Origin says how a session came to load a plugin.
type Origin string

// The origins.
const (
	// OriginFlag is --plugin-dir: for this run, from a directory.
	OriginFlag Origin = "--plugin-dir"
	// OriginNova is installed by nova (NOVA_HOME/plugins).
	OriginNova Origin = "nova"
	// OriginClaude is installed by Claude Code (~/.claude/plugins).
	OriginClaude Origin = "claude"
)

// InlineMarketplace is the marketplace part of a --plugin-dir plugin's
// id, as Claude Code names it ("guard-kit@inline").
const InlineMarketplace = "inline"

// Plugin is one plugin as loaded: where it is, and the parts it supplies.
type Plugin struct {
	// Name is the manifest's (or the directory's) name: the prefix of its
	// skills, commands and agents ("guard-kit:greet").
	Name string
	// ID is name@marketplace ("guard-kit@inline" for --plugin-dir).
	ID          string
	Marketplace string
	// Root is the plugin's directory, symlinks resolved: its
	// ${CLAUDE_PLUGIN_ROOT}.
	Root        string
	Version     string
	Description string
	Origin      Origin
	// EnabledBy is the settings file that turned it on ("" for --plugin-dir).
	EnabledBy string
	// SkillDirs and the others are what it supplies, absolute paths.
	// A command or agent entry may be a single .md file.
	SkillDirs, CommandPaths, AgentPaths []string
	Hooks                               []HookFile
	MCP                                 []MCPFile
	// DataDir is its ${CLAUDE_PLUGIN_DATA}: a directory of its own that
	// survives updates.
	DataDir string
	// Warnings are the parts that could not be read, and why; the rest
	// loads.
	Warnings []string
}

// HookFile is one hooks object of a plugin: the events map, as in
// settings.json.
type HookFile struct {
	File  string
	Hooks json.RawMessage
}

// MCPFile is one set of a plugin's MCP servers (name -> entry, as in
// .mcp.json).
type MCPFile struct {
	File    string
	Servers map[string]json.RawMessage
}

// Vars are the values a plugin's parts may name: ${CLAUDE_PLUGIN_ROOT}
// and ${CLAUDE_PLUGIN_DATA}, in the environment of its hooks and MCP
// servers and substituted in their commands, arguments and bodies.
func (p *Plugin) Vars() map[string]string {
	v := map[string]string{"CLAUDE_PLUGIN_ROOT": p.Root}
	if p.DataDir != "" {
		v["CLAUDE_PLUGIN_DATA"] = p.DataDir
	}
	return v
}

// nameRE is a plugin or marketplace name: it prefixes commands
// (/name:cmd) and is a directory name.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkName says why name cannot name a plugin or marketplace, or nil.
func checkName(what, name string) error {
	if !nameRE.MatchString(name) || len(name) > 64 {
		return fmt.Errorf("%s name %q: use letters, digits, '.', '_' and '-' (at most 64), starting with a letter or digit", what, name)
	}
	return nil
}

// ReadManifest reads dir's plugin.json; a plugin without one is its
// directory's name and its default directories.
func ReadManifest(dir string) (Manifest, bool, error) {
	path := filepath.Join(dir, filepath.FromSlash(ManifestPath))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{Name: filepath.Base(dir)}, false, nil
	}
	if err != nil {
		return Manifest{}, false, fmt.Errorf("read %s: %w", path, err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return Manifest{}, true, fmt.Errorf("%s: %v (fix the file: it must be a JSON object with a \"name\")", path, err)
	}
	if strings.TrimSpace(m.Name) == "" {
		return Manifest{}, true, fmt.Errorf("%s: no \"name\"; a plugin's name prefixes its commands (/name:command)", path)
	}
	return m, true, nil
}

// Load reads the plugin in dir, of marketplace ("" for none: then its id
// is name@inline). A manifest nova cannot read is an error; a part that
// cannot be read is a warning, and the rest loads, as in Claude Code.
func Load(dir, marketplace string, origin Origin) (*Plugin, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if st, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("plugin %s: %w", dir, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("plugin %s: not a directory (a plugin is a directory holding %s)", dir, ManifestPath)
	}
	m, _, err := ReadManifest(root)
	if err != nil {
		return nil, err
	}
	if err := checkName("plugin", m.Name); err != nil {
		return nil, fmt.Errorf("%s: %w", root, err)
	}
	if marketplace == "" {
		marketplace = InlineMarketplace
	}
	p := &Plugin{Name: m.Name, ID: m.Name + "@" + marketplace, Marketplace: marketplace, Root: root,
		Version: m.Version, Description: m.Description, Origin: origin}
	p.SkillDirs = append(p.existing("skills"), p.paths("skills", m.Skills)...)
	p.CommandPaths = p.paths("commands", m.Commands)
	if m.Commands == nil {
		p.CommandPaths = p.existing("commands")
	}
	p.AgentPaths = p.paths("agents", m.Agents)
	if m.Agents == nil {
		p.AgentPaths = p.existing("agents")
	}
	p.loadHooks(m.Hooks)
	p.loadMCP(m.MCPServers)
	return p, nil
}

// existing is the default directory rel of the plugin, if it is there.
func (p *Plugin) existing(rel string) []string {
	dir := filepath.Join(p.Root, rel)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return []string{dir}
	}
	return nil
}

// paths reads a manifest's path or list of paths for key; each must name
// something inside the plugin.
func (p *Plugin) paths(key string, raw json.RawMessage) []string {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var list []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		list = []string{one}
	} else if err := json.Unmarshal(raw, &list); err != nil {
		p.warn("%s: %q must be a path or a list of paths", ManifestPath, key)
		return nil
	}
	var out []string
	for _, rel := range list {
		abs, err := p.inside(rel)
		if err != nil {
			p.warn("%s: %s: %v", ManifestPath, key, err)
			continue
		}
		if _, err := os.Stat(abs); err != nil {
			p.warn("%s: %s: %s is not there", ManifestPath, key, rel)
			continue
		}
		out = append(out, abs)
	}
	return out
}

// inside resolves a manifest path, which must stay in the plugin (links
// included): a plugin's files are what was installed, nothing else.
func (p *Plugin) inside(rel string) (string, error) {
	if filepath.IsAbs(rel) || !strings.HasPrefix(rel, "./") {
		return "", fmt.Errorf("%q: paths are relative to the plugin and start with ./", rel)
	}
	abs := filepath.Join(p.Root, filepath.FromSlash(rel))
	real := abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		real = r
	}
	for _, path := range []string{abs, real} {
		if r, err := filepath.Rel(p.Root, path); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%q leads out of the plugin", rel)
		}
	}
	return abs, nil
}

// loadHooks reads hooks/hooks.json and what the manifest adds: a path, a
// list of paths, or the events object itself.
func (p *Plugin) loadHooks(raw json.RawMessage) {
	if def := filepath.Join(p.Root, "hooks", "hooks.json"); fileExists(def) {
		p.hookFile(def)
	}
	if isObject(raw) {
		p.Hooks = append(p.Hooks, HookFile{File: filepath.Join(p.Root, filepath.FromSlash(ManifestPath)), Hooks: raw})
		return
	}
	for _, f := range p.paths("hooks", raw) {
		if f != filepath.Join(p.Root, "hooks", "hooks.json") {
			p.hookFile(f)
		}
	}
}

// hookFile reads one hooks file: {"hooks": {events}} (with an optional
// "description"), or the events object alone.
func (p *Plugin) hookFile(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		p.warn("%v", err)
		return
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		// A guard that does not parse must not be dropped quietly: the
		// hooks loader refuses the session with this file's name.
		p.Hooks = append(p.Hooks, HookFile{File: path, Hooks: data})
		return
	}
	if h, ok := doc["hooks"]; ok {
		p.Hooks = append(p.Hooks, HookFile{File: path, Hooks: h})
		return
	}
	delete(doc, "description")
	if len(doc) > 0 {
		p.Hooks = append(p.Hooks, HookFile{File: path, Hooks: data})
	}
}

// loadMCP reads .mcp.json and what the manifest adds.
func (p *Plugin) loadMCP(raw json.RawMessage) {
	def := filepath.Join(p.Root, ".mcp.json")
	if fileExists(def) {
		p.mcpFile(def)
	}
	if isObject(raw) {
		p.addMCP(filepath.Join(p.Root, filepath.FromSlash(ManifestPath)), raw)
		return
	}
	for _, f := range p.paths("mcpServers", raw) {
		if f != def {
			p.mcpFile(f)
		}
	}
}

func (p *Plugin) mcpFile(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		p.warn("%v", err)
		return
	}
	p.addMCP(path, data)
}

// addMCP keeps a servers document: {"mcpServers": {...}} or the servers
// map alone.
func (p *Plugin) addMCP(file string, data []byte) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		p.warn("%s: %v; its MCP servers are not started", file, err)
		return
	}
	if s, ok := doc["mcpServers"]; ok {
		doc = nil
		if err := json.Unmarshal(s, &doc); err != nil {
			p.warn("%s: mcpServers is not an object; its MCP servers are not started", file)
			return
		}
	}
	if len(doc) > 0 {
		p.MCP = append(p.MCP, MCPFile{File: file, Servers: doc})
	}
}

func (p *Plugin) warn(format string, args ...any) {
	p.Warnings = append(p.Warnings, fmt.Sprintf("plugin %s: ", p.ID)+fmt.Sprintf(format, args...))
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}
