package skills

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools"
)

// Manager is a session's skills: it lists them to the model, expands a
// person's /name commands (Expand, agent.Config's) and loads skills for
// the Skill tool (LoadSkill). Files are read afresh each time, so an added
// or edited skill counts from the next prompt; the list the model was
// given is remembered, and what changed is told with the next prompt.
type Manager struct {
	Dirs Dirs
	// Pipeline and Env run what a skill's text asks for: !`shell` lines
	// as Bash calls, @file references as Read calls.
	Pipeline *tools.Pipeline
	Env      *tools.Env
	// Grant adds a skill's allowed-tools as allow rules until revoke is
	// called (permission.Checker.Grant); nil grants nothing.
	Grant func(source string, rules []string) (revoke func(), err error)
	// Model resolves a skill's model field to the model for the rest of
	// the run; nil means the field is ignored, with a notice.
	Model func(name string) (*tools.RunModel, error)
	// Notice tells the run of ctx something in words (agent.Notice).
	Notice func(ctx context.Context, text string)
	// Hooks runs a skill's frontmatter hooks for the rest of the run of
	// ctx (hooks.Engine.AddRun), returning what of them will never run;
	// nil means this session cannot run them, and a skill that has hooks
	// is refused rather than run without its guard.
	Hooks func(ctx context.Context, sk *Skill) (problems []string, err error)
	// Fork runs a skill that asks for a subagent of its own (context:
	// fork) in one, under the session's checker, sandbox and hooks; nil
	// means the session has no subagents, and such a skill is refused.
	Fork tools.SubagentRunner
	// Disabled finds no skill or command (--disable-slash-commands): none
	// is listed or expands. Agent files are still read from Dirs.
	Disabled bool

	mu     sync.Mutex
	listed map[string]string // name -> description, as the model was told
	told   bool              // a list went out at all
}

// Load reads the skills as they are now.
func (m *Manager) Load() *Set {
	if m.Disabled {
		return Load(Dirs{})
	}
	return Load(m.Dirs)
}

// ErrFork is the refusal of a skill that asks for a forked subagent
// (context: fork) in a session that has none (a model without tools): a
// skill is never run with fewer checks than it asked for, nor in a
// context it did not ask for.
var ErrFork = errors.New("it asks to run in a forked subagent (context: fork), and this session has no subagents (its model has no tools)")

// Listing is the list of skills the model may load, for the context
// message; "" when there is none. It is remembered as told.
func (m *Manager) Listing() string {
	set := m.Load()
	now := modelSkills(set)
	m.mu.Lock()
	m.listed, m.told = now, true
	m.mu.Unlock()
	return fullList(set, now)
}

// fullList is the list of every skill the model may load, or "".
func fullList(set *Set, names map[string]string) string {
	if len(names) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<skills>\nSkills you can load with the Skill tool. When a task matches a skill's description, load it before you start and follow its instructions.\n")
	writeList(&b, set, names)
	b.WriteString("</skills>")
	return b.String()
}

// listBudget bounds the list the model is sent, as Claude Code bounds
// its own: the names that do not fit are still given, without description.
const listBudget = 8_000

// descLimit bounds one description in the list: SKILL.md's own limit,
// so the "when to use" that long descriptions end with is kept.
const descLimit = 1024

func writeList(b *strings.Builder, set *Set, names map[string]string) {
	var rest []string
	for _, sk := range set.All() {
		d, ok := names[sk.Name]
		if !ok {
			continue
		}
		line := "- " + sk.Name + ": " + d + "\n"
		if b.Len()+len(line) > listBudget {
			rest = append(rest, sk.Name)
			continue
		}
		b.WriteString(line)
	}
	if len(rest) > 0 {
		fmt.Fprintf(b, "- (no room to describe: %s)\n", strings.Join(rest, ", "))
	}
}

// modelSkills are the skills the model may load, each with its
// description as the list gives it.
func modelSkills(set *Set) map[string]string {
	out := map[string]string{}
	for _, sk := range set.All() {
		if sk.DisableModelInvocation {
			continue
		}
		d := strings.Join(strings.Fields(sk.Description), " ")
		if r := []rune(d); len(r) > descLimit {
			d = string(r[:descLimit-1]) + "…"
		}
		out[sk.Name] = d
	}
	return out
}

// changes says what changed in the list since the model was told, or "".
// Before any list went out (a resumed session) the whole list is told.
func (m *Manager) changes(set *Set) string {
	now := modelSkills(set)
	m.mu.Lock()
	before, told := m.listed, m.told
	m.listed, m.told = now, true
	m.mu.Unlock()
	if !told {
		return fullList(set, now)
	}
	added := map[string]string{}
	for n, d := range now {
		if old, ok := before[n]; !ok || old != d {
			added[n] = d
		}
	}
	var gone []string
	for n := range before {
		if _, ok := now[n]; !ok {
			gone = append(gone, n)
		}
	}
	if len(added) == 0 && len(gone) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<skills>\n")
	if len(added) > 0 {
		b.WriteString("Skills added or changed since the list you were given (load them with the Skill tool):\n")
		writeList(&b, set, added)
	}
	if len(gone) > 0 {
		sort.Strings(gone)
		fmt.Fprintf(&b, "No longer available: %s\n", strings.Join(gone, ", "))
	}
	b.WriteString("</skills>")
	return b.String()
}

// Commands are the skills a person can run as /name, for menus and
// completion: those not marked user-invocable: false.
func (m *Manager) Commands() []*Skill {
	var out []*Skill
	for _, sk := range m.Load().All() {
		if sk.UserInvocable {
			out = append(out, sk)
		}
	}
	return out
}

// Expand is agent.Config's Expand: a run's input whose last text part is
// "/name args", name a skill or command, becomes its prompt, and what
// changed in the skills since the model was told is added. It runs inside
// the run, so the !`shell` lines and @file reads it makes ask and notify
// as the run's own calls, and what the skill grants ends with the run.
func (m *Manager) Expand(ctx context.Context, input llm.Message) (llm.Message, error) {
	set := m.Load()
	note := m.changes(set)
	last := -1
	for i, p := range input.Parts {
		if p.Type == llm.PartText {
			last = i
		}
	}
	out := input
	if last >= 0 {
		if name, args, ok := ParseCommand(input.Parts[last].Text); ok {
			sk := set.Lookup(name)
			if sk == nil {
				if dir := set.IgnoredDir(name); dir != "" {
					return input, fmt.Errorf("/%s is in %s, and this folder is not trusted, so its skills and commands are not loaded: run `nova trust` (or pass --trust) to use them", name, dir)
				}
			} else {
				parts, err := m.invoke(ctx, sk, name, args)
				if err != nil {
					return input, err
				}
				out.Parts = append(append(append([]llm.Part(nil), input.Parts[:last]...), parts...), input.Parts[last+1:]...)
			}
		}
	}
	if note != "" {
		out.Parts = append([]llm.Part{llm.TextPart(note)}, out.Parts...)
	}
	return out, nil
}

// invoke runs a person's /name: the parts of the message the model gets.
func (m *Manager) invoke(ctx context.Context, sk *Skill, typed, args string) ([]llm.Part, error) {
	if sk.Forked() && m.Fork == nil {
		return nil, fmt.Errorf("/%s was not run: %w. Remove `context: fork` from %s to run it in the conversation", typed, ErrFork, sk.Path)
	}
	if err := m.activate(ctx, sk, "/"+typed); err != nil {
		return nil, fmt.Errorf("/%s was not run: %w", typed, err)
	}
	id := "cmd_" + strings.ReplaceAll(sk.Name, ":", "_")
	c := &caller{pipeline: m.Pipeline, env: m.Env, id: id}
	body := Substitute(sk.Body, args, sk.Arguments, m.vars(sk))
	refs := fileRefs(body, m.Env)
	body = strings.TrimSpace(c.runShell(ctx, body))
	if sk.Kind == KindSkill {
		body = "Base directory for this skill: " + sk.Dir + "\n\n" + body
	}
	head := fmt.Sprintf("<command-name>/%s</command-name>\n<command-args>%s</command-args>", sk.Name, args)
	files := c.readFiles(ctx, refs)
	if sk.Forked() {
		for _, f := range files {
			body += "\n\n" + f
		}
		res, err := m.fork(ctx, sk, id, body, m.Env)
		if err != nil {
			return nil, fmt.Errorf("/%s was not run: %w", typed, err)
		}
		return []llm.Part{llm.TextPart(head), llm.TextPart(forkedResult(sk, res))}, nil
	}
	parts := []llm.Part{llm.TextPart(head), llm.TextPart(body)}
	for _, f := range files {
		parts = append(parts, llm.TextPart(f))
	}
	return parts, nil
}

// fork runs a forked skill's rendered body as the prompt of a subagent of
// the skill's agent type (general-purpose when it names none), with its
// model; its allowed-tools and hooks were applied to the run the
// subagent runs in, so they hold for the subagent's calls too.
func (m *Manager) fork(ctx context.Context, sk *Skill, callID, body string, env *tools.Env) (tools.Result, error) {
	model := strings.TrimSpace(sk.Model)
	if model == "inherit" {
		model = ""
	}
	return m.Fork.RunSubagent(ctx, tools.SubagentTask{CallID: callID, Description: "skill " + sk.Name, Prompt: body,
		Type: strings.TrimSpace(sk.Agent), Model: model}, env)
}

// forkedResult is what the conversation gets of a person's forked /name:
// the subagent's result, said as such.
func forkedResult(sk *Skill, res tools.Result) string {
	agentType := strings.TrimSpace(sk.Agent)
	if agentType == "" {
		agentType = "general-purpose"
	}
	if res.IsError {
		return fmt.Sprintf("/%s ran in a subagent (%s), which failed:\n%s", sk.Name, agentType, res.Output)
	}
	return fmt.Sprintf("/%s ran in a subagent (%s). Its result:\n\n%s", sk.Name, agentType, res.Output)
}

// LoadSkill implements tools.SkillLoader: what the model gets for a Skill
// call is the skill's base directory and its body, arguments substituted
// and shell lines run.
func (m *Manager) LoadSkill(ctx context.Context, name, args string, env *tools.Env) (tools.Result, error) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	set := m.Load()
	sk := set.Lookup(name)
	switch {
	case sk == nil && set.IgnoredDir(name) != "":
		return tools.Errorf("skill %q is in %s, and this folder is not trusted, so it is not loaded; the user can trust it with `nova trust`", name, set.IgnoredDir(name)), nil
	case sk == nil:
		return tools.Errorf("no skill named %q; load only skills of the list you were given", name), nil
	case sk.DisableModelInvocation:
		return tools.Errorf("skill %s is only for the user to run (as /%s): its file sets disable-model-invocation", sk.Name, sk.Name), nil
	case sk.Forked() && m.Fork == nil:
		return tools.Errorf("skill %s was not loaded: %v. Do its task without it, or ask the user to remove `context: fork` from %s", sk.Name, ErrFork, sk.Path), nil
	}
	if env == nil {
		env = m.Env
	}
	if err := m.activate(ctx, sk, "skill "+sk.Name); err != nil {
		return tools.Errorf("skill %s was not loaded: %v. Do the task without it, or tell the user", sk.Name, err), nil
	}
	id := "skill"
	if call, ok := tools.CallOf(ctx); ok {
		id = call.ID
	}
	c := &caller{pipeline: m.Pipeline, env: env, id: id + "_sh"}
	body := "Base directory for this skill: " + sk.Dir + "\n\n" + strings.TrimSpace(c.runShell(ctx, Substitute(sk.Body, args, sk.Arguments, m.vars(sk))))
	if sk.Forked() {
		// The Skill call's own id: the subagent's work nests under it.
		return m.fork(ctx, sk, id, body, env)
	}
	return tools.Result{Output: body}, nil
}

// ResolveSkill is the name of the skill a Skill call's name finds (an
// alias such as namespace:name finds the skill itself), or name when it
// finds none: what Skill(name) permission rules are matched against.
func (m *Manager) ResolveSkill(name string) string {
	if sk := m.Load().Lookup(strings.TrimSpace(name)); sk != nil {
		return sk.Name
	}
	return name
}

// vars are the ${NAME} values a body may use, Claude Code's and nova's.
func (m *Manager) vars(sk *Skill) map[string]string {
	id := ""
	if m.Env != nil {
		id = m.Env.SessionID
	}
	vars := map[string]string{
		"CLAUDE_SKILL_DIR": sk.Dir, "NOVA_SKILL_DIR": sk.Dir,
		"CLAUDE_SESSION_ID": id, "NOVA_SESSION_ID": id,
	}
	for k, v := range sk.Vars {
		vars[k] = v
	}
	return vars
}

// activate applies what a skill asks of the rest of the run: its hooks,
// its allowed-tools as allow rules, its model. All end with the run;
// outside a run nothing is applied. Hooks that cannot run refuse the
// skill, before anything else is applied: a skill is never run without
// the guard it brings.
func (m *Manager) activate(ctx context.Context, sk *Skill, via string) error {
	if err := m.addHooks(ctx, sk, via); err != nil {
		return err
	}
	scope := tools.RunScopeOf(ctx)
	if len(sk.AllowedTools) > 0 && m.Grant != nil {
		switch {
		case sk.Scope == ScopeProject && !m.Dirs.Trusted:
			m.notice(ctx, fmt.Sprintf("%s: allowed-tools ignored: the folder is not trusted", via))
		case scope == nil:
		default:
			revoke, err := m.Grant(via+" (this run)", sk.AllowedTools)
			if !scope.AtEnd(revoke) {
				revoke()
				break
			}
			if err != nil {
				m.notice(ctx, fmt.Sprintf("%s: some allowed-tools are not permission rules and grant nothing: %v", via, err))
			}
			m.notice(ctx, fmt.Sprintf("%s allows for this run: %s", via, strings.Join(sk.AllowedTools, ", ")))
		}
	}
	if mod := strings.TrimSpace(sk.Model); mod != "" && mod != "inherit" && scope != nil && !sk.Forked() {
		if m.Model == nil {
			m.notice(ctx, fmt.Sprintf("%s: model %s ignored: this session cannot switch models", via, mod))
			return nil
		}
		rm, err := m.Model(mod)
		if err != nil {
			m.notice(ctx, fmt.Sprintf("%s: model %s: %v; the session's model goes on", via, mod, err))
			return nil
		}
		scope.SetModel(*rm)
		m.notice(ctx, fmt.Sprintf("%s: model %s for the rest of this run", via, rm.ID))
	}
	return nil
}

// addHooks starts a skill's frontmatter hooks for the rest of the run. A
// project's skill brings hooks only in a trusted workspace (it is not
// loaded in another, and this holds if it ever were).
func (m *Manager) addHooks(ctx context.Context, sk *Skill, via string) error {
	switch {
	case sk.HooksError != "":
		return fmt.Errorf("the hooks in its frontmatter (%s) cannot be read: %s", sk.Path, sk.HooksError)
	case sk.Hooks == nil:
		return nil
	case sk.Scope == ScopeProject && !m.Dirs.Trusted:
		return fmt.Errorf("it is the project's and brings hooks, and the folder is not trusted")
	case m.Hooks == nil:
		return fmt.Errorf("it has hooks (%s), and this session cannot run them", sk.Path)
	}
	problems, err := m.Hooks(ctx, sk)
	if err != nil {
		return fmt.Errorf("its hooks cannot run: %w", err)
	}
	for _, p := range problems {
		m.notice(ctx, via+": "+p)
	}
	m.notice(ctx, via+": its hooks run until the end of this run")
	return nil
}

func (m *Manager) notice(ctx context.Context, text string) {
	if m.Notice != nil {
		m.Notice(ctx, text)
	}
}
