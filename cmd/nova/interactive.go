package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/team"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tui"
)

// runInteractive starts the terminal UI on a runtime built with
// interactive: true, so permission asks and questions become events the
// UI answers. In a folder not trusted yet it first asks whether to trust
// it: the runtime, and so whatever the project's settings grant, is built
// only after the answer.
func runInteractive(ctx context.Context, opts *rootOptions) error {
	goOn, err := askTrust(ctx, opts)
	if err != nil || !goOn {
		return err
	}
	b, err := newInteractiveBackend(ctx, opts.io, opts.session)
	if err != nil {
		return err
	}
	defer b.Close()
	b.sharing.remote = opts.remote
	if opts.remote.on {
		if _, err := b.StartRemote(""); err != nil {
			return failure(fmt.Errorf("--remote: %w", err))
		}
	}
	editor := opts.io.Getenv("VISUAL")
	if editor == "" {
		editor = opts.io.Getenv("EDITOR")
	}
	notices := b.rt.Warnings
	if len(b.rt.Ignored) > 0 {
		notices = append(notices, ignoredNotice(b.rt))
	}
	// Project MCP servers waiting for approval get no notice: the TUI
	// asks about each in a dialog as it starts (tui.MCPServers).
	return tui.Run(ctx, b, tui.Options{In: opts.io.In, Out: opts.io.Out, Prompt: opts.prompt, Notices: notices, Editor: editor})
}

// ignoredNotice is the TUI's one line about the project grants left out.
func ignoredNotice(rt *live.Runtime) string {
	parts := make([]string, 0, len(rt.Ignored))
	for _, ig := range rt.Ignored {
		parts = append(parts, ig.Setting+" in "+displayPath(ig.File, rt.Workdir, rt.Home))
	}
	return "This folder is not trusted: ignoring " + strings.Join(parts, ", ") +
		" (its deny and ask rules still apply). Run `nova trust`, or start nova again and trust it, to apply them."
}

// interactiveBackend implements tui.Backend on a runtime. /clear, /resume
// and /model replace the runtime: the old session is closed (releasing its
// lock) and a new one built with the same options.
type interactiveBackend struct {
	ctx  context.Context
	io   *IOStreams
	opts buildOptions

	mu sync.Mutex
	rt *live.Runtime
	// made says rt's session was created by this process (not resumed):
	// left empty, it is removed when rt is replaced or closed.
	made bool
	// carried is what the session's earlier runtimes of this process
	// used (a /model switch replaces the runtime, not the session), so
	// the status figures go on from where they were.
	carried spent
	branch  string

	// sharing is /remote's (interactive_remote.go).
	sharing sharing
	// menu is the skill commands last listed (interactive_skills.go).
	menu skillMenu
}

// newInteractiveBackend builds the first runtime from o, as the terminal
// UI's: asks and questions are put to the person.
func newInteractiveBackend(ctx context.Context, s *IOStreams, o buildOptions) (*interactiveBackend, error) {
	o.interactive, o.titleFromModel = true, true
	rt, err := build(ctx, s, o)
	if err != nil {
		return nil, err
	}
	b := &interactiveBackend{ctx: ctx, io: s, opts: o, rt: rt, made: o.resume == "" && !o.cont}
	b.branch = agent.GitBranch(ctx, rt.Workdir)
	return b, nil
}

// Close releases the current runtime (a title call still running writes
// the fallback title as it closes).
func (b *interactiveBackend) Close() {
	_ = b.StopRemote() // before the runtime it serves closes
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rt.EndReason = "prompt_input_exit"
	b.closeLocked(false)
}

// closeLocked closes the current runtime. A session this process created
// in which nothing was said (nova opened and quit, a -r whose picker was
// dismissed, a /clear or /resume right after start) is removed, so no
// empty session is listed, resumed by --continue, or kept; unless kept
// says the next runtime carries it on (a /model switch). b.mu must be held.
func (b *interactiveBackend) closeLocked(kept bool) {
	rt := b.rt
	// The agent's history too: a message a full disk kept out of the
	// transcript is still the person's, written at Close if it can be.
	id, empty := rt.Session.ID(), rt.Session.Meta().MessageCount == 0 && len(rt.Agent.History()) == 0
	rt.Close()
	if b.made && empty && !kept {
		_ = session.NewStore(rt.NovaHome).Delete(id)
	}
}

func (b *interactiveBackend) runtime() *live.Runtime {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rt
}

// Run implements tui.Backend. The runtime names the session as its
// first run ends (live's one title policy).
func (b *interactiveBackend) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	return b.runtime().Live.Run(ctx, input)
}

// Compact implements tui.Backend.
func (b *interactiveBackend) Compact(ctx context.Context, instructions string) error {
	return b.runtime().Agent.Compact(ctx, instructions)
}

// spent is the tokens and cost of runtimes that came before the current
// one in the same session.
type spent struct {
	usage llm.Usage
	cost  float64
	// unpriced says some of usage was a model's whose prices are unknown.
	unpriced bool
}

// add adds what the agent of rt used.
func (s *spent) add(rt *live.Runtime) {
	u := rt.Agent.Usage()
	s.usage.Add(u)
	cost, ok := rt.Agent.Cost()
	s.cost += cost
	s.unpriced = s.unpriced || (!ok && u != (llm.Usage{}))
}

// Status implements tui.Backend: the session's figures since this nova
// started, across /model switches. The cost is known when every model
// that was used has prices.
func (b *interactiveBackend) Status() tui.Status {
	b.mu.Lock()
	rt, carried := b.rt, b.carried
	b.mu.Unlock()
	now := carried
	now.add(rt)
	st := tui.Status{Model: rt.Selection.ID(), Mode: rt.Checker.Mode(), Cwd: rt.Workdir, Home: rt.Home, Branch: b.branch,
		SessionID: rt.Session.ID(), Usage: now.usage}
	if _, priced := rt.Agent.Cost(); priced && !now.unpriced {
		st.CostUSD = &now.cost
	}
	if cu := rt.Agent.ContextUsage(); cu.MessageCount > 0 {
		// After a switch the new agent has not answered yet: its estimate
		// of the same history stands in, rather than no figure.
		st.Context = &cu
	}
	return st
}

// CycleMode implements tui.Backend: default, acceptEdits, plan, and
// bypassPermissions only when the session was started in it (it is never
// entered by accident).
func (b *interactiveBackend) CycleMode() permission.Mode {
	rt := b.runtime()
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan}
	if b.opts.permissionMode == string(permission.ModeBypass) {
		modes = append(modes, permission.ModeBypass)
	}
	cur := rt.Checker.Mode()
	next := modes[0]
	for i, m := range modes {
		if m == cur {
			next = modes[(i+1)%len(modes)]
		}
	}
	rt.Checker.SetMode(next)
	return next
}

// rebuild replaces the runtime with one built from o, keeping the
// permission mode the person chose; endReason is what the old session's
// SessionEnd hooks are told.
func (b *interactiveBackend) rebuild(o buildOptions, endReason string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	mode := b.rt.Checker.Mode()
	b.rt.EndReason = endReason
	same := o.resume == b.rt.Session.ID()
	if same {
		b.carried.add(b.rt)
	} else {
		b.carried = spent{}
	}
	b.closeLocked(same)
	rt, err := build(b.ctx, b.io, o)
	if err != nil {
		// Fall back to a fresh session so the UI keeps a working agent.
		fresh := b.opts
		fresh.resume, fresh.cont = "", false
		rt2, err2 := build(b.ctx, b.io, fresh)
		if err2 != nil {
			return fmt.Errorf("%v; and a new session could not be started: %v", err, err2)
		}
		b.rt, b.made, b.carried = rt2, true, spent{}
		return err
	}
	rt.Checker.SetMode(mode)
	b.made = (same && b.made) || (o.resume == "" && !o.cont)
	b.rt = rt
	b.opts.model = o.model
	b.branch = agent.GitBranch(b.ctx, rt.Workdir)
	return nil
}

// NewSession implements tui.Backend (/clear).
func (b *interactiveBackend) NewSession() error {
	o := b.opts
	o.resume, o.cont, o.sessionSource = "", false, "clear"
	return b.rebuild(o, "clear")
}

// Sessions implements tui.Backend: the sessions of this directory.
func (b *interactiveBackend) Sessions() ([]session.Meta, error) {
	rt := b.runtime()
	return session.NewStore(rt.NovaHome).List(session.Filter{Workspace: rt.Workdir, Limit: 50})
}

// Resume implements tui.Backend.
func (b *interactiveBackend) Resume(id string) error {
	o := b.opts
	o.resume, o.cont = id, false
	return b.rebuild(o, "resume")
}

// History implements tui.Backend: the conversation as the person had it,
// without the context nova put ahead of its first message for the model.
func (b *interactiveBackend) History() []llm.Message {
	h := b.runtime().Agent.History()
	if len(h) > 0 {
		h[0] = session.WithoutContext(h[0])
	}
	return h
}

// Shell implements tui.Backend for "!cmd": a Bash call through the
// session's one pipeline, marked as typed by the person. That is an input
// to the permission check (their own words need no question), not a way
// around it: dangerous commands, deny rules and plan mode still stop it,
// and it runs in the sandbox like any other command.
func (b *interactiveBackend) Shell(ctx context.Context, command string) (string, error) {
	rt := b.runtime()
	input, err := json.Marshal(map[string]any{"command": command})
	if err != nil {
		return "", fmt.Errorf("shell: %w", err)
	}
	out := rt.Pipeline.Run(ctx, tools.Call{ID: fmt.Sprintf("shell_%d", time.Now().UnixNano()), Name: "Bash", Input: input, Typed: true}, rt.Env)
	if out.Denied {
		return "", fmt.Errorf("denied (%s): %s", out.Decision.Layer, out.Decision.Reason)
	}
	return out.Result.Output, nil
}

// ReadMentionedFile implements tui.FileMentions (live.ReadMentionedFile).
func (b *interactiveBackend) ReadMentionedFile(ctx context.Context, path string) (string, bool, error) {
	text, err := b.runtime().ReadMentionedFile(ctx, path)
	if errors.Is(err, live.ErrNotAFile) {
		return "", false, nil
	}
	return text, err == nil, err
}

// Models implements tui.ModelSwitcher: every configured model (those of
// config.json, and the current models nova knows of each Anthropic and
// OpenAI provider, from config.json or the environment), and the model in
// use when it is none of them.
func (b *interactiveBackend) Models() []string {
	rt := b.runtime()
	file, err := config.LoadFile(rt.NovaHome)
	if err != nil {
		return nil
	}
	ids := config.KnownModels(config.Providers(file, b.io.Getenv), false)
	if cur := rt.Selection.ID(); !slices.Contains(ids, cur) {
		ids = append(ids, cur)
	}
	return ids
}

// SetModel implements tui.ModelSwitcher: the session carries on with the
// new model. The name is checked first, as --model's is (an alias
// resolves, an unknown name is refused with the known ones), so a typo
// never costs the session its runtime.
func (b *interactiveBackend) SetModel(id string) error {
	rt := b.runtime()
	o := b.opts
	o.model = id
	file, err := config.LoadFile(rt.NovaHome)
	if err != nil {
		return err
	}
	sel, _, err := live.SelectModel(b.ctx, o.live(b.io, rt.NovaHome, rt.Workdir), file)
	if err != nil {
		return errors.New(strings.Replace(err.Error(), "--model "+id, "/model "+id, 1))
	}
	o.model = sel.ID()
	o.resume, o.cont = rt.Session.ID(), false
	return b.rebuild(o, "other")
}

// HasStatusLine implements tui.StatusCommand.
func (b *interactiveBackend) HasStatusLine() bool { return b.runtime().HasStatusLine() }

// StatusLine implements tui.StatusCommand.
func (b *interactiveBackend) StatusLine(ctx context.Context, s tui.Status) (string, error) {
	return b.runtime().StatusLine(ctx, live.StatusLineInput{CostUSD: s.CostUSD, Context: s.Context})
}

// Doctor implements tui.Doctor.
func (b *interactiveBackend) Doctor() (string, error) {
	var buf bytes.Buffer
	err := runDoctor(b.ctx, b.io, &buf, b.opts)
	return buf.String(), err
}

// Team implements tui.Team: the teammates and the board of the team the
// session leads (--team), as nova team status prints them.
func (b *interactiveBackend) Team() (string, error) {
	if b.opts.team == "" {
		return "", errors.New("this session leads no team: start nova with --team NAME to lead one (see " + config.DocsBase + "teams.md)")
	}
	t, err := team.Open(b.runtime().NovaHome, b.opts.team)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	err = team.WriteStatus(&buf, t)
	return buf.String(), err
}

// Memory implements tui.Memory: the instruction files in effect and the
// auto memory file.
func (b *interactiveBackend) Memory() (string, error) {
	rt := b.runtime()
	files, warns, err := memory.LoadInstructions(rt.NovaHome, rt.Workdir, rt.Home, rt.ClaudeHome)
	if err != nil {
		return "", err
	}
	var s strings.Builder
	s.WriteString("Instruction files:\n")
	if len(files) == 0 {
		s.WriteString("  none (add NOVACODE.md, AGENTS.md or CLAUDE.md)\n")
	}
	for _, f := range files {
		fmt.Fprintf(&s, "  %s (%d lines)%s\n", f.Path, strings.Count(f.Content, "\n")+1, appliesTo(f))
	}
	for _, w := range warns {
		fmt.Fprintf(&s, "  warning: %s\n", w)
	}
	path := memory.MemoryPath(rt.NovaHome, rt.Workdir)
	if st, err := os.Stat(path); err == nil {
		fmt.Fprintf(&s, "Memory: %s (%d bytes)\n", path, st.Size())
	} else {
		fmt.Fprintf(&s, "Memory: %s (none yet)\n", filepath.Clean(path))
	}
	return s.String(), nil
}

// MemoryFiles implements tui.Memory: the auto memory file, created with a
// heading when missing so the editor has something to open, then the
// instruction files in effect.
func (b *interactiveBackend) MemoryFiles() ([]string, error) {
	rt := b.runtime()
	path := memory.MemoryPath(rt.NovaHome, rt.Workdir)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		if err := atomicfile.Write(path, []byte("# Memory\n"), 0o600); err != nil {
			return nil, err
		}
	}
	files := []string{path}
	loaded, _, err := memory.LoadInstructions(rt.NovaHome, rt.Workdir, rt.Home, rt.ClaudeHome)
	if err != nil {
		return nil, err
	}
	for _, f := range loaded {
		files = append(files, f.Path)
	}
	return files, nil
}

// waitTitle waits for the title call in progress, if any, to finish on
// its own.
func (b *interactiveBackend) waitTitle() { b.runtime().WaitTitle() }

// Rules implements tui.RuleEditor: the rules of the settings files as
// they are now, and of --allowedTools and --disallowedTools.
func (b *interactiveBackend) Rules() ([]tui.RuleInfo, error) {
	rt := b.runtime()
	ts, err := live.ResolveTrust(rt.NovaHome, rt.Workdir, b.opts.trust)
	if err != nil {
		return nil, err
	}
	home := rt.Home
	st, _, err := config.LoadSettingsLayers(rt.NovaHome, rt.Workdir, home, ts.Trusted, config.SettingsLayers{ClaudeHome: rt.ClaudeHome})
	if err != nil {
		return nil, err
	}
	cfg, err := st.PermissionConfig(config.PermissionOptions{Workspace: rt.Workdir, Home: home, NovaHome: rt.NovaHome,
		AllowedTools: b.opts.allowedTools, DisallowedTools: b.opts.disallowedTools})
	if err != nil {
		return nil, err
	}
	files := config.SettingsFiles(rt.NovaHome, rt.Workdir)
	kinds := map[string]string{files[0]: "user", files[1]: "project", files[2]: "local"}
	// Claude Code's files are shown with their layer but not edited:
	// they are Claude Code's, which nova only reads.
	claude := map[string]string{}
	for _, c := range st.Claude {
		claude[c.File] = c.Layer + " (Claude Code)"
	}
	var out []tui.RuleInfo
	for _, e := range config.ListRules(cfg.RuleSets) {
		r := tui.RuleInfo{Behavior: permission.Behavior(e.List), Rule: e.Rule, Source: e.Source}
		if kind, ok := kinds[e.Source]; ok {
			r.Source = kind + " " + displayPath(e.Source, rt.Workdir, home)
			r.Path, r.Removable = e.Source, true
		} else if kind, ok := claude[e.Source]; ok {
			r.Source = kind + " " + displayPath(e.Source, rt.Workdir, home)
		}
		out = append(out, r)
	}
	return out, nil
}

// RemoveRule implements tui.RuleEditor. The checker holds the rules it
// was built with, so the runtime is rebuilt from the files, carrying on
// with the same session and permission mode.
func (b *interactiveBackend) RemoveRule(r tui.RuleInfo) error {
	rt := b.runtime()
	if strings.Contains(r.Source, "(Claude Code)") {
		return fmt.Errorf("%s is in Claude Code's settings (%s), which nova only reads: remove it there", r.Rule, r.Source)
	}
	if !r.Removable || !slices.Contains(config.SettingsFiles(rt.NovaHome, rt.Workdir), r.Path) {
		return fmt.Errorf("%s comes from %s, not a settings file: start nova without it to drop it", r.Rule, r.Source)
	}
	if err := config.RemoveRule(r.Path, string(r.Behavior), r.Rule); err != nil {
		return err
	}
	o := b.opts
	o.resume, o.cont = rt.Session.ID(), false
	if err := b.rebuild(o, "other"); err != nil {
		return fmt.Errorf("removed %s from %s, but the session could not be reloaded: %w", r.Rule, r.Path, err)
	}
	return nil
}

// displayPath shortens a settings file's path for people: relative to
// the project, or to the home directory.
func displayPath(path, workdir, home string) string {
	if rel, err := filepath.Rel(workdir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return displayDir(path, home)
}

// displayDir shortens a path under the home directory to ~/...
func displayDir(path, home string) string {
	if home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}

// AgentTypes implements tui.Agents.
func (b *interactiveBackend) AgentTypes() []tui.AgentType {
	rt := b.runtime()
	var out []tui.AgentType
	for _, t := range rt.AgentTypes() {
		out = append(out, tui.AgentType{Name: t.Name, Description: t.Description, Tools: rt.AgentTools(t), Model: t.Model,
			Mode: string(t.Mode), Source: t.Source, Prompt: t.Prompt})
	}
	return out
}

// CreateAgent implements tui.Agents.
func (b *interactiveBackend) CreateAgent(name string, user bool) (string, error) {
	return b.runtime().CreateAgentFile(name, user)
}
