package main

import (
	"encoding/hex"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/headless"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/permission"
)

// claudeOptions are the flags nova takes from Claude Code's command line,
// so scripts written for `claude -p` and the Claude Agent SDK (which
// starts its executable with them) run on nova (docs/sdk.md).
type claudeOptions struct {
	inputFormat          string // text | stream-json
	includePartial       bool   // --include-partial-messages
	permissionPromptTool string // --permission-prompt-tool: stdio only
	awaitInitialize      bool   // --await-initialize: nova always waits
	skipPermissions      bool   // --dangerously-skip-permissions
	allowSkipPermissions bool   // --allow-dangerously-skip-permissions
	debug                string // -d/--debug [filter]
	debugFile            string // --debug-file
	sessionID            string // --session-id as given
	jsonSchema           string // --json-schema as given
	settingSources       string // --setting-sources as given
	// structured is --json-schema's structured output, checked.
	structured *headless.StructuredOutput
	// hookEvents writes the hooks' runs (--include-hook-events).
	hookEvents *headless.HookEvents
	// refused are Claude Code's flags nova knows and cannot honour yet,
	// each with why; set ones are refused by complete.
	refused map[string]string
	// session are the flags of the session's agent (claudeflags.go).
	session sessionClaudeOptions
}

// sdk says nova is driven over stdin: the Agent SDK's protocol.
func (c *claudeOptions) sdk() bool { return c.inputFormat == inputStreamJSON }

const (
	inputText       = "text"
	inputStreamJSON = "stream-json"
)

// refusedClaudeFlags are Claude Code's flags nova cannot honour: each is
// refused, saying so, rather than silently ignored (docs/claude-code.md).
var refusedClaudeFlags = []struct {
	name, value, usage, why string
}{
	{"file", "string", "Claude Code's files to download at start (file_id:path): refused, nova has no file store to fetch them from",
		"it names files of Anthropic's Files API to download (file_id:path), a store of claude.ai accounts nova has no access to; put the files in the workspace instead"},
}

// addClaudeFlags adds Claude Code's flags to the root command, and the
// check of them that runs before the command's own (completeClaude).
func addClaudeFlags(cmd *cobra.Command, opts *rootOptions) {
	c, o := &opts.claude, &opts.session
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return opts.completeClaude(cmd.Flags()) }
	fl := cmd.Flags()
	fl.StringVar(&c.inputFormat, "input-format", inputText, "print mode input: text (the prompt) or stream-json (Claude Code's protocol on stdin, as the Agent SDK speaks it)")
	fl.BoolVar(&c.includePartial, "include-partial-messages", false, "stream-json: also the response as Anthropic's raw stream events")
	fl.StringVar(&c.permissionPromptTool, "permission-prompt-tool", "", "stdio: ask the Agent SDK (its canUseTool) about calls that need approval")
	fl.BoolVar(&c.awaitInitialize, "await-initialize", false, "stream-json input: read the initialize request before starting (nova always does)")
	fl.BoolVar(&c.allowSkipPermissions, "allow-dangerously-skip-permissions", false, "let the Agent SDK switch to bypassPermissions later")
	fl.StringVarP(&c.debug, "debug", "d", "", "print nova's own events as JSON lines on stderr")
	fl.Lookup("debug").NoOptDefVal = "all"
	fl.StringVar(&c.debugFile, "debug-file", "", "write nova's own events as JSON lines to this file")
	fl.StringVar(&c.jsonSchema, "json-schema", "", "structured output: the model answers through a tool whose input must match this JSON schema; the result's structured_output holds it")
	fl.StringVar(&o.settings.Flag, "settings", "", "a settings file, or the settings JSON itself, merged over the settings files (its values win); it applies in an untrusted folder too")
	fl.StringVar(&c.settingSources, "setting-sources", "", `the settings files to load: "user", "project", "local", comma-separated; "" for none (default all)`)
	fl.StringVar(&c.sessionID, "session-id", "", "the id of the new session: a UUID (or a nova session id); one that exists is refused")
	fl.StringVar(&o.fallbackModel, "fallback-model", "", "the model (or comma-separated models) to switch to for the rest of a turn when the session's is overloaded or unavailable")
	fl.BoolVar(&o.noPersistence, "no-session-persistence", false, "keep no transcript: the session's files are removed when nova exits, so it cannot be resumed")
	fl.Float64Var(&o.maxBudgetUSD, "max-budget-usd", 0, "stop once the session has cost this many US dollars (error_max_budget_usd); needs the model's prices")
	c.refused = map[string]string{}
	for _, r := range refusedClaudeFlags {
		if r.value == "bool" {
			fl.Bool(r.name, false, r.usage)
		} else {
			fl.String(r.name, "", r.usage)
		}
		c.refused[r.name] = r.why
	}
	for _, name := range []string{"input-format", "include-partial-messages", "permission-prompt-tool", "await-initialize",
		"allow-dangerously-skip-permissions", "debug", "debug-file", "max-budget-usd", "session-id", "json-schema", "settings", "setting-sources", "no-session-persistence", "fallback-model"} {
		_ = fl.SetAnnotation(name, printOnly, []string{"true"})
	}
	for _, r := range refusedClaudeFlags {
		_ = fl.SetAnnotation(r.name, printOnly, []string{"true"})
	}
	// Flags of both print mode and the terminal UI.
	fl.StringVar(&o.systemPrompt, "system-prompt", "", "replace nova's system prompt with this text")
	fl.StringVar(&o.tools, "tools", "", `the built-in tools the model is offered: "default", "" for none, or names ("Read,Grep,Bash")`)
	fl.BoolVar(&c.skipPermissions, "dangerously-skip-permissions", false, "the bypassPermissions mode (--permission-mode bypassPermissions)")
	fl.StringVarP(&o.name, "name", "n", "", "name the session (its title)")
	fl.BoolVar(&o.forkSession, "fork-session", false, "with --resume or --continue: carry on in a new session, leaving that one as it was")
	addSessionClaudeFlags(fl, opts)
	// Claude Code spells some flags both ways.
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		switch name {
		case "allowed-tools":
			name = "allowedTools"
		case "disallowed-tools":
			name = "disallowedTools"
		}
		return pflag.NormalizedName(name)
	})
}

// completeClaude checks Claude Code's flags and applies what they mean to
// the other options; sdk is set when nova is driven over stdin. It runs
// before the other checks, so what it sets is checked with them.
func (o *rootOptions) completeClaude(fl *pflag.FlagSet) error {
	c := &o.claude
	for name, why := range c.refused {
		if fl.Changed(name) {
			return usageErr("--%s: %s; nova cannot honour it yet (docs/sdk.md lists what it supports)", name, why)
		}
	}
	if err := o.completeSessionClaude(fl); err != nil {
		return err
	}
	if fl.Changed("json-schema") {
		s, err := headless.NewStructuredOutput([]byte(c.jsonSchema))
		if err != nil {
			return usageErr("--json-schema: %v", err)
		}
		c.structured = s
	}
	if fl.Changed("setting-sources") {
		src, err := config.ParseSettingSources(c.settingSources)
		if err != nil {
			return usageErr("--setting-sources: %v", err)
		}
		o.session.settings.Sources = src
	}
	if fl.Changed("settings") && strings.TrimSpace(o.session.settings.Flag) == "" {
		return usageErr("--settings: empty; give a settings file or the settings JSON itself")
	}
	if err := o.session.sessionIDs(c.sessionID); err != nil {
		return err
	}
	o.session.toolsSet = fl.Changed("tools")
	if fl.Changed("max-budget-usd") && !(o.session.maxBudgetUSD > 0) {
		return usageErr("--max-budget-usd %v: want a positive number of US dollars", o.session.maxBudgetUSD)
	}
	if c.skipPermissions {
		if o.session.permissionMode != "" && o.session.permissionMode != string(permission.ModeBypass) {
			return usageErr("--dangerously-skip-permissions and --permission-mode %s contradict each other: give one", o.session.permissionMode)
		}
		o.session.permissionMode = string(permission.ModeBypass)
	}
	switch c.inputFormat {
	case inputText:
	case inputStreamJSON:
		// Claude Code reads its conversation from stdin with or without
		// -p; the Agent SDK gives none.
		o.print = true
		if o.outputFormat != headless.FormatStreamJSON {
			return usageErr("--input-format stream-json needs --output-format stream-json")
		}
	default:
		return usageErr("--input-format %q: want text or stream-json", c.inputFormat)
	}
	if c.includePartial && o.outputFormat != headless.FormatStreamJSON {
		return usageErr("--include-partial-messages needs --output-format stream-json")
	}
	if c.session.hookEvents {
		if o.outputFormat != headless.FormatStreamJSON {
			return usageErr("--include-hook-events needs --output-format stream-json: hook_started and hook_response are stream-json messages")
		}
		// The engine of every runtime of the session tells the same
		// HookEvents, which Run or Serve write.
		c.hookEvents = headless.NewHookEvents()
		o.session.hookObserver = c.hookEvents.Observe
	}
	switch c.permissionPromptTool {
	case "":
	case "stdio":
		if !c.sdk() {
			return usageErr("--permission-prompt-tool stdio needs --input-format stream-json: the answers come on stdin")
		}
	default:
		return usageErr("--permission-prompt-tool %q: nova supports only stdio (the Agent SDK's canUseTool), not an MCP tool", c.permissionPromptTool)
	}
	if c.awaitInitialize && !c.sdk() {
		return usageErr("--await-initialize needs --input-format stream-json")
	}
	if (c.debug != "" || c.debugFile != "") && !o.print {
		return usageErr("-d/--debug and --debug-file are for print mode; the terminal UI shows the run itself")
	}
	if o.session.toolsSet && strings.TrimSpace(o.session.tools) != "default" {
		o.session.toolList = permission.SplitToolList(o.session.tools)
	}
	if o.session.forkSession && (o.session.resume == "" || o.session.resume == pickSession) && !o.session.cont {
		return usageErr("--fork-session needs the session to fork: --resume ID or --continue")
	}
	return nil
}

// shape applies to a built runtime what the flags say of it beyond
// live.Options: the built-in tools --tools keeps, the --name title.
func (o buildOptions) shape(rt *live.Runtime) error {
	if o.toolsSet && strings.TrimSpace(o.tools) != "default" {
		keep := map[string]bool{}
		names := rt.Registry.Names()
		known := map[string]bool{}
		for _, n := range names {
			known[n] = true
		}
		for _, n := range o.toolList {
			if !known[n] {
				return usageErr("--tools: nova has no tool %q; its tools are %s", n, strings.Join(names, ", "))
			}
			keep[n] = true
		}
		for _, n := range names {
			// MCP tools are the servers' to offer, as in Claude Code.
			if !keep[n] && !strings.HasPrefix(n, "mcp__") {
				rt.Registry.SetEnabled(n, false)
			}
		}
	}
	if o.name != "" {
		if err := rt.Session.SetTitle(o.name); err != nil {
			return failure(err)
		}
	}
	return nil
}

// sessionIDs applies --session-id (given) and a --resume naming a UUID:
// nova's session ids are ULIDs, and a UUID (Claude Code's ids) names the
// ULID of the same 128 bits, so a session started with --session-id UUID
// is resumed with --resume UUID. The messages then show the UUID
// (shownID), as the caller spelled it.
func (o *buildOptions) sessionIDs(given string) error {
	if given != "" {
		id, uuid, ok := sessionIDOf(given)
		if !ok {
			return usageErr("--session-id %q: want a UUID (8-4-4-4-12 hex digits) or a nova session id", given)
		}
		if (o.resume != "" || o.cont) && !o.forkSession {
			return usageErr("--session-id names a new session: with --resume or --continue it needs --fork-session (the fork gets the id)")
		}
		o.newID, o.shownID = id, uuid
	}
	if id, uuid, ok := sessionIDOf(o.resume); ok && uuid != "" {
		o.resume = id
		if o.shownID == "" {
			o.shownID = uuid
		}
	}
	if o.noPersistence && (o.resume != "" || o.cont) && !o.forkSession {
		return usageErr("--no-session-persistence with --resume or --continue would delete the session resumed: add --fork-session to carry on in a session that is not kept")
	}
	return nil
}

// sessionIDOf reads s as a session id: a UUID (uuid is its lower-case
// spelling) or a nova session id (uuid "").
func sessionIDOf(s string) (id, uuid string, ok bool) {
	if u, err := ulid.ParseStrict(s); err == nil && strings.ToUpper(s) == s {
		return u.String(), "", true
	}
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return "", "", false
	}
	var u ulid.ULID
	if _, err := hex.Decode(u[:], []byte(strings.ReplaceAll(s, "-", ""))); err != nil {
		return "", "", false
	}
	return u.String(), strings.ToLower(s), true
}
