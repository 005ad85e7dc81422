package live

import (
	"context"
	"path/filepath"
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
