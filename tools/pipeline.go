package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// Checker is the permission decision point the pipeline consults.
type Checker interface {
	Check(ctx context.Context, req permission.Request) permission.Decision
	AllowAlways(rule string) error
}

// Call is one tool call from the model.
type Call struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// Typed says a person typed the call (the TUI's !cmd): it is their own
	// words, which the permission check takes into account.
	Typed bool `json:"typed,omitempty"`
}

// Outcome is what became of a call.
type Outcome struct {
	Call     Call                `json:"call"`
	Result   Result              `json:"result"`
	Decision permission.Decision `json:"decision"`
	// Denied is true when the call never ran because a hook, a rule, a mode
	// or a person said no.
	Denied bool `json:"denied,omitempty"`
	// SpillPath is where the full output went when it was too large.
	SpillPath string `json:"spill_path,omitempty"`
	// Paths are the files the call touched, as the permission check saw them.
	Paths    []permission.Access `json:"paths,omitempty"`
	Duration time.Duration       `json:"duration_ns"`
	// Hook is what hooks said of the call besides its result: notices
	// for the person, and whether the run must stop after it.
	Hook *HookNote `json:"hook,omitempty"`
	// Stopped says the person denied the call and stopped the run with
	// it (Approval.Stop): nothing runs after it.
	Stopped bool `json:"stopped,omitempty"`
}

// Pipeline is the one execution path of tool calls:
//
//	look up -> enabled? -> PreToolUse hooks -> validate input
//	 -> permission check (PermissionRequest hooks, then a person, when it
//	    asks) -> run -> PostToolUse hooks -> shape the result
//
// Input is validated before the check, so a call the model garbled is
// told so, not that it needs approval. The check is made again right
// before the call runs: a decision is about the world as it is then.
type Pipeline struct {
	Registry *Registry
	Checker  Checker
	Hooks    Hooks // nil means none
	// SpillThreshold is the output size above which results are spilled to
	// disk; 0 means DefaultSpillThreshold.
	SpillThreshold int
	// Mode, when set, is the permission mode this pipeline's calls run
	// in when it is narrower than the checker's (a subagent's pipeline):
	// see permission.Request.Mode.
	Mode permission.Mode
	// Worktree, when set, is the git worktree nova made for this
	// pipeline's calls (a subagent's isolation): see
	// permission.Request.Worktree.
	Worktree string

	// now is the clock a call's run is timed with; nil is time.Now (tests
	// replace it).
	now func() time.Time
}

func (p *Pipeline) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// Prepared is a call that has been looked up, passed the hooks and been
// checked, but not run. The streaming executor uses it to decide whether a
// call may start while the model is still talking.
type Prepared struct {
	p        *Pipeline
	env      *Env
	call     Call
	tool     Tool
	req      permission.Request
	decision permission.Decision
	done     *Outcome // set when the call ended before running
	// checked is the checker's own decision, kept when a person's answer
	// replaces decision: it says which files the check resolved.
	checked permission.Decision
	// fresh says the decision was just made and nothing has run since, so
	// Execute need not check again (a call started at once).
	fresh bool
	// hook is what PreToolUse hooks decided; hookAllowed says a hook
	// allowed the call (PreToolUse, or PermissionRequest later), which
	// every check of it is told.
	hook        HookVerdict
	hookAllowed bool
	// hookAsked says the ask is a PreToolUse hook's: it wants a person,
	// so PermissionRequest hooks do not answer it.
	hookAsked bool
	// hookContext is what hooks had the model told beside the result.
	hookContext []string
	hookNote    *HookNote
}

// Run takes call through the whole pipeline at once: nothing runs between
// its check and its execution.
func (p *Pipeline) Run(ctx context.Context, call Call, env *Env) Outcome {
	pr := p.Prepare(ctx, call, env)
	pr.fresh = true
	return pr.Execute(ctx)
}

// Prepare runs the steps before execution: look up, enabled, pre_tool_use
// hooks, input validation and a first permission check, from which the
// streaming executor decides whether the call may start at once.
func (p *Pipeline) Prepare(ctx context.Context, call Call, env *Env) *Prepared {
	pr := &Prepared{p: p, env: env, call: call}
	tool, enabled, ok := p.Registry.Get(call.Name)
	if !ok {
		pr.finish(Errorf("no tool named %q; available tools: %v", call.Name, p.Registry.Names()), permission.Decision{})
		return pr
	}
	if !enabled {
		pr.finish(Errorf("tool %s is disabled in this session", call.Name), permission.Decision{})
		return pr
	}
	pr.tool = tool
	if p.Hooks != nil {
		v := p.Hooks.PreToolUse(ctx, hookCall(tool, call, env))
		pr.hook, pr.hookAllowed = v, v.Decision == HookAllow
		pr.note(v)
		if v.Context != "" {
			pr.hookContext = append(pr.hookContext, v.Context)
		}
		if v.Decision == HookDeny {
			pr.deny(permission.Decision{Behavior: permission.Deny, Layer: permission.LayerHook, Reason: v.Reason}, "")
			return pr
		}
		if v.Input != nil {
			pr.call.Input = v.Input
		}
	}
	if err := p.Registry.validate(tool.Name(), pr.call.Input); err != nil {
		pr.finish(Errorf("%v. The call was not run; send it again with valid input.", err), permission.Decision{})
		return pr
	}
	pr.check(ctx)
	return pr
}

// check asks the checker about the call as the world is now: the request
// is made afresh (the shell's directory and variables, the files on disk).
func (pr *Prepared) check(ctx context.Context) {
	pr.req = requestFor(pr.tool, pr.call.Input, pr.env)
	pr.req.Typed = pr.call.Typed
	pr.req.HookAllowed = pr.hookAllowed
	pr.req.Mode = pr.p.Mode
	pr.req.Worktree = pr.p.Worktree
	pr.decision = pr.p.Checker.Check(ctx, pr.req)
	if pr.decision.Behavior == permission.Ask && pr.req.Note != "" {
		pr.decision.Reason += " (" + pr.req.Note + ")"
	}
	pr.checked = pr.decision
	if pr.decision.Behavior == permission.Deny {
		pr.deny(pr.decision, "")
		return
	}
	if pr.hook.Decision == HookAsk && pr.decision.Behavior == permission.Allow {
		// A hook's ask puts to a person what the check would allow; what
		// it would deny stays denied.
		reason := pr.hook.Reason
		if reason == "" {
			reason = "a PreToolUse hook asks for approval"
		}
		pr.decision = permission.Decision{Behavior: permission.Ask, Layer: permission.LayerHook, Reason: reason,
			Writes: pr.checked.Writes, Reads: pr.checked.Reads}
		pr.hookAsked = true
	}
}

// Decision is the permission decision made by Prepare.
func (pr *Prepared) Decision() permission.Decision { return pr.decision }

// Concurrent reports whether the call may start now, alongside others and
// while the model streams: it is allowed without asking and read-only.
// A call that starts now runs on the decision just made.
func (pr *Prepared) Concurrent() bool {
	ok := pr.done == nil && pr.decision.Behavior == permission.Allow
	if ct, is := pr.tool.(concurrentTool); is {
		ok = ok && ct.RunsBeside(pr.call.Input, pr.decision)
	} else {
		ok = ok && pr.tool.Kind() == permission.KindRead
	}
	pr.fresh = ok
	return ok
}

// concurrentTool is a tool that decides per call whether it may run beside
// others (Bash: a read-only command that changes no shell state).
type concurrentTool interface {
	RunsBeside(input json.RawMessage, d permission.Decision) bool
}

type decisionKey struct{}

type callKey struct{}

// CallOf returns the call a running tool is executing: a tool that
// reports progress names the call it reports for.
func CallOf(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

type approvedKey struct{}

// withDecision gives a running tool the decision that let it run.
func withDecision(ctx context.Context, d permission.Decision) context.Context {
	return context.WithValue(ctx, decisionKey{}, d)
}

// withApproval gives a running tool the decision that let it run, with
// the files it was let write as the check resolved them: a link inside the
// workspace to a file outside is written only if that file was judged.
func withApproval(ctx context.Context, d permission.Decision, checked permission.Decision) context.Context {
	return context.WithValue(withDecision(ctx, d), approvedKey{}, checked)
}

// approvedWrites are the files the running call was let write.
func approvedWrites(ctx context.Context) []string {
	d, _ := ctx.Value(approvedKey{}).(permission.Decision)
	return d.Writes
}

// approvedReads are the files the running call was let read, as the check
// resolved them; none when no check resolved any (a test's fake checker).
func approvedReads(ctx context.Context) []string {
	d, _ := ctx.Value(approvedKey{}).(permission.Decision)
	return d.Reads
}

// DecisionOf returns the permission decision that let the running call
// run; Bash uses it to switch off what an unasked command must not run.
func DecisionOf(ctx context.Context) (permission.Decision, bool) {
	d, ok := ctx.Value(decisionKey{}).(permission.Decision)
	return d, ok
}

// Execute checks the call again against the world as it is now (an
// earlier call may have changed the directory, the variables or the
// files), asks a person when the check says ask, runs the tool, runs
// post_tool_use hooks and shapes the result.
func (pr *Prepared) Execute(ctx context.Context) Outcome {
	if pr.done != nil {
		return *pr.done
	}
	if !pr.fresh {
		if pr.check(ctx); pr.done != nil {
			return *pr.done
		}
	}
	if pr.decision.Behavior == permission.Ask {
		if !pr.ask(ctx) {
			return *pr.done
		}
	}
	runCtx := context.WithValue(withApproval(ctx, pr.decision, pr.checked), callKey{}, pr.call)
	// A sandboxed command's hosts not allowed are asked through this
	// call's own ask path (shellhosts.go).
	runCtx = withHosts(runCtx, pr.p.Checker, pr.env.Ask, pr.call)
	// The duration is the tool's run: not the wait for the person's
	// approval, nor the hooks around it.
	start := pr.p.clock()
	res, err := runTool(runCtx, pr.tool, pr.call.Input, pr.env)
	took := pr.p.clock().Sub(start)
	if err != nil {
		res = Result{Output: err.Error(), IsError: true}
	}
	if ctx.Err() != nil && !res.IsError {
		res = Errorf("interrupted: %v", ctx.Err())
	}
	if pr.p.Hooks != nil {
		var v HookVerdict
		res, v = pr.p.Hooks.PostToolUse(ctx, hookCall(pr.tool, pr.call, pr.env), res)
		pr.note(v)
		if v.Context != "" {
			pr.hookContext = append(pr.hookContext, v.Context)
		}
	}
	res = pr.withHookContext(res)
	out := Outcome{Call: pr.call, Decision: pr.decision, Duration: took, Paths: pr.req.Paths, Hook: pr.hookNote}
	out.Result, out.SpillPath = pr.p.shape(pr.call, pr.req, res, pr.env)
	return out
}

// withHookContext adds to res what hooks had the model told, where Claude
// Code puts it: next to the call's result.
func (pr *Prepared) withHookContext(res Result) Result {
	if len(pr.hookContext) > 0 {
		res.Output = strings.TrimRight(res.Output, "\n") + "\n\n" + strings.Join(pr.hookContext, "\n\n")
	}
	return res
}

// runTool runs t, turning a panic inside a tool into an error result so one
// broken tool cannot take the session down.
func runTool(ctx context.Context, t Tool, input json.RawMessage, env *Env) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %s crashed: %v", t.Name(), r)
		}
	}()
	return t.Run(ctx, input, env)
}

// preview asks a Previewer what the call would do; a panic in it costs
// the preview, not the session.
func preview(ctx context.Context, pv Previewer, input json.RawMessage, env *Env) (d *display.Display, fail *Result) {
	defer func() {
		if recover() != nil {
			d, fail = nil, nil
		}
	}()
	return pv.Preview(ctx, input, env)
}

// readable reports whether the checker lets the model read, without
// asking, every file the call touches: a failure computed from them
// (a file that exists, a string it lacks) then reveals nothing.
func (pr *Prepared) readable(ctx context.Context) bool {
	if len(pr.req.Paths) == 0 {
		return false
	}
	req := permission.Request{Tool: "Read", Kind: permission.KindRead, Workdir: pr.req.Workdir, Mode: pr.req.Mode, Worktree: pr.req.Worktree}
	for _, a := range pr.req.Paths {
		req.Paths = append(req.Paths, permission.Access{Path: a.Path})
	}
	return pr.p.Checker.Check(ctx, req).Behavior == permission.Allow
}

// ask puts the call to PermissionRequest hooks, then to a person, and
// reports whether it may run.
func (pr *Prepared) ask(ctx context.Context) bool {
	var shown *display.Display
	if pv, ok := pr.tool.(Previewer); ok {
		var fail *Result
		shown, fail = preview(ctx, pv, pr.call.Input, pr.env)
		if fail != nil && pr.env.Ask != nil && pr.readable(ctx) {
			// The call cannot work whatever the answer: say so now rather
			// than ask a person to approve it (with nobody to ask, the
			// denial stands, as before). Only where the model may
			// read the file anyway, so the refusal tells it nothing that
			// a question would have guarded.
			pr.finish(*fail, pr.decision)
			return false
		}
	}
	if pr.p.Hooks != nil && !pr.hookAsked {
		if done, ok := pr.permissionHooks(ctx); done {
			return ok
		}
	}
	if pr.env.Ask == nil {
		d := pr.decision
		d.Behavior = permission.Deny
		d.Layer = permission.LayerAsk
		d.Reason = fmt.Sprintf("%s (nobody to approve it in this mode; allow it with --allowedTools or a permissions.allow rule)", pr.decision.Reason)
		pr.deny(d, "")
		return false
	}
	ask := PermissionAsk{CallID: pr.call.ID, Tool: pr.call.Name, Input: pr.call.Input, Decision: pr.decision, Preview: shown}
	ans := pr.env.Ask.AskPermission(ctx, ask)
	if ctx.Err() != nil {
		ans = Approval{Message: "interrupted"}
	}
	if !ans.Allow {
		d := permission.Decision{Behavior: permission.Deny, Layer: permission.LayerAsk, Reason: "the user denied it"}
		pr.deny(d, ans.Message)
		pr.done.Stopped = ans.Stop
		return false
	}
	if ans.Input != nil && !pr.replaceInput(ctx, ans.Input) {
		return false
	}
	pr.decision = permission.Decision{Behavior: permission.Allow, Layer: permission.LayerAsk, Reason: "the user allowed it"}
	if ans.Input != nil {
		pr.decision.Reason = "the user allowed it with a changed input"
	}
	if ans.Rule != "" {
		if err := pr.p.Checker.AllowAlways(ans.Rule); err != nil {
			pr.decision.Reason += fmt.Sprintf(" (could not save rule %s: %v)", ans.Rule, err)
		} else {
			pr.decision.Rule = ans.Rule
			pr.decision.Reason = "the user allowed it always (" + ans.Rule + ")"
		}
	}
	return true
}

// permissionHooks runs PermissionRequest hooks on a call the check asks
// about. done says they settled it, ok whether it may run. Their allow
// is a hook's allow, judged again by the check: a deny rule, a dangerous
// command or a sensitive path still stops it or still asks a person.
func (pr *Prepared) permissionHooks(ctx context.Context) (done, ok bool) {
	v := pr.p.Hooks.PermissionRequest(ctx, hookCall(pr.tool, pr.call, pr.env), pr.decision)
	pr.note(v)
	switch v.Decision {
	case HookDeny:
		reason := v.Reason
		if reason == "" {
			reason = "a PermissionRequest hook denied it"
		}
		pr.deny(permission.Decision{Behavior: permission.Deny, Layer: permission.LayerHook, Reason: reason}, "")
		return true, false
	case HookAllow:
		if v.Input != nil {
			if err := pr.p.Registry.validate(pr.tool.Name(), v.Input); err != nil {
				pr.finish(Errorf("a PermissionRequest hook rewrote the input, and %v. The call was not run.", err), permission.Decision{})
				return true, false
			}
			pr.call.Input = v.Input
		}
		pr.hookAllowed = true
		if pr.check(ctx); pr.done != nil {
			return true, false
		}
		return pr.decision.Behavior == permission.Allow, pr.decision.Behavior == permission.Allow
	}
	return false, false
}

func (pr *Prepared) deny(d permission.Decision, message string) {
	text := fmt.Sprintf("Permission to use %s was denied (%s layer): %s.", pr.call.Name, d.Layer, d.Reason)
	if message != "" {
		text += " The user says: " + message
	}
	pr.finish(Result{Output: text, IsError: true}, d)
	pr.done.Denied = true
}

func (pr *Prepared) finish(res Result, d permission.Decision) {
	pr.decision = d
	pr.done = &Outcome{Call: pr.call, Result: pr.withHookContext(res), Decision: d, Hook: pr.hookNote}
}
