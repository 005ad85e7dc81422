package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
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
	rt := b.runtime()
	notices := rt.Warnings
	if len(rt.Ignored) > 0 {
		notices = append(notices, ignoredNotice(rt))
	}
	// Project MCP servers waiting for approval get no notice: the TUI
	// asks about each in a dialog as it starts (tui.MCPServers).
	screen := opts.screen
	if screen == "" && rt.Setup != nil && rt.Setup.Settings != nil {
		screen = rt.Setup.Settings.Screen // checked when the file was read
	}
	return tui.Run(ctx, b, tui.Options{In: opts.io.In, Out: opts.io.Out, Prompt: opts.prompt, Notices: notices, Editor: editor, Screen: screen})
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

// interactiveBackend implements tui.Backend on a live.Controller: every
// operation on the session (the run, model, mode, /clear, /resume,
// /compact, !cmd, rules, memory, MCP, status, history, skills, agents,
// @file, the status line, /team, a shared session's runs) is the
// controller's, the one implementation nova serve and the SDK call too;
// these files only translate them into the TUI's types.
type interactiveBackend struct {
	ctx  context.Context
	io   *IOStreams
	opts buildOptions
	ctl  *live.Controller

	// sharing is /remote's (interactive_remote.go).
	sharing sharing
}

// newInteractiveBackend builds the first runtime from o, as the terminal
// UI's: asks and questions are put to the person.
func newInteractiveBackend(ctx context.Context, s *IOStreams, o buildOptions) (*interactiveBackend, error) {
	o.interactive, o.titleFromModel = true, true
	novaHome, workdir, err := locate(s)
	if err != nil {
		return nil, err
	}
	ctl, err := live.NewController(ctx, o.live(s, novaHome, workdir), o.builder(s))
	if err != nil {
		return nil, err
	}
	return &interactiveBackend{ctx: ctx, io: s, opts: o, ctl: ctl}, nil
}

// Close releases the current runtime (a title call still running writes
// the fallback title as it closes); an empty session this process made
// is removed.
func (b *interactiveBackend) Close() {
	_ = b.StopRemote() // before the runtime it serves closes
	_ = b.ctl.Close("prompt_input_exit")
}

// runtime is the controller's current runtime, for one call.
func (b *interactiveBackend) runtime() *live.Runtime { return b.ctl.Runtime() }

// Run implements tui.Backend (live.Controller.Run).
func (b *interactiveBackend) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	return b.ctl.Run(ctx, input)
}

// Compact implements tui.Backend.
func (b *interactiveBackend) Compact(ctx context.Context, instructions string) error {
	return b.ctl.TerminalCompact(ctx, instructions)
}

// Status implements tui.Backend (live.Controller.Status).
func (b *interactiveBackend) Status() tui.Status {
	st := b.ctl.Status()
	return tui.Status{Model: st.Model, Mode: st.Mode, Cwd: st.Cwd, Home: st.Home, Branch: st.Branch,
		SessionID: st.SessionID, Usage: st.Usage, CostUSD: st.CostUSD, Context: st.Context}
}

// CycleMode implements tui.Backend (live.Controller.CycleMode).
func (b *interactiveBackend) CycleMode() permission.Mode { return b.ctl.CycleMode() }

// NewSession implements tui.Backend (/clear).
func (b *interactiveBackend) NewSession() error { return b.ctl.Clear() }

// Sessions implements tui.Backend: the sessions of this directory.
func (b *interactiveBackend) Sessions() ([]session.Meta, error) { return b.ctl.Sessions() }

// Resume implements tui.Backend.
func (b *interactiveBackend) Resume(id string) error { return b.ctl.Resume(id) }

// History implements tui.Backend (live.Controller.History).
func (b *interactiveBackend) History() []llm.Message { return b.ctl.History() }

// Shell implements tui.Backend for "!cmd" (live.Controller's Shell: a
// Bash call through the session's one pipeline, marked as typed by the
// person; deny rules, dangerous commands and plan mode still stop it).
func (b *interactiveBackend) Shell(ctx context.Context, command string) (string, error) {
	out, err := b.ctl.TerminalShell(ctx, command)
	if err != nil {
		return "", err
	}
	if out.Denied {
		return "", errors.New(out.Reason)
	}
	return out.Output, nil
}

// ReadMentionedFile implements tui.FileMentions
// (live.Controller.ReadMentionedFile): a word that names no file is not
// a mention.
func (b *interactiveBackend) ReadMentionedFile(ctx context.Context, path string) (string, bool, error) {
	text, err := b.ctl.ReadMentionedFile(ctx, path)
	if errors.Is(err, live.ErrNotAFile) {
		return "", false, nil
	}
	return text, err == nil, err
}

// Models implements tui.ModelSwitcher (live.Controller.Models).
func (b *interactiveBackend) Models() []string { return b.ctl.Models() }

// SetModel implements tui.ModelSwitcher: the session carries on with the
// new model (live.Controller.SetModel); an unknown name is refused with
// the known ones, as /model's.
func (b *interactiveBackend) SetModel(id string) error {
	err := b.ctl.SetModel(id)
	var unknown *live.UnknownModelError
	if errors.As(err, &unknown) {
		return errors.New("/" + unknown.Err.Error())
	}
	return err
}

// HasStatusLine implements tui.StatusCommand (live.Controller.HasStatusLine).
func (b *interactiveBackend) HasStatusLine() bool { return b.ctl.HasStatusLine() }

// StatusLine implements tui.StatusCommand (live.Controller.StatusLine).
func (b *interactiveBackend) StatusLine(ctx context.Context, s tui.Status) (string, error) {
	return b.ctl.StatusLine(ctx, live.StatusLineInput{CostUSD: s.CostUSD, Context: s.Context})
}

// Doctor implements tui.Doctor.
func (b *interactiveBackend) Doctor() (string, error) {
	var buf bytes.Buffer
	o := b.opts
	o.model = b.runtime().Selection.ID() // /model's, when it switched
	err := runDoctor(b.ctx, b.io, &buf, o)
	return buf.String(), err
}

// Team implements tui.Team (live.Controller.Team).
func (b *interactiveBackend) Team() (string, error) { return b.ctl.Team() }

// Memory implements tui.Memory (live.Controller.Memory).
func (b *interactiveBackend) Memory() (string, error) { return b.ctl.Memory() }

// MemoryFiles implements tui.Memory (live.Controller.MemoryFiles).
func (b *interactiveBackend) MemoryFiles() ([]string, error) { return b.ctl.MemoryFiles() }

// waitTitle waits for the title call in progress, if any, to finish on
// its own.
func (b *interactiveBackend) waitTitle() { b.runtime().WaitTitle() }

// Rules implements tui.RuleEditor: the rules the session's checker
// enforces (live.Controller.Rules), each source shortened for people.
func (b *interactiveBackend) Rules() ([]tui.RuleInfo, error) {
	var out []tui.RuleInfo
	for _, r := range b.ctl.Rules() {
		out = append(out, b.ruleInfo(r))
	}
	return out, nil
}

// ruleInfo is r as the terminal's rule list shows it.
func (b *interactiveBackend) ruleInfo(r live.Rule) tui.RuleInfo {
	rt := b.runtime()
	info := tui.RuleInfo{Behavior: r.Behavior, Rule: r.Rule, Source: r.Source, Removable: r.Removable}
	switch {
	case r.ClaudeCode:
		// Shown with their layer, never edited: Claude Code's files,
		// which nova only reads.
		info.Source = r.Layer + " (Claude Code) " + displayPath(r.Source, rt.Workdir, rt.Home)
	case r.Layer != "" && filepath.IsAbs(r.Source):
		info.Source = r.Layer + " " + displayPath(r.Source, rt.Workdir, rt.Home)
	}
	if r.Removable {
		info.Path = r.Source
	}
	return info
}

// RemoveRule implements tui.RuleEditor (live.Controller.RemoveRule: the
// session carries on, its mode kept, with a checker built without it).
// The rule shown is found among those in force, so the controller alone
// decides what may be removed (Claude Code's files and the command line's
// rules may not).
func (b *interactiveBackend) RemoveRule(r tui.RuleInfo) error {
	for _, lr := range b.ctl.Rules() {
		if b.ruleInfo(lr) == r {
			return b.ctl.RemoveRule(lr)
		}
	}
	return fmt.Errorf("%s (%s) is no longer a rule in force", r.Rule, r.Source)
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

// AgentTypes implements tui.Agents (live.Controller.AgentTypes).
func (b *interactiveBackend) AgentTypes() []tui.AgentType {
	var out []tui.AgentType
	for _, t := range b.ctl.AgentTypes() {
		out = append(out, tui.AgentType(t))
	}
	return out
}

// CreateAgent implements tui.Agents (live.Controller.CreateAgent).
func (b *interactiveBackend) CreateAgent(name string, user bool) (string, error) {
	return b.ctl.CreateAgent(name, user)
}
