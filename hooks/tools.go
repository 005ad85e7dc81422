package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
)

// Tools returns the engine as the tool pipeline's hooks: PreToolUse,
// PermissionRequest, PostToolUse and PostToolUseFailure, for every tool,
// built-in or MCP, in the main agent and (when they land) in subagents.
func (e *Engine) Tools() tools.Hooks { return toolHooks{e} }

type toolHooks struct{ e *Engine }

// PreToolUse implements tools.Hooks.
func (t toolHooks) PreToolUse(ctx context.Context, call tools.Call) tools.HookVerdict {
	return verdict(t.e.Fire(ctx, ToolInput(call.Name, call.Input, call.ID)))
}

// PermissionRequest implements tools.Hooks.
func (t toolHooks) PermissionRequest(ctx context.Context, call tools.Call, d permission.Decision) tools.HookVerdict {
	return verdict(t.e.Fire(ctx, PermissionInput(call.Name, call.Input, d.Suggestions)))
}

// PostToolUse implements tools.Hooks: PostToolUseFailure for a call that
// failed (an error result, or a Bash command that exited non-zero, as
// Claude Code counts it), PostToolUse otherwise.
func (t toolHooks) PostToolUse(ctx context.Context, call tools.Call, res tools.Result) (tools.Result, tools.HookVerdict) {
	if ctx.Err() != nil {
		// A call cancelled with its run fires neither, as in Claude Code:
		// the run is over, and its hooks would be stopped at once.
		return res, tools.HookVerdict{}
	}
	var o Outcome
	if errText, failed := failure(res); failed {
		if !t.e.hasFor(ctx, PostToolUseFailure) {
			return res, tools.HookVerdict{}
		}
		interrupted := strings.HasSuffix(res.Output, "Command was interrupted")
		o = t.e.Fire(ctx, FailureInput(call.Name, call.Input, call.ID, errText, interrupted))
	} else {
		if !t.e.hasFor(ctx, PostToolUse) {
			return res, tools.HookVerdict{}
		}
		o = t.e.Fire(ctx, PostToolInput(call.Name, call.Input, call.ID, response(call.Name, res)))
		if o.Output != nil {
			res = replaceOutput(call.Name, res, o.Output, &o)
		}
	}
	return res, verdict(o)
}

// verdict is o as the pipeline takes it.
func verdict(o Outcome) tools.HookVerdict {
	v := tools.HookVerdict{Input: o.Input, Notices: o.Notices, Stop: o.Stop, StopReason: o.StopReason, Context: strings.Join(o.Context, "\n\n")}
	switch o.Permission {
	case "deny":
		v.Decision, v.Reason = tools.HookDeny, o.Reason
	case "ask":
		v.Decision, v.Reason = tools.HookAsk, o.PermissionReason
	case "allow":
		v.Decision, v.Reason = tools.HookAllow, o.PermissionReason
	}
	if o.Block && v.Decision != tools.HookDeny {
		v.Decision, v.Reason = tools.HookDeny, o.Reason
	}
	return v
}

// bashCommand is the command display of a Bash result, or nil.
func bashCommand(res tools.Result) *display.Command {
	if res.Display == nil || res.Display.Kind != display.KindCommand {
		return nil
	}
	return res.Display.Command
}

// failure says whether res is a failure and what its error is, as Claude
// Code's PostToolUseFailure gives it ("Exit code N" first for a command).
func failure(res tools.Result) (string, bool) {
	if c := bashCommand(res); c != nil && c.ExitCode != 0 && c.Background == "" {
		out := strings.TrimSuffix(res.Output, fmt.Sprintf("\nExit code: %d", c.ExitCode))
		return fmt.Sprintf("Exit code %d\n%s", c.ExitCode, out), true
	}
	return res.Output, res.IsError
}

// response is a successful result as PostToolUse hooks see it: for Bash
// Claude Code's object (nova's shell merges stderr into stdout), for
// other tools the text the model is shown.
func response(tool string, res tools.Result) any {
	if tool != "Bash" {
		return res.Output
	}
	out := res.Output
	if out == "(no output)" {
		out = ""
	}
	return map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
}

// replaceOutput applies updatedToolOutput: a string replaces the text;
// for Bash, the {stdout, stderr} object Claude Code's hooks return.
func replaceOutput(tool string, res tools.Result, raw json.RawMessage, o *Outcome) tools.Result {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		res.Output = s
		return res
	}
	var b struct {
		Stdout *string `json:"stdout"`
		Stderr string  `json:"stderr"`
	}
	if tool == "Bash" && json.Unmarshal(raw, &b) == nil && b.Stdout != nil {
		res.Output = strings.TrimRight(*b.Stdout+"\n"+b.Stderr, "\n")
		return res
	}
	o.Notices = append(o.Notices, fmt.Sprintf("a PostToolUse hook's updatedToolOutput for %s is not a string (or, for Bash, {stdout, stderr}); nova kept the tool's output", tool))
	return res
}
