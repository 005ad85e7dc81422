package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/nova-dev/nova/permission"
)

// Hooks run around tool calls: what the person configured under "hooks"
// (package hooks implements this). A hook that cannot answer on
// PreToolUse or PermissionRequest denies: a broken guard blocks, it
// never waves a call through.
type Hooks interface {
	// PreToolUse runs before the permission check. It may deny the call,
	// ask a person about it, allow it where only the mode would ask, or
	// rewrite its input (which is then validated and checked).
	PreToolUse(ctx context.Context, call Call) HookVerdict
	// PermissionRequest runs when the check says ask, before a person is
	// asked (or, with nobody to ask, the call is denied). It may allow
	// the call on their behalf (with the same limits as PreToolUse's
	// allow) or deny it.
	PermissionRequest(ctx context.Context, call Call, d permission.Decision) HookVerdict
	// PostToolUse runs after the call ran (PostToolUseFailure when it
	// failed), before the result is shaped. It returns the result the
	// model is to see, and what else the hooks said.
	PostToolUse(ctx context.Context, call Call, res Result) (Result, HookVerdict)
}

// HookDecision is what hooks decided about a call's permission.
type HookDecision string

// The decisions of PreToolUse and PermissionRequest hooks; "" is none,
// and the permission check decides alone.
const (
	HookAllow HookDecision = "allow"
	HookAsk   HookDecision = "ask"
	HookDeny  HookDecision = "deny"
)

// HookVerdict is what the hooks of one event said about a call.
type HookVerdict struct {
	Decision HookDecision
	// Reason is why, in the hooks' words: the model's for a denial, the
	// person's for an ask.
	Reason string
	// Input, when set, replaces the call's input.
	Input json.RawMessage
	// Context is text for the model, added to the call's result.
	Context string
	// Notices are for the person (a hook's systemMessage, a hook that
	// failed without blocking).
	Notices []string
	// Stop says a hook asked the run to stop after this call (Claude
	// Code's "continue": false); StopReason is for the person.
	Stop       bool
	StopReason string
}

// HookNote is what hooks said of a call besides its result, for the
// agent to act on.
type HookNote struct {
	Notices    []string `json:"notices,omitempty"`
	Stop       bool     `json:"stop,omitempty"`
	StopReason string   `json:"stop_reason,omitempty"`
}

// note adds v's notices and stop to the call's note.
func (pr *Prepared) note(v HookVerdict) {
	if len(v.Notices) == 0 && !v.Stop {
		return
	}
	if pr.hookNote == nil {
		pr.hookNote = &HookNote{}
	}
	pr.hookNote.Notices = append(pr.hookNote.Notices, v.Notices...)
	if v.Stop && !pr.hookNote.Stop {
		pr.hookNote.Stop, pr.hookNote.StopReason = true, v.StopReason
	}
}

// hookCall is the call as hooks see it: its path fields (nova:"path")
// made absolute, as Claude Code gives file_path to hooks, so that a hook
// matching on paths cannot be passed by a relative or ~ spelling of the
// same file. The call itself runs with the input as sent.
func hookCall(t Tool, call Call, env *Env) Call {
	it, ok := t.(interface{ inputType() reflect.Type })
	if !ok || env == nil {
		return call
	}
	typ := it.inputType()
	if typ.Kind() != reflect.Struct {
		return call
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(call.Input, &obj) != nil || obj == nil {
		return call
	}
	changed := false
	for _, f := range reflect.VisibleFields(typ) {
		tag, ok := f.Tag.Lookup("nova")
		if kind, _, _ := strings.Cut(tag, ","); !ok || kind != "path" || f.Type.Kind() != reflect.String {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		var p string
		if raw, ok := obj[name]; !ok || json.Unmarshal(raw, &p) != nil || p == "" {
			continue
		}
		if abs := env.Abs(p); abs != p {
			obj[name], _ = json.Marshal(abs)
			changed = true
		}
	}
	if !changed {
		return call
	}
	in, err := json.Marshal(obj)
	if err != nil {
		return call
	}
	call.Input = in
	return call
}
