package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Outcome is what the hooks of one firing decided, all of them together.
// The zero Outcome (no hook matched) decides nothing.
type Outcome struct {
	// Ran counts the hooks that ran.
	Ran int
	// Block says the hooks blocked what the event is about: the tool call
	// (PreToolUse), the prompt (UserPromptSubmit, which never reaches the
	// model), the stop (Stop: the agent goes on), the compaction
	// (PreCompact). Reason says why: to the model on PreToolUse and Stop,
	// to the person otherwise.
	Block  bool
	Reason string
	// Permission is what PreToolUse or PermissionRequest hooks decided:
	// "allow", "ask" or "deny" (with Block), the strictest of them
	// (deny, then ask, then allow); PermissionReason is theirs.
	Permission       string
	PermissionReason string
	// Input replaces the tool call's input (updatedInput).
	Input json.RawMessage
	// Output replaces a tool's output (PostToolUse's updatedToolOutput).
	Output json.RawMessage
	// Context is text for the model, each a system reminder naming its
	// hook: additionalContext, plain stdout where the event adds it
	// (UserPromptSubmit, SessionStart), what PostToolUse hooks fed back.
	Context []string
	// Stop says a hook asked the run to stop ("continue": false, a
	// PermissionRequest deny with interrupt); StopReason is for the person.
	Stop       bool
	StopReason string
	// Notices are for the person: systemMessage, hooks that failed without
	// blocking, stderr that Claude Code shows the user.
	Notices []string
}

func (o *Outcome) block(reason string) {
	o.Block = true
	o.Reason = join(o.Reason, capped(reason))
}

func (o *Outcome) permission(p, reason string) {
	rank := map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}
	if rank[p] > rank[o.Permission] {
		o.Permission, o.PermissionReason = p, reason
	} else if p == o.Permission {
		o.PermissionReason = join(o.PermissionReason, reason)
	}
}

func (o *Outcome) deny(reason string) {
	o.block(reason)
	o.permission("deny", reason)
}

func (o *Outcome) stop(reason string) {
	if !o.Stop {
		o.Stop, o.StopReason = true, reason
	}
}

func (o *Outcome) notice(s string) { o.Notices = append(o.Notices, capped(s)) }

// input keeps the first hook's rewrite: hooks run side by side, and a
// second rewrite of the same call would undo the first's without seeing it.
func (o *Outcome) input(in json.RawMessage) {
	if o.Input == nil {
		o.Input = in
	} else {
		o.notice("two hooks rewrote the same tool input; nova used the first in settings order")
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// add folds one hook's reply into o. label names the firing as Claude
// Code does ("PreToolUse:Bash").
func (o *Outcome) add(ev Event, h *Hook, label string, r reply) {
	o.Ran++
	who := label + " hook " + h.what()
	if r.broken != "" {
		if specs[ev].guard {
			o.deny(fmt.Sprintf("%s %s, so the call was blocked: a hook that cannot answer never lets a call through", who, r.broken))
		} else if ev != Notification {
			o.notice(fmt.Sprintf("%s %s", who, r.broken))
		}
		return
	}
	if r.prompt != nil {
		o.addPrompt(ev, h, label, *r.prompt)
		return
	}
	out, plain, err := parseOutput(ev, r.stdout)
	if err == nil && r.body && plain != "" {
		err = fmt.Errorf("its response body is not a JSON object")
		plain = ""
	}
	if err != nil {
		if ev != Notification {
			o.notice(fmt.Sprintf("%s error: %s %v", label, h.what(), err))
		}
		if r.code != 2 {
			return // a non-blocking error: the action goes on
		}
	}
	observe := ev == Notification || ev == SessionEnd || ev == PostCompact
	if out != nil && !observe && ev != PreCompact {
		if out.Continue != nil && !*out.Continue {
			o.stop(out.StopReason)
		}
		if out.SystemMessage != "" {
			o.notice(label + " hook: " + out.SystemMessage)
		}
	}
	switch r.code {
	case 0:
		o.apply(ev, label, out, plain)
	case 2:
		o.exit2(ev, h, label, r.stderr)
		o.apply(ev, label, out, "")
	default:
		if out != nil {
			// A valid JSON answer decides whatever the exit code.
			o.apply(ev, label, out, "")
		} else if ev != Notification {
			o.notice(fmt.Sprintf("%s hook error: %s Failed with non-blocking status code %d: %s", label, h.what(), r.code, orNone(firstLine(r.stderr))))
		}
	}
}

// exit2 is what an exit code of 2 does, per event, as Claude Code's table
// says.
func (o *Outcome) exit2(ev Event, h *Hook, label, stderr string) {
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = "(no message on stderr)"
	}
	full := fmt.Sprintf("%s hook error: %s: %s", label, h.what(), capped(msg))
	switch ev {
	case PreToolUse:
		o.deny(full)
	case PostToolUse, PostToolUseFailure:
		o.Context = append(o.Context, reminder(label, "error: "+h.what(), msg))
	case UserPromptSubmit, PreCompact, Stop, SubagentStop:
		o.block(msg)
	case PermissionRequest, Notification:
		// Not honored: only a JSON decision answers a permission request.
	default:
		o.notice(full)
	}
}

// apply acts on the JSON output (or plain text) of a hook that exited 0,
// or on the JSON of one that did not.
func (o *Outcome) apply(ev Event, label string, out *jsonOutput, plain string) {
	if out == nil {
		if plain != "" && specs[ev].plainContext {
			o.Context = append(o.Context, reminder(label, "additional context", plain))
		}
		return
	}
	sp := out.Specific
	if sp == nil {
		sp = &specific{}
	}
	addContext := func() {
		if sp.AdditionalContext != "" {
			o.Context = append(o.Context, reminder(label, "additional context", sp.AdditionalContext))
		}
	}
	switch ev {
	case PreToolUse:
		decision, reason := sp.PermissionDecision, sp.PermissionDecisionReason
		if decision == "" {
			// The deprecated top-level form.
			switch out.Decision {
			case "approve":
				decision, reason = "allow", out.Reason
			case "block":
				decision, reason = "deny", out.Reason
			}
		}
		switch decision {
		case "deny":
			o.deny(fmt.Sprintf("%s hook denied this call: %s", label, orNone(reason)))
		case "ask", "allow":
			o.permission(decision, reason)
		case "defer":
			o.notice(label + " hook answered \"defer\", which nova does not have: the permission check decides")
		case "":
		default:
			o.notice(fmt.Sprintf("%s hook answered permissionDecision %q; nova knows allow, deny and ask", label, decision))
		}
		if sp.UpdatedInput != nil && decision != "deny" && decision != "defer" {
			o.input(sp.UpdatedInput)
		}
		if decision != "defer" {
			addContext()
		}
	case PermissionRequest:
		d := sp.Decision
		if d == nil {
			return
		}
		switch d.Behavior {
		case "allow":
			o.permission("allow", "")
			if d.UpdatedInput != nil {
				if !isObject(d.UpdatedInput) {
					o.notice(label + " hook's decision.updatedInput is not an object; nova ignored it")
				} else {
					o.input(d.UpdatedInput)
				}
			}
		case "deny":
			msg := d.Message
			if msg == "" {
				msg = "a PermissionRequest hook denied it"
			}
			o.deny(msg)
			if d.Interrupt {
				o.stop(msg)
			}
		default:
			o.notice(fmt.Sprintf("%s hook answered decision.behavior %q; nova knows allow and deny", label, d.Behavior))
		}
	case PostToolUse, PostToolUseFailure:
		if out.Decision == "block" {
			o.Context = append(o.Context, reminder(label, "feedback", orNone(out.Reason)))
		}
		addContext()
		if ev == PostToolUse && sp.UpdatedToolOutput != nil {
			o.Output = sp.UpdatedToolOutput
		}
	case UserPromptSubmit:
		if out.Decision == "block" {
			o.block(orNone(out.Reason))
		}
		addContext()
	case Stop, SubagentStop:
		if out.Decision == "block" {
			o.block(orNone(out.Reason))
		}
		addContext()
	case SessionStart, SubagentStart:
		addContext()
	case PreCompact:
		if out.Decision == "block" {
			o.block(orNone(out.Reason))
		}
	}
}

// addPrompt folds a prompt hook's verdict into o, as Claude Code's
// response schema says for each event.
func (o *Outcome) addPrompt(ev Event, h *Hook, label string, v promptVerdict) {
	if v.OK != nil && *v.OK {
		return
	}
	reason := orNone(v.Reason)
	switch ev {
	case PreToolUse:
		o.deny(fmt.Sprintf("%s %s hook denied this call: %s", label, h.Type, reason))
		if !h.ContinueOnBlock {
			o.stop(reason)
		}
	case PostToolUse:
		if h.ContinueOnBlock {
			o.Context = append(o.Context, reminder(label, "feedback", reason))
		} else {
			o.stop(reason)
		}
	case PostToolUseFailure:
		o.Context = append(o.Context, reminder(label, "feedback", reason))
	case UserPromptSubmit:
		o.block(reason)
	case Stop, SubagentStop:
		if !v.Impossible {
			o.block(reason)
		}
	}
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "no reason given"
	}
	return s
}
