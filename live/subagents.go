package live

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/skills"
	"github.com/nova-dev/nova/tools"
)

// newSubagents makes the session's Agent tool runner: its types are the
// built-in ones, the agent files (agents/*.md of NOVA_HOME, ~/.claude and,
// in a trusted workspace, the project) and the agents API's definitions,
// read again at each call.
func (rt *Runtime) newSubagents(file *config.File, getenv func(string) string, client llm.Client, maxParallel int, context func(context.Context) string) *agent.Subagents {
	s := &agent.Subagents{
		Types:       rt.subagentTypes,
		Model:       func(name string) (*tools.RunModel, error) { return rt.skillModel(file, getenv, client, name) },
		Context:     context,
		MaxParallel: maxParallel,
		Worktrees:   filepath.Join(rt.NovaHome, "worktrees"),
		Transcript: func(id string) (agent.SubagentRecorder, error) {
			return rt.Session.OpenSidechain(id)
		},
	}
	// Explore runs a fast model where one is configured, as Claude Code's
	// runs Haiku.
	if familyModel(config.Providers(file, getenv), rt.Selection, "haiku") != "" {
		s.FastModel = "haiku"
	}
	return s
}

// subagentTypes are the session's agent types: custom ones first (the
// Agent SDK's, then an agent file, then an agents API definition, of a
// built-in's name replaces it), then the built-in ones.
func (rt *Runtime) subagentTypes() []agent.SubagentType {
	var out []agent.SubagentType
	seen := map[string]bool{}
	add := func(t agent.SubagentType) {
		if !seen[t.Name] {
			seen[t.Name] = true
			out = append(out, t)
		}
	}
	for _, t := range rt.extraAgents {
		add(t)
	}
	set := skills.LoadAgents(rt.Skills.Dirs)
	for _, f := range set.Agents {
		add(agent.SubagentType{Name: f.Name, Description: f.Description, Tools: f.Tools, DisallowedTools: f.DisallowedTools,
			Model: f.Model, Mode: permission.Mode(f.PermissionMode), MaxTurns: f.MaxTurns, Prompt: f.Prompt, Source: f.Path})
	}
	// Others resolves no model, so the store needs no environment.
	if list, err := config.NewAgentStore(rt.NovaHome, nil).Others(); err == nil {
		general := agent.BuiltinTypes()[0]
		for _, a := range list {
			model := ""
			if a.Model != "" {
				model = a.Model
				if a.Provider != "" {
					model = a.Provider + ":" + a.Model
				}
			}
			desc := strings.TrimSpace(a.Description)
			if desc == "" {
				desc = a.Name
			}
			add(agent.SubagentType{Name: a.Key, Description: desc, Tools: a.Tools, Model: model, Prompt: general.Prompt,
				Source: "agents API (" + rt.NovaHome + "/agents/" + a.Key + ")"})
		}
	}
	for _, t := range agent.BuiltinTypes() {
		add(t)
	}
	return out
}

// contextWithAgents adds the list of agent types to the context message,
// as contextWithSkills adds the skills: in the messages, so the cached
// prefix stays the same as agent files come and go.
func (rt *Runtime) contextWithAgents(base func(context.Context) string) func(context.Context) string {
	return func(ctx context.Context) string {
		return base(ctx) + "\n\n" + rt.Subagents.Listing()
	}
}

// judge is what agent hooks run their subagent with, or nil when the
// session has no subagents (a model without tools).
func (rt *Runtime) judge() func(ctx context.Context, prompt, model string) (string, error) {
	if rt.Subagents == nil {
		return nil
	}
	return rt.Subagents.Judge
}

// AgentTypes are the subagent types the Agent tool can start now, in the
// order the model is told them (/agents).
func (rt *Runtime) AgentTypes() []agent.SubagentType { return rt.subagentTypes() }

// AgentTools are the tools type t gets in this session, as the model is
// told them.
func (rt *Runtime) AgentTools(t agent.SubagentType) []string { return rt.Subagents.Tools(t) }

// agentFileName reports whether name may name an agent file: Claude Code's
// lowercase letters, digits and hyphens, 1 to 64, not starting with a
// hyphen. (Not a regexp: its counted repeat cost 0.3 ms at every start.)
func agentFileName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] == '-' {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// agentTemplate is a new agent file: Claude Code's format, to be filled in.
const agentTemplate = `---
name: %s
description: What this agent does, and when to use it (the model reads this to choose it).
tools: Read, Grep, Glob
---
You are %s, a subagent. Describe its task, how to go about it, and what its final message must report.
`

// CreateAgentFile writes a new agent file called name: in the project's
// .claude/agents, where Claude Code reads it too, or in the user's
// ~/.claude/agents (CLAUDE_CONFIG_DIR/agents) when user is set. A project's agent files load only in
// a trusted folder, so there it is refused in one not trusted.
func (rt *Runtime) CreateAgentFile(name string, user bool) (string, error) {
	if !agentFileName(name) {
		return "", fmt.Errorf("%q is not an agent name: use lowercase letters, digits and hyphens", name)
	}
	d := rt.Skills.Dirs
	dir := filepath.Join(d.Workdir, ".claude", "agents")
	switch {
	case user && d.ClaudeHome == "":
		return "", fmt.Errorf("no home directory to keep a user agent in")
	case user:
		dir = filepath.Join(d.ClaudeHome, "agents")
	case !d.Trusted:
		return "", fmt.Errorf("this folder is not trusted, so its agent files are not loaded: create it for yourself (/agents new %s user), or trust the folder (nova trust)", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, name+".md")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%s exists already", path)
		}
		return "", fmt.Errorf("create %s: %w", path, err)
	}
	_, werr := fmt.Fprintf(f, agentTemplate, name, name)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("write %s: %w", path, werr)
	}
	return path, nil
}

// asAgent is o with the main session run as the agent type o.Agent
// (Claude Code's --agent): the type's prompt is the system prompt, its
// model and mode are the session's unless the command line named them,
// its tools are the built-in tools kept, its disallowed tools are denied.
// The type is looked up as the Agent tool would (the Agent SDK's and
// --agents' types, the agent files, the plugins' agents, the agents API,
// the built-in ones): the plugins are loaded here once more for it, as
// the session's own load comes after the model is chosen.
func (o Options) asAgent() (Options, error) {
	ts, err := ResolveTrust(o.NovaHome, o.projectDir(), o.Trust)
	if err != nil {
		return o, configErr("--agent: %v", err)
	}
	st, _, err := config.LoadSettingsLayers(o.NovaHome, o.projectDir(), o.Home, ts.Trusted, o.layers())
	if err != nil {
		return o, configErr("--agent: %v", err)
	}
	pl, err := loadPlugins(o, st)
	if err != nil {
		return o, err
	}
	rt := &Runtime{NovaHome: o.NovaHome, extraAgents: o.ExtraAgents,
		Skills: &skills.Manager{Dirs: skills.Dirs{NovaHome: o.NovaHome, ClaudeHome: o.claudeHome(), Workdir: o.Workdir, Trusted: ts.Trusted, Plugins: pluginRoots(pl)}}}
	types := rt.subagentTypes()
	i := slices.IndexFunc(types, func(t agent.SubagentType) bool { return t.Name == o.Agent })
	if i < 0 {
		names := make([]string, len(types))
		for j, t := range types {
			names[j] = t.Name
		}
		return o, configErr("--agent %s: no agent of that name; there are %s", o.Agent, strings.Join(names, ", "))
	}
	t := types[i]
	if o.SystemPrompt == "" {
		o.SystemPrompt = t.Prompt
	}
	if o.Model == "" && t.Model != "" && t.Model != "inherit" {
		o.Model = t.Model
	}
	// An agent file may narrow the mode, never skip the checks: that
	// takes the user's own --permission-mode.
	if o.PermissionMode == "" && t.Mode != "" && t.Mode != permission.ModeBypass {
		o.PermissionMode = string(t.Mode)
	}
	o.mainTools = t.Tools
	o.DisallowedTools = append(slices.Clone(o.DisallowedTools), t.DisallowedTools...)
	return o, nil
}
