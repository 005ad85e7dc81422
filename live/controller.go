package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
)

// BuildFunc makes a runtime from options: Build, or a frontend's
// wrapping of it (the CLI's adds a team's lead, --tools, -n).
type BuildFunc func(ctx context.Context, o Options) (*Runtime, error)

// Controller is one open session's operations, written once for every
// frontend: the terminal UI, nova serve's HTTP and WebSocket API and the
// SDK protocol call it and only translate keys or JSON into its calls
// (ops.go has the operations that keep the runtime; this file those
// that replace it).
//
// Switching the model, /clear, /resume, /fork and removing a rule
// replace the runtime: the old one is closed (its session's lock
// released, its background work ended) and a new one built with the same
// options, carrying on with the same session where the operation keeps
// it, and with the permission mode the person chose.
type Controller struct {
	ctx   context.Context
	build BuildFunc
	// base is how runtimes are built: the first one's options, less the
	// one-offs of its start (resume, fork, --session-id).
	base Options
	// bypassOK says the mode may be set to bypassPermissions: the session
	// started in it, or the command line allowed it.
	bypassOK bool

	mu sync.Mutex
	rt *Runtime
	// made says rt's session was created by this controller (not
	// resumed): left empty, it is removed when rt is replaced or closed.
	made bool
	// carried is what the session's earlier runtimes used (a model switch
	// replaces the runtime, not the session).
	carried Spent
	// replacing, when set (a Host's controller), is told the session
	// whose runtime is about to be closed and replaced; settled is called
	// once the next runtime is in place, or the replacement failed.
	replacing func(id string) (settled func())
	// menu is the skill commands last listed (ops_more.go).
	menu skillMenu
	// branch is the workspace's git branch last read (ops_more_status.go).
	branch branchCache
	// changed tells watchers of a model or mode change (changes.go).
	changed changes
	// grants are the session's allow rules, given again to each runtime
	// (grants.go).
	grants sessionGrants
}

// NewController builds the first runtime from o with build (nil: Build).
func NewController(ctx context.Context, o Options, build BuildFunc) (*Controller, error) {
	if build == nil {
		build = Build
	}
	rt, err := build(ctx, o)
	if err != nil {
		return nil, err
	}
	return newController(ctx, o, build, rt, o.Resume == "" && !o.Continue), nil
}

// ControllerFor is the controller of rt, a runtime already built from o
// (a server's session): later runtimes are built with build.
func ControllerFor(ctx context.Context, o Options, build BuildFunc, rt *Runtime) *Controller {
	if build == nil {
		build = Build
	}
	return newController(ctx, o, build, rt, false)
}

func newController(ctx context.Context, o Options, build BuildFunc, rt *Runtime, made bool) *Controller {
	// Started in bypassPermissions by the flag or by a settings file's
	// defaultMode: the session may go back to it.
	started := o.PermissionMode == string(permission.ModeBypass) || rt.Checker.Mode() == permission.ModeBypass
	c := &Controller{ctx: ctx, build: build, base: o, rt: rt, made: made, bypassOK: started || o.AllowBypass}
	c.base.Resume, c.base.Continue, c.base.ForkSession, c.base.SessionID, c.base.SessionSource = "", false, false, "", ""
	return c
}

// Runtime is the current runtime. A caller keeps it no longer than one
// operation: the next may replace it.
func (c *Controller) Runtime() *Runtime {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rt
}

// Close closes the current runtime, telling SessionEnd hooks reason
// ("prompt_input_exit", "other" when ""). A session this controller made
// in which nothing was said is removed.
func (c *Controller) Close(reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rt.EndReason = reason
	return c.closeLocked(false)
}

// closeLocked closes the current runtime. A session this controller
// created in which nothing was said (opened and quit, a /clear right
// after start) is removed, so no empty session is listed or resumed;
// unless kept says the next runtime carries it on (a model switch).
func (c *Controller) closeLocked(kept bool) error {
	rt := c.rt
	// The agent's history too: a message a full disk kept out of the
	// transcript is still the person's, written at Close if it can be.
	id, empty := rt.Session.ID(), rt.Session.Meta().MessageCount == 0 && len(rt.Agent.History()) == 0
	err := rt.Close()
	if c.made && empty && !kept {
		_ = session.NewStore(rt.NovaHome).Delete(id)
	}
	return err
}

// idleLocked is ErrBusy while the current runtime's session runs: the
// terminal waits for the run, a server answers 409.
func (c *Controller) idleLocked() error {
	if c.rt.Live.Busy() {
		return ErrBusy
	}
	return nil
}

// rebuild replaces the runtime with one built from o, keeping the
// permission mode the person chose; endReason is what the old session's
// SessionEnd hooks are told. When the build fails a new session is
// started, so the frontend keeps a working agent, and the error says so.
func (c *Controller) rebuild(o Options, endReason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.idleLocked(); err != nil {
		return err
	}
	if c.replacing != nil {
		defer c.replacing(c.rt.Session.ID())()
	}
	mode := c.rt.Checker.Mode()
	c.rt.EndReason = endReason
	same := o.Resume == c.rt.Session.ID() && !o.ForkSession
	if same {
		c.carried.add(c.rt)
	} else {
		c.carried = Spent{}
	}
	_ = c.closeLocked(same)
	rt, err := c.build(c.ctx, o)
	if err != nil {
		fresh := c.base
		rt2, err2 := c.build(c.ctx, fresh)
		if err2 != nil {
			return fmt.Errorf("%v; and a new session could not be started: %v", err, err2)
		}
		c.rt, c.made, c.carried = rt2, true, Spent{}
		return err
	}
	rt.Checker.SetMode(mode)
	if same {
		c.grants.regrant(rt)
	} else {
		c.grants.reset() // another session: the grants were the old one's
	}
	c.made = (same && c.made) || o.Resume == ""
	c.rt = rt
	c.base.Model = o.Model
	c.changed.tell()
	return nil
}

// current is the options that rebuild the current session as it is.
func (c *Controller) current() Options {
	o := c.base
	o.Resume = c.Runtime().Session.ID()
	return o
}

// Clear starts a new session in place of the current one (/clear).
func (c *Controller) Clear() error {
	o := c.base
	o.SessionSource = "clear"
	return c.rebuild(o, "clear")
}

// Resume carries on with session id (an id or a unique prefix) in place
// of the current one.
func (c *Controller) Resume(id string) error {
	o := c.base
	o.Resume = id
	return c.rebuild(o, "resume")
}

// Reload builds the current session again in place, its history kept:
// settings, plugins, skills, agents and hooks changed since it was built
// are read anew (a plugin installed from the terminal UI loads at once).
func (c *Controller) Reload() error {
	return c.rebuild(c.current(), "other")
}

// Fork carries on from the current session's history in a new session,
// leaving the current one as it was.
func (c *Controller) Fork() error {
	o := c.current()
	o.ForkSession = true
	return c.rebuild(o, "other")
}

// Sessions are the sessions of the current workspace, newest first.
func (c *Controller) Sessions() ([]session.Meta, error) {
	rt := c.Runtime()
	return session.NewStore(rt.NovaHome).List(session.Filter{Workspace: rt.Workdir, Limit: 50})
}

// Models is the one model list every frontend offers (the TUI's /model,
// GET /api/models, the SDK's initialize): every configured model (those
// of config.json, and the current models nova knows of each Anthropic
// and OpenAI provider, from config.json or the environment), and the
// model in use when it is none of them.
func (c *Controller) Models() []string {
	rt := c.Runtime()
	return KnownModels(rt.NovaHome, c.base.Getenv, rt.Selection.ID())
}

// ModelEntries are Models each named and priced (the terminal's /model
// dialog), the model in use among them, and def, the model a new
// session gets (config.json's default_model, or the first provider's).
func (c *Controller) ModelEntries() (entries []config.ModelEntry, def string) {
	rt := c.Runtime()
	getenv := c.base.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	file, err := config.LoadFile(rt.NovaHome)
	if err != nil {
		return nil, ""
	}
	providers := config.Providers(file, getenv)
	if sel, err := config.Select(providers, file, "", getenv); err == nil {
		def = sel.ID()
	}
	entries = config.ModelEntries(file, providers)
	if !slices.ContainsFunc(entries, func(e config.ModelEntry) bool { return e.ID == rt.Selection.ID() }) {
		entries = append(entries, config.Describe(file, rt.Selection))
	}
	return entries, def
}

// KnownModels is Controller.Models for a NOVA_HOME and environment, with
// current (when not "") added when it is in no list.
func KnownModels(novaHome string, getenv func(string) string, current string) []string {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var ids []string
	if file, err := config.LoadFile(novaHome); err == nil {
		ids = config.KnownModels(config.Providers(file, getenv), false)
	}
	if current != "" && !slices.Contains(ids, current) {
		ids = append(ids, current)
	}
	return ids
}

// UnknownModelError is a model switch to a name no provider has.
type UnknownModelError struct {
	Model string
	// Known are the models the session could switch to (Models).
	Known []string
	Err   error
}

// Error says what was asked and what there is.
func (e *UnknownModelError) Error() string {
	return fmt.Sprintf("%v (known models: %s)", e.Err, strings.Join(e.Known, ", "))
}

// Unwrap returns the cause.
func (e *UnknownModelError) Unwrap() error { return e.Err }

// SetModel carries the session on with model id ("provider:model" or an
// alias). The name is checked first, as --model's is (an alias resolves;
// an unknown name is an *UnknownModelError listing the known ones), so a
// typo never costs the session its runtime.
func (c *Controller) SetModel(id string) error {
	rt := c.Runtime()
	o := c.current()
	o.Model = id
	file, err := config.LoadFile(rt.NovaHome)
	if err != nil {
		return err
	}
	sel, _, err := SelectModel(c.ctx, o, file)
	if err != nil {
		return &UnknownModelError{Model: id, Known: c.Models(), Err: errors.New(strings.Replace(err.Error(), "--model "+id, "model "+id, 1))}
	}
	o.Model = sel.ID()
	return c.rebuild(o, "other")
}

// Spent is the tokens and cost of a session's runtimes in this process.
type Spent struct {
	Usage llm.Usage
	Cost  float64
	// Unpriced says some of Usage was a model's whose prices are unknown.
	Unpriced bool
}

// add adds what the agent of rt used.
func (s *Spent) add(rt *Runtime) {
	u := rt.Agent.Usage()
	s.Usage.Add(u)
	cost, ok := rt.Agent.Cost()
	s.Cost += cost
	s.Unpriced = s.Unpriced || (!ok && u != (llm.Usage{}))
}

// Spent is what the session used since this controller opened it,
// across model switches; Unpriced when a model without prices was used.
func (c *Controller) Spent() Spent {
	c.mu.Lock()
	rt, now := c.rt, c.carried
	c.mu.Unlock()
	now.add(rt)
	return now
}
