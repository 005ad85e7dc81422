package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nova-dev/nova/permission"
)

// AgentFile is a custom subagent type read from an agent file
// (.claude/agents/NAME.md in Claude Code's format): YAML frontmatter
// with name, description, tools, disallowedTools, model, permissionMode
// and maxTurns, and the body as the subagent's system prompt.
type AgentFile struct {
	Name        string
	Description string
	// Tools are the tools the agent may use; nil means all of them.
	Tools []string
	// DisallowedTools are taken out of Tools.
	DisallowedTools []string
	// Model is the frontmatter's model ("sonnet", "inherit", a model as
	// --model takes it); "" inherits.
	Model string
	// PermissionMode is the mode the agent asks for; a subagent can only
	// narrow its parent's (see the agent package).
	PermissionMode string
	// MaxTurns bounds the agent's model turns; 0 means the default.
	MaxTurns int
	// Prompt is the body: the agent's system prompt.
	Prompt string
	// Path is the file, Scope where it was found.
	Path  string
	Scope Scope
}

// AgentSet is the agent files found at one moment.
type AgentSet struct {
	// Agents are by name; a name found in two directories is the first
	// directory's (see AgentRoots).
	Agents []AgentFile
	// Warnings are the files left out or read in part, and why.
	Warnings []string
	// Ignored are the project directories not read because the
	// workspace is not trusted, with the agents they hold.
	Ignored []Ignored
}

// AgentRoots are the directories agent files are read from, first the
// one that wins a name: the project's (nova's, then Claude Code's) before
// the user's, as Claude Code lets a project's agent win over a personal
// one of the same name.
func (d Dirs) AgentRoots() []Root {
	out := d.projectRoots(KindAgent)
	if d.NovaHome != "" {
		out = append(out, Root{filepath.Join(d.NovaHome, "agents"), KindAgent, ScopeUser})
	}
	if d.ClaudeHome != "" {
		out = append(out, Root{filepath.Join(d.ClaudeHome, "agents"), KindAgent, ScopeUser})
	}
	return out
}

// LoadAgents reads every agent directory of d. Files are read again for
// each call, so an agent file added counts from the next call on. A
// project's agent files are read only in a trusted workspace: they are the
// repository author's words, which the model would follow as
// instructions.
func LoadAgents(d Dirs) *AgentSet {
	s := &AgentSet{}
	names := map[string]bool{}
	keep := func(a AgentFile) {
		if !names[a.Name] {
			names[a.Name] = true
			s.Agents = append(s.Agents, a)
		}
	}
	s.Warnings, s.Ignored = visitRoots(d.AgentRoots(), d.Trusted, scanAgents, func(a AgentFile) string { return a.Name }, keep)
	s.Warnings = append(s.Warnings, d.scanPluginAgents(keep)...)
	sort.Slice(s.Agents, func(i, j int) bool { return s.Agents[i].Name < s.Agents[j].Name })
	return s
}

// scanAgents reads the .md files of one directory (not its
// subdirectories: NOVA_HOME/agents also holds the agents API's
// definitions, one directory each).
func scanAgents(r Root) ([]AgentFile, []string) {
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("%s: %v", r.Dir, err)}
	}
	var out []AgentFile
	var warns []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(r.Dir, e.Name())
		a, w, err := parseAgentFile(path, r.Scope)
		for _, m := range w {
			warns = append(warns, path+": "+m)
		}
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s: left out: %v", path, err))
			continue
		}
		out = append(out, a)
	}
	return out, warns
}

// parseAgentFile reads one agent file.
func parseAgentFile(path string, scope Scope) (AgentFile, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return AgentFile{}, nil, err
	}
	header, body, has := splitFrontmatter(string(b))
	if !has {
		return AgentFile{}, nil, errors.New("no frontmatter: an agent file starts with a --- header naming the agent and its description")
	}
	fm, warn := parseFrontmatter(header)
	var warns []string
	if warn != "" {
		warns = append(warns, warn)
	}
	a := AgentFile{
		Name:            fm.str("name"),
		Description:     fm.str("description"),
		Tools:           fm.list("tools", permission.SplitToolList),
		DisallowedTools: fm.list("disallowedTools", permission.SplitToolList),
		Model:           fm.str("model"),
		PermissionMode:  fm.str("permissionMode"),
		Prompt:          strings.TrimSpace(body),
		Path:            path,
		Scope:           scope,
	}
	if a.Name == "" {
		a.Name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	if strings.ContainsAny(a.Name, " \t/\\") {
		return AgentFile{}, warns, fmt.Errorf("name %q: an agent's name is one word (letters, digits, - and _)", a.Name)
	}
	if a.Description == "" {
		return AgentFile{}, warns, errors.New("no description: the model chooses an agent by its description")
	}
	if v := fm.str("maxTurns"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			warns = append(warns, fmt.Sprintf("maxTurns: %q is not a positive number; ignored", v))
		} else {
			a.MaxTurns = n
		}
	}
	if a.PermissionMode != "" {
		if _, ok := permission.ParseMode(a.PermissionMode); !ok {
			warns = append(warns, fmt.Sprintf("permissionMode: %q is not one of default, acceptEdits, plan, bypassPermissions; ignored", a.PermissionMode))
			a.PermissionMode = ""
		}
	}
	if _, all := fm.scalars["tools"]; all && len(a.Tools) == 0 {
		// "tools:" with nothing after it: Claude Code reads that as all.
		a.Tools = nil
	}
	return a, warns, nil
}
