package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/gitwork"
	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// SubagentType is a kind of subagent the Agent tool can start: a
// built-in one (BuiltinTypes), an agent file's, or an agents API
// definition's.
type SubagentType struct {
	Name        string
	Description string
	// Tools are the tools it may use; nil means every tool of the
	// session (but never those no subagent gets: Agent itself, plan mode
	// and questions to the person).
	Tools []string
	// DisallowedTools are taken out of Tools.
	DisallowedTools []string
	// Model is "", "inherit", an alias (sonnet, opus, haiku) or a model
	// as --model takes it.
	Model string
	// Mode is the permission mode it asks for; it runs in the narrower of
	// it and its parent's (permission.Narrower), never a wider one.
	Mode permission.Mode
	// MaxTurns bounds its model turns; 0 means no bound.
	MaxTurns int
	// Prompt is its system prompt.
	Prompt string
	// Source says where it was defined ("built-in", a file's path).
	Source string
	// noHooks runs it without the session's hooks: an agent hook's judge,
	// whose calls would otherwise fire the hook that started it.
	noHooks bool
}

// neverForSubagents are the tools no subagent is given: it starts no
// subagents through its parent's Agent tool (a type that nests gets one of
// its own, nestedRunner), switches no plan mode of its parent's, and asks
// the person no questions of its own (its permission asks do reach them),
// and gives no structured answer: that is the main turn's (--json-schema).
var neverForSubagents = []string{"Agent", "EnterPlanMode", "ExitPlanMode", "AskUserQuestion", "StructuredOutput"}

// nestedTypes are the types a subagent may start itself (nested): the
// read-only built-in ones, which start none of their own, so nesting
// stops one level down.
var nestedTypes = []string{"Explore", "Plan"}

// readOnlyTools are the tools of the read-only built-in types.
var readOnlyTools = []string{"Read", "Glob", "Grep", "LS", "Bash", "BashOutput", "KillShell", "WebFetch", "WebSearch", "TodoWrite", "Skill"}

// subagentNote ends every subagent's system prompt: what it is and what
// becomes of its last message.
const subagentNote = `You are a subagent: another agent gave you the task in the user message and sees none of your work but your final message, which is returned to it as your result. Work on your own until the task is done; you cannot ask the user anything. End with a final message that says concisely what you found or did, with the file paths (absolute) and details the other agent needs.`

// BuiltinTypes are the types every session has, as Claude Code's.
func BuiltinTypes() []SubagentType {
	return []SubagentType{
		{Name: "general-purpose", Source: "built-in",
			Description: "General-purpose agent for researching complex questions, searching for code and executing multi-step tasks. Use it when a search may take several rounds, or for a self-contained task.",
			Prompt:      "You are an agent for nova, a coding assistant. Given the user's message, use the tools available to complete the task. Do what has been asked; nothing more, nothing less."},
		{Name: "Explore", Source: "built-in", Tools: readOnlyTools, Mode: permission.ModePlan,
			Description: "Fast read-only agent for exploring codebases: finding files by pattern, searching code for keywords, answering questions about how code works. Say how thorough it should be: quick, medium or very thorough.",
			Prompt:      "You are a file search specialist for nova, a coding assistant. You explore codebases read-only: you may read and search files and run read-only commands; you must not create, modify or delete anything. Search broadly, then narrow down; run independent searches in parallel. Report what you found with absolute file paths."},
		{Name: "Plan", Source: "built-in", Tools: readOnlyTools, Mode: permission.ModePlan,
			Description: "Software architect agent for designing implementation plans: it explores the code read-only and returns a step-by-step plan, the critical files and the trade-offs.",
			Prompt:      "You are a software architect for nova, a coding assistant. Explore the code read-only (you must not create, modify or delete anything) and design an implementation plan for the task: the steps in order, the files to change, the risks and trade-offs. End with the plan and a list of the files most critical to it."},
	}
}

// Subagents runs the Agent tool's subagents for one agent (the parent,
// which New links it to): each a fresh agent with its type's tools and
// prompt, the parent's permission checker, sandbox, hooks and person to
// ask, and no history of the parent's.
type Subagents struct {
	// Types returns the types there are now (read at each call, so an
	// agent file added counts at once); nil means the built-in ones.
	Types func() []SubagentType
	// Model resolves a model name (an alias, or as --model takes it);
	// nil means subagents run the parent's model.
	Model func(name string) (*tools.RunModel, error)
	// FastModel is what Explore runs where one is configured ("haiku");
	// "" runs the parent's model.
	FastModel string
	// Context builds a subagent's context message (environment,
	// instruction files); nil means the parent's.
	Context func(ctx context.Context) string
	// Transcript opens subagent id's transcript; nil records none.
	Transcript func(id string) (SubagentRecorder, error)
	// MaxParallel bounds the subagents running at once; 0 means 4.
	MaxParallel int
	// Worktrees is where the worktrees of isolation "worktree" are made
	// (NOVA_HOME/worktrees); "" refuses that isolation.
	Worktrees string

	parent *Agent
	once   sync.Once
	sem    chan struct{}
	// nestedSem bounds the agents subagents start: a pool of its own, so
	// subagents holding every slot of sem can still wait on theirs.
	nestedSem chan struct{}
	// bg holds the background subagents' cancels, for Close; idleCh,
	// when not nil, is closed once none is left.
	mu     sync.Mutex
	bg     map[string]context.CancelFunc
	idleCh chan struct{}
	closed bool
}

// SubagentRecorder keeps a subagent's transcript.
type SubagentRecorder interface {
	Recorder
	// Path is the transcript's file, for SubagentStop hooks.
	Path() string
	Close() error
}

// DefaultMaxParallel is how many subagents run at once by default.
const DefaultMaxParallel = 4

func (s *Subagents) slots() chan struct{} {
	s.once.Do(func() {
		n := s.MaxParallel
		if n <= 0 {
			n = DefaultMaxParallel
		}
		s.sem = make(chan struct{}, n)
		s.nestedSem = make(chan struct{}, n)
	})
	return s.sem
}

// nestedSlots is the pool of the agents subagents start.
func (s *Subagents) nestedSlots() chan struct{} {
	s.slots()
	return s.nestedSem
}

// nests reports whether type t may start agents itself: a type with every
// tool (general-purpose) or one that names Agent, in a session that has
// the Agent tool.
func (s *Subagents) nests(t SubagentType) bool {
	if t.noHooks || slices.ContainsFunc(t.DisallowedTools, func(d string) bool { return toolNameMatch(d, "Agent") }) {
		return false
	}
	if t.Tools != nil && !slices.ContainsFunc(t.Tools, func(p string) bool { return toolNameMatch(p, "Agent") }) {
		return false
	}
	if s.parent == nil {
		return false
	}
	_, ok, _ := s.parent.cfg.Pipeline.Registry.Get("Agent")
	return ok
}

// nestedRunner runs the agents a subagent starts (its Agent tool): only
// the read-only built-in types, in the foreground, in the same workspace.
type nestedRunner struct{ s *Subagents }

// RunSubagent implements tools.SubagentRunner.
func (n nestedRunner) RunSubagent(ctx context.Context, task tools.SubagentTask, env *tools.Env) (tools.Result, error) {
	var t SubagentType
	for _, b := range BuiltinTypes() {
		if b.Name == task.Type && slices.Contains(nestedTypes, b.Name) {
			t = b
		}
	}
	switch {
	case t.Name == "":
		return tools.Errorf("a subagent can start only the read-only agent types %s, not %q", strings.Join(nestedTypes, " and "), cmp.Or(task.Type, "general-purpose")), nil
	case task.Background:
		return tools.Errorf("a subagent's own agents run in the foreground: call it again without run_in_background"), nil
	case task.Isolation != "":
		return tools.Errorf("a subagent's own agents work in its workspace: call it again without isolation"), nil
	}
	select {
	case n.s.nestedSlots() <- struct{}{}:
	case <-ctx.Done():
		return tools.Errorf("interrupted before the agent started"), nil
	}
	defer func() { <-n.s.nestedSlots() }()
	ref := &AgentRef{ID: newID()[:12], Type: t.Name, Description: task.Description}
	rep := n.s.run(ctx, t, task, ref, env, sinkOf(ctx), env.Ask != nil)
	return rep.result(), nil
}

// types returns the types there are, custom ones before the built-in
// ones (a custom type of a built-in's name replaces it).
func (s *Subagents) types() []SubagentType {
	if s.Types == nil {
		return BuiltinTypes()
	}
	return s.Types()
}

// List returns the types there are now, in the order the model is told.
func (s *Subagents) List() []SubagentType { return s.types() }

// lookup returns the type of types called name ("" is general-purpose).
func lookup(types []SubagentType, name string) (SubagentType, bool) {
	if name == "" {
		name = "general-purpose"
	}
	for _, t := range types {
		if t.Name == name {
			return t, true
		}
	}
	return SubagentType{}, false
}

// Listing is the <agents> block of the context message: each type in a
// line, with its description and tools, so the model can choose one.
func (s *Subagents) Listing() string {
	var b strings.Builder
	b.WriteString("<agents>\nAgent types available to the Agent tool (subagent_type):\n")
	for _, t := range s.types() {
		fmt.Fprintf(&b, "- %s: %s (Tools: %s)\n", t.Name, oneLine(t.Description), strings.Join(s.Tools(t), ", "))
	}
	b.WriteString("</agents>")
	return b.String()
}

// Tools are the tools type t gets in this session, by name, as the model
// is told them: a type that nests has an Agent that starts only the
// read-only types.
func (s *Subagents) Tools(t SubagentType) []string {
	tl := s.toolNames(t)
	if s.nests(t) {
		tl = append(tl, "Agent (only "+strings.Join(nestedTypes, " and ")+")")
	}
	return tl
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// allowed reports whether type t may use the tool called name.
func allowed(t SubagentType, name string) bool {
	if slices.Contains(neverForSubagents, name) {
		return false
	}
	if slices.ContainsFunc(t.DisallowedTools, func(d string) bool { return toolNameMatch(d, name) }) {
		return false
	}
	return t.Tools == nil || slices.ContainsFunc(t.Tools, func(p string) bool { return toolNameMatch(p, name) })
}

// toolNameMatch matches a tools-list entry against a tool's name: the
// name itself, "mcp__server" for all of a server's tools, a trailing *
// for a prefix; a rule's specifier ("Bash(git *)") is not a tool subset
// and counts as its tool.
func toolNameMatch(entry, name string) bool {
	entry = strings.TrimSpace(entry)
	if i := strings.IndexByte(entry, '('); i > 0 {
		entry = entry[:i]
	}
	switch {
	case entry == name:
		return true
	case strings.HasSuffix(entry, "*"):
		return strings.HasPrefix(name, strings.TrimSuffix(entry, "*"))
	case strings.HasPrefix(entry, "mcp__") && strings.Count(entry, "__") == 1:
		return strings.HasPrefix(name, entry+"__")
	}
	return false
}

// toolNames are the tools of the parent's session type t gets.
func (s *Subagents) toolNames(t SubagentType) []string {
	var out []string
	if s.parent == nil {
		return out
	}
	for _, n := range s.parent.cfg.Pipeline.Registry.Names() {
		if allowed(t, n) {
			out = append(out, n)
		}
	}
	return out
}

// RunSubagent implements tools.SubagentRunner.
func (s *Subagents) RunSubagent(ctx context.Context, task tools.SubagentTask, env *tools.Env) (tools.Result, error) {
	if s.parent == nil {
		return tools.Errorf("subagents are not available in this session"), nil
	}
	// The agent files are read once per call.
	types := s.types()
	t, ok := lookup(types, task.Type)
	if !ok {
		var names []string
		for _, t := range types {
			names = append(names, t.Name)
		}
		return tools.Errorf("unknown agent type %q; the types are: %s", task.Type, strings.Join(names, ", ")), nil
	}
	if task.Isolation != "" && task.Isolation != "worktree" {
		return tools.Errorf("unknown isolation %q: the one there is is \"worktree\"", task.Isolation), nil
	}
	id := newID()[:12]
	ref := &AgentRef{ID: id, Type: t.Name, Description: task.Description}
	if task.Background {
		return s.background(ctx, t, task, ref, env)
	}
	select {
	case s.slots() <- struct{}{}:
	case <-ctx.Done():
		return tools.Errorf("interrupted before the agent started"), nil
	}
	defer func() { <-s.slots() }()
	rep := s.run(ctx, t, task, ref, env, sinkOf(ctx), true)
	return rep.result(), nil
}

// background starts the subagent on its own and returns at once; the
// parent is told, in its next request, when the subagent is done.
func (s *Subagents) background(ctx context.Context, t SubagentType, task tools.SubagentTask, ref *AgentRef, env *tools.Env) (tools.Result, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return tools.Errorf("the session is closing: no agent can start"), nil
	}
	// It outlives the turn that started it, and the person's interrupt
	// of that turn; the session's end stops it (Close).
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if s.bg == nil {
		s.bg = map[string]context.CancelFunc{}
	}
	s.bg[ref.ID] = cancel
	s.mu.Unlock()
	send := sinkOf(ctx)
	go func() {
		defer func() {
			cancel()
			s.mu.Lock()
			delete(s.bg, ref.ID)
			if len(s.bg) == 0 && s.idleCh != nil {
				close(s.idleCh)
				s.idleCh = nil
			}
			s.mu.Unlock()
		}()
		select {
		case s.slots() <- struct{}{}:
		case <-bctx.Done():
			return
		}
		defer func() { <-s.slots() }()
		// Nobody may be watching when it asks: a background agent's
		// asks are denials, as in print mode.
		rep := s.run(bctx, t, task, ref, env, send, false)
		res := rep.result()
		status := "finished"
		if res.IsError {
			status = "failed"
		}
		s.parent.tell(fmt.Sprintf("<task-notification>\nBackground agent %s (%s: %s) %s.\n%s\n</task-notification>", ref.ID, ref.Type, ref.Description, status, res.Output))
	}()
	return tools.Result{Output: fmt.Sprintf("Agent %s (%s) started in the background. You will be told when it finishes; do not wait for it or poll.", ref.ID, t.Name)}, nil
}

// judgeType is the subagent of agent hooks: it reads and searches, in
// plan mode, under the session's checker, and fires no hooks of its own.
var judgeType = SubagentType{Name: "hook-judge", Source: "built-in", Tools: []string{"Read", "Glob", "Grep", "LS"},
	Mode: permission.ModePlan, noHooks: true, MaxTurns: 20,
	Prompt: "You are a verifier for nova, a coding assistant: you check one condition a user's hook asks about, read-only, and answer with the verdict JSON the task describes."}

// Judge runs an agent hook's subagent on prompt (model "" is the
// session's) and returns its final answer (hooks.Session.Judge). It
// cannot ask anyone: what would ask is denied.
func (s *Subagents) Judge(ctx context.Context, prompt, model string) (string, error) {
	if s.parent == nil {
		return "", fmt.Errorf("subagents are not available in this session")
	}
	ref := &AgentRef{ID: newID()[:12], Type: judgeType.Name, Description: "agent hook"}
	rep := s.run(ctx, judgeType, tools.SubagentTask{Prompt: prompt, Model: model}, ref, s.parent.cfg.Env, nil, false)
	switch {
	case rep.err != nil:
		return "", rep.err
	case rep.done.Subtype != SubtypeSuccess:
		return "", errors.New(cmp.Or(rep.done.Error, rep.done.Subtype))
	}
	return rep.done.Result, nil
}

// running is the number of background subagents not yet done.
func (s *Subagents) running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bg)
}

// idle waits until no background subagent runs, or ctx ends.
func (s *Subagents) idle(ctx context.Context) {
	s.mu.Lock()
	if len(s.bg) == 0 {
		s.mu.Unlock()
		return
	}
	if s.idleCh == nil {
		s.idleCh = make(chan struct{})
	}
	ch := s.idleCh
	s.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// Close stops the background subagents and waits for them.
func (s *Subagents) Close() {
	s.mu.Lock()
	s.closed = true
	for _, c := range s.bg {
		c()
	}
	s.mu.Unlock()
	s.idle(context.Background())
}

// report is what became of one subagent.
type report struct {
	ref      *AgentRef
	done     *Done
	toolUses int
	elapsed  time.Duration
	// worktree is where its changes are, when it left some.
	worktree *gitwork.Worktree
	err      error
}

// result is what the parent's model reads.
func (r report) result() tools.Result {
	if r.err != nil {
		return tools.Errorf("agent %s (%s) could not run: %v", r.ref.ID, r.ref.Type, r.err)
	}
	d := r.done
	var b strings.Builder
	text := strings.TrimSpace(d.Result)
	isErr := false
	switch d.Subtype {
	case SubtypeSuccess:
		if text == "" {
			text = "(the agent ended without a final message)"
		}
	case SubtypeInterrupted:
		isErr, text = true, "The agent was interrupted before it finished."+orEmpty("\nIts last message: ", text)
	default:
		isErr, text = true, "The agent did not finish: "+d.Error+orEmpty("\nIts last message: ", text)
	}
	b.WriteString(text)
	if w := r.worktree; w != nil {
		fmt.Fprintf(&b, "\n\nThe agent's changes are in the git worktree %s, on branch %s (started from %s).", w.Path, w.Branch, w.Base[:min(12, len(w.Base))])
	}
	u := d.Usage
	fmt.Fprintf(&b, "\n\nagentId: %s (%s)\n<usage>total_tokens: %d\ntool_uses: %d\nduration_ms: %d</usage>",
		r.ref.ID, r.ref.Type, u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens, r.toolUses, r.elapsed.Milliseconds())
	return tools.Result{Output: b.String(), IsError: isErr}
}

func orEmpty(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// run runs one subagent to its end, its events sent, nested, to send.
func (s *Subagents) run(ctx context.Context, t SubagentType, task tools.SubagentTask, ref *AgentRef, env *tools.Env, send func(Event), interactive bool) (rep report) {
	start := time.Now()
	rep.ref = ref
	p := s.parent.cfg
	var (
		cenv     *tools.Env
		worktree string
	)
	if task.Isolation == "worktree" {
		w, err := newWorktree(ctx, s.Worktrees, env.Workdir, ref.ID)
		if err != nil {
			rep.err = fmt.Errorf("isolation \"worktree\": %w", err)
			return rep
		}
		defer func() {
			kept, err := finishWorktree(ctx, w)
			if kept {
				rep.worktree = w
			}
			if err != nil && send != nil {
				send(Event{Type: EventNotice, ParentToolUseID: task.CallID, Agent: ref, Text: "the agent's worktree could not be cleaned up: " + err.Error()})
			}
		}()
		if cenv, err = worktreeEnv(env, w); err != nil {
			rep.err = fmt.Errorf("isolation \"worktree\": %w", err)
			return rep
		}
		worktree = w.Path
	} else {
		cenv = env.Child(env.Workdir)
	}
	defer cenv.Close()
	if !interactive {
		cenv.Ask = nil
	}
	mode := t.Mode
	if p.Pipeline.Mode != "" {
		mode = permission.Narrower(p.Pipeline.Mode, t.Mode)
	}
	reg := p.Pipeline.Registry.Subset(func(n string) bool { return allowed(t, n) })
	if s.nests(t) {
		// Its own Agent tool starts only read-only agents, which start
		// none: nesting ends one level down.
		if err := reg.Register(&tools.Agent{Runner: nestedRunner{s}}); err != nil {
			rep.err = err
			return rep
		}
	}
	pipe := &tools.Pipeline{Registry: reg,
		Checker: p.Pipeline.Checker, Hooks: p.Pipeline.Hooks, SpillThreshold: p.Pipeline.SpillThreshold, Mode: mode,
		Worktree: cmp.Or(worktree, p.Pipeline.Worktree)}
	if t.noHooks {
		pipe.Hooks = nil
	}
	cfg := Config{
		Client: p.Client, Model: p.Model, MaxTokens: p.MaxTokens, ContextWindow: p.ContextWindow,
		System:   strings.TrimSpace(t.Prompt) + "\n\n" + subagentNote,
		Context:  s.Context,
		Discover: p.Discover,
		Pipeline: pipe,
		Env:      cenv,
		MaxTurns: t.MaxTurns,
		Price:    p.Price,
	}
	if cfg.Context == nil {
		cfg.Context = p.Context
	}
	if m, err := s.model(t, task); err != nil {
		rep.err = err
		return rep
	} else if m != nil {
		cfg.Client, cfg.Model = m.Client, m.Model
		if m.MaxTokens > 0 {
			cfg.MaxTokens = m.MaxTokens
		}
	}
	var transcript string
	if s.Transcript != nil {
		rec, err := s.Transcript(ref.ID)
		if err != nil {
			rep.err = err
			return rep
		}
		defer rec.Close()
		cfg.Recorder, transcript = rec, rec.Path()
	}
	if p.Hooks != nil && !t.noHooks {
		cfg.Hooks = &subagentHooks{parent: p.Hooks, ref: ref, transcript: transcript}
	}
	child := New(cfg)
	for ev := range child.Run(ctx, llm.UserText(task.Prompt)) {
		switch ev.Type {
		case EventDone:
			rep.done = ev.Done
			continue
		case EventContext:
			continue
		case EventToolCall:
			rep.toolUses++
		}
		if send != nil {
			ev.ParentToolUseID, ev.Agent = task.CallID, ref
			send(ev)
		}
	}
	rep.elapsed = time.Since(start)
	if rep.done == nil {
		rep.done = &Done{Subtype: SubtypeError, Error: "the agent ended without a result"}
	}
	cost, _ := child.Cost()
	s.parent.spent(child.Usage(), cost)
	// What was denied to the subagent was denied in the parent's run: its
	// result lists it (print mode's permission_denials).
	if scope := tools.RunScopeOf(ctx); scope != nil {
		for _, d := range rep.done.Denials {
			scope.Denied(tools.Outcome{Call: tools.Call{ID: d.ToolUseID, Name: d.ToolName, Input: d.ToolInput}, Denied: true,
				Decision: permission.Decision{Behavior: permission.Deny, Layer: d.Layer, Reason: d.Reason}})
		}
	}
	return rep
}

// model is the model a subagent runs: the call's, its type's, the fast
// one for Explore, or (nil) its parent's.
func (s *Subagents) model(t SubagentType, task tools.SubagentTask) (*tools.RunModel, error) {
	name := task.Model
	if name == "" {
		name = t.Model
	}
	if name == "" && t.Name == "Explore" && t.Source == "built-in" {
		name = s.FastModel
	}
	if name == "" || strings.EqualFold(name, "inherit") || s.Model == nil {
		return nil, nil
	}
	m, err := s.Model(name)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", name, err)
	}
	return m, nil
}

// subagentHooks are a subagent's hook points: SubagentStart where a
// session's agent has SessionStart, SubagentStop where it has Stop; a
// subagent's prompt is its parent's words, not the person's, so
// UserPromptSubmit does not fire. Everything else is the parent's.
type subagentHooks struct {
	parent     Hooks
	ref        *AgentRef
	transcript string
}

// Started implements Hooks: the subagent's SubagentStart hooks.
func (h *subagentHooks) Started(ctx context.Context) hooks.Outcome {
	return h.parent.Fire(ctx, hooks.SubagentStartInput(h.ref.ID, h.ref.Type))
}

// Fire implements Hooks.
func (h *subagentHooks) Fire(ctx context.Context, in hooks.Input) hooks.Outcome {
	switch in.Event {
	case hooks.UserPromptSubmit, hooks.SessionStart:
		return hooks.Outcome{}
	case hooks.Stop:
		active, _ := in.Fields["stop_hook_active"].(bool)
		last, _ := in.Fields["last_assistant_message"].(string)
		return h.parent.Fire(ctx, hooks.SubagentStopInput(active, h.ref.ID, h.ref.Type, h.transcript, last))
	}
	return h.parent.Fire(ctx, in)
}
