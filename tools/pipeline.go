package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nova-dev/nova/permission"
)

// Checker is the permission decision point the pipeline consults.
type Checker interface {
	Check(ctx context.Context, req permission.Request) permission.Decision
	AllowAlways(rule string) error
}

// Hooks run around tool calls. A hook that fails must deny: a broken guard
// blocks, it never waves a call through.
type Hooks interface {
	// PreToolUse may deny the call or rewrite its input.
	PreToolUse(ctx context.Context, call Call) HookVerdict
	// PostToolUse sees the result before it is shaped; it may replace it.
	PostToolUse(ctx context.Context, call Call, res Result) Result
}

// HookVerdict is the outcome of pre_tool_use hooks.
type HookVerdict struct {
	Deny   bool
	Reason string
	// Input, when set, replaces the call's input.
	Input json.RawMessage
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
}

// Pipeline is the one execution path of tool calls:
//
//	look up -> enabled? -> pre_tool_use hooks -> validate input
//	 -> permission check -> run -> post_tool_use hooks -> shape the result
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
		v := p.Hooks.PreToolUse(ctx, call)
		if v.Deny {
			d := permission.Decision{Behavior: permission.Deny, Layer: permission.LayerHook, Reason: v.Reason}
			pr.deny(d, "")
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
	pr.decision = pr.p.Checker.Check(ctx, pr.req)
	if pr.decision.Behavior == permission.Ask && pr.req.Note != "" {
		pr.decision.Reason += " (" + pr.req.Note + ")"
	}
	pr.checked = pr.decision
	if pr.decision.Behavior == permission.Deny {
		pr.deny(pr.decision, "")
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
	start := time.Now()
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
	res, err := runTool(runCtx, pr.tool, pr.call.Input, pr.env)
	if err != nil {
		res = Result{Output: err.Error(), IsError: true}
	}
	if ctx.Err() != nil && !res.IsError {
		res = Errorf("interrupted: %v", ctx.Err())
	}
	if pr.p.Hooks != nil {
		res = pr.p.Hooks.PostToolUse(ctx, pr.call, res)
	}
	out := Outcome{Call: pr.call, Decision: pr.decision, Duration: time.Since(start), Paths: pr.req.Paths}
	out.Result, out.SpillPath = pr.p.shape(pr.call, pr.req, res, pr.env)
	return out
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

// ask puts the call to a person and reports whether it may run.
func (pr *Prepared) ask(ctx context.Context) bool {
	if pr.env.Ask == nil {
		d := pr.decision
		d.Behavior = permission.Deny
		d.Layer = permission.LayerAsk
		d.Reason = fmt.Sprintf("%s (nobody to approve it in this mode; allow it with --allowedTools or a permissions.allow rule)", pr.decision.Reason)
		pr.deny(d, "")
		return false
	}
	ans := pr.env.Ask.AskPermission(ctx, PermissionAsk{CallID: pr.call.ID, Tool: pr.call.Name, Input: pr.call.Input, Decision: pr.decision})
	if ctx.Err() != nil {
		ans = Approval{Message: "interrupted"}
	}
	if !ans.Allow {
		d := permission.Decision{Behavior: permission.Deny, Layer: permission.LayerAsk, Reason: "the user denied it"}
		pr.deny(d, ans.Message)
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
	pr.done = &Outcome{Call: pr.call, Result: res, Decision: d}
}
