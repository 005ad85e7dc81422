package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/nova-dev/nova/permission"
)

// toolEvents are the events an "if" condition is evaluated on: it names a
// tool call, in permission-rule syntax (Claude Code's "Bash(git *)").
var toolEvents = map[Event]bool{PreToolUse: true, PermissionRequest: true, PostToolUse: true, PostToolUseFailure: true}

// ifProblem says why h's "if" cannot be evaluated, or "". Such a hook runs
// on every match of its matcher: a filter nova cannot read must not turn
// a guard off.
func ifProblem(h *Hook) string {
	if h.If == "" {
		return ""
	}
	if !toolEvents[h.Event] {
		return fmt.Sprintf("\"if\": %q is not evaluated: %s has no tool call to test it on; the hook runs on every match", h.If, h.Event)
	}
	if _, err := permission.ParseRule(h.If); err != nil {
		return fmt.Sprintf("\"if\" is not a permission rule nova can read (%v); the hook runs on every match", err)
	}
	return ""
}

// compileIf makes h's "if" into a checker holding it as its one deny
// rule: deny rules are matched the way nothing slips past them (every
// command of a compound line, wrappers, each spelling of a program), so
// the filter errs toward running the hook.
func (e *Engine) compileIf(h *Hook) {
	if h.If == "" || ifProblem(h) != "" {
		return
	}
	home := e.s.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" || !filepath.IsAbs(home) {
		home = e.s.ProjectDir
	}
	c, err := permission.NewChecker(permission.Config{Workspace: e.s.ProjectDir, Home: home, Rules: permission.Rules{Deny: []string{h.If}}})
	if err == nil {
		h.cond = c
	}
}

// passes reports whether in's tool call meets h's "if": the rule matched,
// or a layer before the rules (a command nova cannot see into, a system
// path) decided first, so nova cannot tell and runs the hook, as Claude
// Code does when it cannot tell.
func (h *Hook) passes(ctx context.Context, in Input) bool {
	if h.cond == nil {
		return true
	}
	tool, _ := in.Fields["tool_name"].(string)
	raw, _ := in.Fields["tool_input"].(json.RawMessage)
	d := h.cond.Check(ctx, callRequest(tool, raw))
	switch {
	case d.Rule != "":
		return true
	case d.Layer == permission.LayerDangerous || d.Layer == permission.LayerPath:
		return d.Behavior != permission.Allow
	}
	return false
}

// callRequest is what a rule is matched against for a call: the fields
// of the tools' inputs that rules name (a command, a path, a URL's host,
// a skill). Paths in a hook's input are absolute already.
func callRequest(tool string, input json.RawMessage) permission.Request {
	var in struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Path         string `json:"path"`
		URL          string `json:"url"`
		Skill        string `json:"skill"`
	}
	_ = json.Unmarshal(input, &in) // what does not parse names nothing
	req := permission.Request{Tool: tool, Command: in.Command, Target: in.Skill}
	write := tool == "Edit" || tool == "Write" || tool == "MultiEdit" || tool == "NotebookEdit"
	for _, p := range []string{in.FilePath, in.NotebookPath, in.Path} {
		if p != "" {
			req.Paths = append(req.Paths, permission.Access{Path: p, Write: write})
		}
	}
	if write {
		req.Kind = permission.KindEdit
	}
	if u, err := url.Parse(in.URL); err == nil {
		req.Domain = u.Hostname()
	}
	return req
}
