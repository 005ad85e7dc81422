package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/mcp"
)

// The operations of a session that keep its runtime (controller.go has
// those that replace it).

// ErrBypassRefused is a switch to bypassPermissions the caller may not
// make: a remote client (whoever holds the token is not the person at
// the terminal), or a session not started in it nor allowed it.
var ErrBypassRefused = errors.New("bypassPermissions cannot be entered from here")

// Mode is the session's permission mode.
func (c *Controller) Mode() permission.Mode { return c.Runtime().Checker.Mode() }

// SetMode sets the permission mode, the one setter every frontend uses.
// bypassPermissions is entered only when remote is false and the session
// may (started in it, or Options.AllowBypass), and never by root without
// the sandbox (permission.CheckStartup, as at start).
func (c *Controller) SetMode(mode string, remote bool) (permission.Mode, error) {
	m, ok := permission.ParseMode(mode)
	if !ok {
		return "", fmt.Errorf("permission mode %q: nova has default, acceptEdits, plan and bypassPermissions", mode)
	}
	rt := c.Runtime()
	if m == permission.ModeBypass {
		switch {
		case remote:
			return "", fmt.Errorf("%w: a remote client may not turn every permission check off; switch to it in the terminal", ErrBypassRefused)
		case !c.bypassOK:
			return "", fmt.Errorf("%w: the session must be started in it or with --allow-dangerously-skip-permissions (the SDK's allowDangerouslySkipPermissions)", ErrBypassRefused)
		}
		if err := rt.CanBypass(); err != nil {
			return "", err
		}
	}
	rt.Checker.SetMode(m)
	c.changed.tell()
	return m, nil
}

// CanBypass says why rt may not enter bypassPermissions, nil when it may:
// a settings file's permissions.disableBypassPermissionsMode, or root
// without the sandbox (permission.CheckStartup). Every frontend's mode
// switch asks it.
func (rt *Runtime) CanBypass() error {
	if rt.Setup != nil {
		if err := rt.Setup.Settings.BypassDisabled(); err != nil {
			return fmt.Errorf("%w: %v", ErrBypassRefused, err)
		}
	}
	return permission.CheckStartup(permission.ModeBypass, rt.Env.Sandbox != nil, os.Geteuid())
}

// CycleMode moves to the next mode (the terminal's shift+tab): default,
// acceptEdits, plan, and bypassPermissions only when the session was
// started in it (it is never entered by accident).
func (c *Controller) CycleMode() permission.Mode {
	rt := c.Runtime()
	modes := []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan}
	if c.base.PermissionMode == string(permission.ModeBypass) {
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
	c.changed.tell()
	return next
}

// Compact summarises the session's history now (/compact), steered by
// instructions, in the session's run slot: its compaction event is on
// the stream of whoever watches, and it is ErrBusy while a run goes on.
func (c *Controller) Compact(ctx context.Context, instructions string) error {
	return c.compact(ctx, instructions, false, nil)
}

// TerminalCompact is Compact for the frontend that drives the session in
// this process (the terminal UI), which shows the compaction itself: its
// run is Local (RunRef.Local), so a terminal shared with browsers does
// not show it a second time as a browser's run.
func (c *Controller) TerminalCompact(ctx context.Context, instructions string) error {
	return c.compact(ctx, instructions, true, nil)
}

// CompactWatched is Compact whose run is handed to watch as it starts.
func (c *Controller) CompactWatched(ctx context.Context, instructions string, watch Watch) error {
	return c.compact(ctx, instructions, false, watch)
}

func (c *Controller) compact(ctx context.Context, instructions string, local bool, watch Watch) error {
	rt := c.Runtime()
	var err error
	if oerr := c.op(ctx, rt, llm.UserText("/compact "+instructions), local, watch, func(rctx context.Context) <-chan agent.Event {
		return rt.Agent.CompactRun(rctx, instructions, &err)
	}); oerr != nil {
		return oerr
	}
	return err
}

// Shell runs the person's own command ("!cmd") in the session's run
// slot, through the session's one pipeline (agent.Agent.Shell): a deny
// rule, a dangerous command and plan mode still stop it, an ask is the
// session's ask on the stream, and what it printed is in the session's
// messages when it returns. It is ErrBusy while a run goes on.
func (c *Controller) Shell(ctx context.Context, command string) (agent.ShellOutcome, error) {
	return c.shell(ctx, command, false, nil)
}

// TerminalShell is Shell for the frontend that drives the session in
// this process (the terminal UI), which shows the command and its output
// itself: its run is Local (RunRef.Local), so a terminal shared with
// browsers does not show it a second time as a browser's run.
func (c *Controller) TerminalShell(ctx context.Context, command string) (agent.ShellOutcome, error) {
	return c.shell(ctx, command, true, nil)
}

// ShellWatched is Shell whose run is handed to watch as it starts.
func (c *Controller) ShellWatched(ctx context.Context, command string, watch Watch) (agent.ShellOutcome, error) {
	return c.shell(ctx, command, false, watch)
}

func (c *Controller) shell(ctx context.Context, command string, local bool, watch Watch) (agent.ShellOutcome, error) {
	if strings.TrimSpace(command) == "" {
		return agent.ShellOutcome{}, errors.New("shell: no command")
	}
	rt := c.Runtime()
	var out agent.ShellOutcome
	err := c.op(ctx, rt, llm.UserText("!"+command), local, watch, func(rctx context.Context) <-chan agent.Event {
		return rt.Agent.Shell(rctx, command, &out)
	})
	return out, err
}

// Watch is handed an operation's run as it starts (ShellWatched,
// CompactWatched): the session and a relay's subscription from the run's
// first frame (Log.Follow: it does not make the run count as watched),
// which the watcher reads to its end. nova serve relays it to the
// session's SSE stream, so a client of that stream sees the op's events
// (and answers its asks) as a chat run's.
type Watch func(sess *Session, sub *Sub[agent.Event], replay []Frame[agent.Event])

// op runs fn in rt's run slot as a run shown as input, and follows it to
// its end; watch, when not nil, gets the run as it starts.
func (c *Controller) op(ctx context.Context, rt *Runtime, input llm.Message, local bool, watch Watch, fn func(context.Context) <-chan agent.Event) error {
	sub, ref, err := rt.Live.start(input, false, local, fn)
	if err != nil {
		return err
	}
	if watch != nil && ref != nil && ref.log != nil {
		wsub, replay, _ := ref.log.Follow(0)
		watch(rt.Live, wsub, replay)
	}
	return drain(ctx, rt, sub.C())
}

// drain follows an op's frames to its end; ctx ending interrupts it.
func drain(ctx context.Context, rt *Runtime, frames <-chan Frame[agent.Event]) error {
	for {
		select {
		case _, ok := <-frames:
			if !ok {
				return nil
			}
		case <-ctx.Done():
			rt.Live.Interrupt()
			for range frames {
			}
			return ctx.Err()
		}
	}
}

// Rule is one permission rule in force, with where it comes from.
type Rule struct {
	Behavior permission.Behavior `json:"behavior"`
	Rule     string              `json:"rule"`
	// Source is the settings file the rule is in, "--allowedTools",
	// "session" (an "always" answer) or a grant's name.
	Source string `json:"source"`
	// Layer names a settings file's layer: "user", "project", "local",
	// "settings" (another loaded file: --settings'); "" for the others.
	Layer string `json:"layer,omitempty"`
	// ClaudeCode says the file is one of Claude Code's, which nova reads
	// and never edits; Layer is its layer.
	ClaudeCode bool `json:"claude_code,omitempty"`
	// Removable says RemoveRule can take it out of its file: nova's own
	// settings files only.
	Removable bool `json:"removable,omitempty"`
}

// Rules are the rules the session's checker enforces, each with its
// source: exactly what it was built with (every settings layer,
// --settings and --setting-sources included, the command line's) and
// what was added since, allow then ask then deny.
func (c *Controller) Rules() []Rule {
	rt := c.Runtime()
	files := config.SettingsFiles(rt.NovaHome, rt.Workdir)
	layers := map[string]string{}
	claude := map[string]bool{}
	if rt.Setup != nil {
		for _, f := range rt.Setup.Files {
			layers[f] = "settings"
		}
		for _, cr := range rt.Setup.Settings.Claude {
			layers[cr.File], claude[cr.File] = cr.Layer, true
		}
	}
	if len(files) >= 3 {
		layers[files[0]], layers[files[1]], layers[files[2]] = config.SourceUser, config.SourceProject, config.SourceLocal
	}
	var out []Rule
	for _, r := range rt.Checker.Rules() {
		rule := Rule{Behavior: r.Behavior, Rule: r.Rule, Source: r.Source, Layer: layers[r.Source], ClaudeCode: claude[r.Source]}
		rule.Removable = slices.Contains(files, r.Source)
		out = append(out, rule)
	}
	return out
}

// AddRule adds rule to the behavior's list ("allow", "ask" or "deny") of
// the project's .nova/settings.local.json, and carries the session on
// with a checker built with it.
func (c *Controller) AddRule(behavior permission.Behavior, rule string) error {
	if _, err := permission.ParseRule(rule); err != nil {
		return err
	}
	rt := c.Runtime()
	dir := cmp.Or(c.base.ProjectDir, rt.Workdir)
	if err := config.AddLocalRule(dir, string(behavior), rule); err != nil {
		return err
	}
	if err := c.rebuild(c.current(), "other"); err != nil {
		return fmt.Errorf("added %s, but the session could not be reloaded: %w", rule, err)
	}
	return nil
}

// RemoveRule takes r out of its settings file and carries the session on
// with a checker built without it.
func (c *Controller) RemoveRule(r Rule) error {
	if r.ClaudeCode {
		return fmt.Errorf("%s is in Claude Code's settings (%s), which nova only reads: remove it there", r.Rule, r.Source)
	}
	if !r.Removable || !filepath.IsAbs(r.Source) {
		return fmt.Errorf("%s comes from %s, not a settings file: start nova without it to drop it", r.Rule, r.Source)
	}
	if !slices.ContainsFunc(c.Rules(), func(x Rule) bool { return x.Source == r.Source && x.Rule == r.Rule && x.Removable }) {
		return fmt.Errorf("%s is not a rule of %s in force", r.Rule, r.Source)
	}
	if err := config.RemoveRule(r.Source, string(r.Behavior), r.Rule); err != nil {
		return err
	}
	if err := c.rebuild(c.current(), "other"); err != nil {
		return fmt.Errorf("removed %s from %s, but the session could not be reloaded: %w", r.Rule, r.Source, err)
	}
	return nil
}

// Memory describes the instruction files in effect and the auto memory
// file (/memory).
func (c *Controller) Memory() (string, error) {
	rt := c.Runtime()
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

// appliesTo says when a conditional instruction file (a rule with
// paths:) is read, "" for the others.
func appliesTo(f memory.File) string {
	if !f.Conditional() {
		return ""
	}
	return " (when a tool touches " + strings.Join(f.Paths, ", ") + ")"
}

// MemoryFiles are the auto memory file, created with a heading when
// missing so an editor has something to open, then the instruction files
// in effect.
func (c *Controller) MemoryFiles() ([]string, error) {
	rt := c.Runtime()
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

// MCPDisabled is the state of a configured MCP server that does not
// start (declined, disabled by a setting, or its config is wrong).
const MCPDisabled mcp.State = "disabled"

// MCPStatus is how the session's MCP servers stand, then the configured
// servers that do not start (MCPDisabled), each with why.
func (c *Controller) MCPStatus() []mcp.Status {
	rt := c.Runtime()
	var out []mcp.Status
	if rt.MCP != nil {
		out = rt.MCP.Statuses()
	}
	for _, d := range rt.MCPDisabled {
		out = append(out, mcp.Status{Name: d.Name, Target: MCPServer(d, rt.Workdir).Target(), State: MCPDisabled, Error: d.Problem})
	}
	return out
}

// ReconnectMCP starts the session's MCP server name again (/mcp
// reconnect), within two minutes, and says how it stands then.
func (c *Controller) ReconnectMCP(ctx context.Context, name string) (mcp.Status, error) {
	rt := c.Runtime()
	if rt.MCP == nil {
		return mcp.Status{}, errors.New("no MCP servers in this session")
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := rt.MCP.Reconnect(ctx, name); err != nil {
		return mcp.Status{}, err
	}
	for _, st := range rt.MCP.Statuses() {
		if st.Name == name {
			return st, nil
		}
	}
	return mcp.Status{Name: name}, nil
}
