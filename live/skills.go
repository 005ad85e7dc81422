package live

import (
	"context"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/providers"
	"github.com/nova-dev/nova/skills"
	"github.com/nova-dev/nova/tools"
)

// newSkills makes the session's skills manager; its pipeline and tool
// environment are set once they exist. The project's skills and
// commands load only in a trusted workspace: what they would add is told
// like the project's other grants.
func (rt *Runtime) newSkills(o Options, trusted bool, plugins []skills.PluginRoot) {
	rt.Skills = &skills.Manager{
		Dirs:   skills.Dirs{NovaHome: o.NovaHome, ClaudeHome: o.claudeHome(), Workdir: o.Workdir, Trusted: trusted, Plugins: plugins},
		Notice: func(ctx context.Context, text string) { agent.Notice(ctx, text) },
	}
	// Agent files are still read from Dirs: only skills and commands go.
	rt.Skills.Disabled = o.DisableSlashCommands
	set := rt.Skills.Load()
	for _, w := range set.Warnings {
		rt.Warnings = append(rt.Warnings, "skills: "+w)
	}
	for _, ig := range set.Ignored {
		rt.Ignored = append(rt.Ignored, config.IgnoredSetting{File: ig.Dir, Setting: string(ig.Kind) + "s", Value: strings.Join(ig.Names, ", ")})
	}
}

// wireSkills gives the manager what it runs skills' calls with.
func (rt *Runtime) wireSkills(file *config.File, getenv func(string) string, client llm.Client) {
	rt.Skills.Pipeline, rt.Skills.Env = rt.Pipeline, rt.Env
	rt.Skills.Grant = rt.Checker.Grant
	rt.Skills.Hooks = rt.skillHooks
	rt.Skills.Model = func(name string) (*tools.RunModel, error) { return rt.skillModel(file, getenv, client, name) }
}

// contextWithSkills adds the list of skills to the context message: the
// model learns them in the messages, so the system prompt and the tool
// list (the cached prefix) stay the same as skills come and go.
func (rt *Runtime) contextWithSkills(src *agent.ContextSource) func(ctx context.Context) string {
	return func(ctx context.Context) string {
		msg := src.Message(ctx)
		if l := rt.Skills.Listing(); l != "" {
			msg += "\n\n" + l
		}
		return msg
	}
}

// skillModel resolves a skill's model field: "provider:model" or a model
// name as --model takes them, or Claude Code's haiku, sonnet and opus,
// which name the configured model of that family (or, on an Anthropic
// session, Anthropic's latest). The session's client serves its own
// provider's models; another provider gets a client of its own.
func (rt *Runtime) skillModel(file *config.File, getenv func(string) string, client llm.Client, name string) (*tools.RunModel, error) {
	ps := config.Providers(file, getenv)
	choice := name
	switch strings.ToLower(name) {
	case "haiku", "sonnet", "opus":
		choice = familyModel(ps, rt.Selection, strings.ToLower(name))
		if choice == "" {
			return nil, fmt.Errorf("no configured model is a %s", name)
		}
	}
	sel, err := config.Select(ps, file, choice, getenv)
	if err != nil {
		return nil, err
	}
	if sel.Model.Model == "" {
		return nil, fmt.Errorf("provider %s names no model", sel.Provider.Key)
	}
	c := client
	if sel.Provider.Key != rt.Selection.Provider.Key {
		if c, err = providers.New(sel.Provider.ProviderConfig(file.Timeouts), llm.DefaultRetryPolicy()); err != nil {
			return nil, err
		}
	}
	_, maxOut := sel.Model.Limits()
	return &tools.RunModel{ID: sel.ID(), Client: c, Model: sel.Model.Model, MaxTokens: maxOut}, nil
}

// familyModel is the "provider:model" of a configured model of a
// family, the session's provider first; "" for none.
func familyModel(ps []config.Provider, cur config.Selection, family string) string {
	ordered := []config.Provider{cur.Provider}
	for _, p := range ps {
		if p.Key != cur.Provider.Key {
			ordered = append(ordered, p)
		}
	}
	for _, p := range ordered {
		for _, m := range p.Models {
			if strings.Contains(strings.ToLower(m.Model), family) {
				return p.Key + ":" + m.Model
			}
		}
	}
	// The alias table --model uses: an agent's model: sonnet is nova's
	// sonnet, not an older one.
	if id, ok := config.AliasModel(cur.Provider.Type, family); ok {
		return cur.Provider.Key + ":" + id
	}
	return ""
}
