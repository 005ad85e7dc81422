// Package permission decides whether a tool call may run: allow, ask a
// person, or deny. Checker.Check is the only place that decision is made.
package permission

// Behavior is the outcome of a check.
type Behavior string

// The three outcomes.
const (
	Allow Behavior = "allow"
	Ask   Behavior = "ask"
	Deny  Behavior = "deny"
)

// Layer names the part of the chain that decided.
type Layer string

// The layers, in the order they are consulted, and the outside deciders.
const (
	LayerDangerous Layer = "dangerous" // catastrophic command
	LayerPath      Layer = "path"      // path outside the workspace or sensitive
	LayerRule      Layer = "rule"      // an allow/ask/deny rule
	LayerMode      Layer = "mode"      // the permission mode
	LayerAsk       Layer = "ask"       // a person answered (or nobody could)
	LayerHook      Layer = "hook"      // a pre_tool_use hook
	LayerSandbox   Layer = "sandbox"   // sandbox auto-allow or unavailability
)

// Mode is the overall permission posture.
type Mode string

// The permission modes.
const (
	ModeDefault     Mode = "default"
	ModeAcceptEdits Mode = "acceptEdits"
	ModePlan        Mode = "plan"
	ModeBypass      Mode = "bypassPermissions"
)

// Modes lists the modes in the order Shift+Tab cycles them.
func Modes() []Mode { return []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass} }

// ParseMode returns the mode named s, or false.
func ParseMode(s string) (Mode, bool) {
	for _, m := range Modes() {
		if string(m) == s {
			return m, true
		}
	}
	return "", false
}

// Kind says what a tool does, for modes and defaults.
type Kind string

// Tool kinds.
const (
	KindRead  Kind = "read"  // reads files or state; no side effects
	KindEdit  Kind = "edit"  // changes files in place
	KindExec  Kind = "exec"  // runs commands
	KindFetch Kind = "fetch" // reaches the network
	KindOther Kind = "other" // anything else (interaction, plan mode, memory)
)

// Access is one path a call reads or writes, absolute and cleaned.
type Access struct {
	Path  string `json:"path"`
	Write bool   `json:"write,omitempty"`
}

// Request is what a check is about.
type Request struct {
	Tool    string   `json:"tool"`
	Kind    Kind     `json:"kind"`
	Command string   `json:"command,omitempty"` // Bash command line
	Paths   []Access `json:"paths,omitempty"`   // file paths touched
	Domain  string   `json:"domain,omitempty"`  // host of a fetched URL
	// Target is what a call names that rules of its tool name too: the
	// skill a Skill call loads, for Skill(name) rules; the agent type an
	// Agent call starts, for Agent(type) rules.
	Target  string `json:"target,omitempty"`
	Workdir string `json:"workdir,omitempty"` // the directory relative paths and commands start in
	// Sandboxed says the call runs inside a working OS sandbox (Bash).
	Sandboxed bool `json:"sandboxed,omitempty"`
	// LeavesSandbox says the call runs outside an OS sandbox that works
	// here: Bash with dangerouslyDisableSandbox, or a command that
	// sandbox.excludedCommands names (Excluded). Allow rules then cover
	// only the commands sandbox.excludedCommands names: a rule given for a
	// sandboxed command does not let it run outside.
	LeavesSandbox bool `json:"leaves_sandbox,omitempty"`
	// Excluded is the sandbox.excludedCommands pattern that sends the call
	// outside the sandbox; "" when the model asked (dangerouslyDisableSandbox).
	Excluded string `json:"excluded,omitempty"`
	// SandboxFailure is what the same command hit when it just failed
	// inside the sandbox (its last line of output), shown when the call
	// to run it outside asks.
	SandboxFailure string `json:"sandbox_failure,omitempty"`
	// SandboxUnavailable says the sandbox was asked for (a setting or
	// --sandbox) but cannot run here, so the call would run unconfined
	// against the user's wish: every such call asks.
	SandboxUnavailable bool `json:"sandbox_unavailable,omitempty"`
	// ShellEnv names the variables the session's shell carries into the
	// command (exported by earlier commands) that differ from nova's own
	// environment: they change what programs do as much as NAME=v cmd.
	ShellEnv []string `json:"shell_env,omitempty"`
	// Typed says a person typed the command (the TUI's !cmd): their words,
	// not the model's, so only what is denied outright stops it.
	Typed bool `json:"typed,omitempty"`
	// Note is what a tool says of itself (an MCP server's readOnlyHint),
	// shown to the person when the call asks. It never decides anything:
	// the tool's author wrote it.
	Note string `json:"note,omitempty"`
	// HookAllowed says a PreToolUse or PermissionRequest hook allowed the
	// call. It stands in for the mode, as bypassPermissions would, and for
	// nothing before it: dangerous commands, system and sensitive paths,
	// deny and ask rules and plan mode decide as they would without it.
	HookAllowed bool `json:"hook_allowed,omitempty"`
	// Mode, when set, is the mode the caller runs in (a subagent's,
	// which can only narrow its parent's): the checker judges the call in
	// the narrower of it and its own.
	Mode Mode `json:"mode,omitempty"`
	// Worktree, when set, is the git worktree nova made for the caller
	// (a subagent's isolation: worktree), outside the workspace: the call
	// may touch it as it may the workspace. nova sets it, never a tool's
	// input.
	Worktree string `json:"worktree,omitempty"`
}

// Decision is the outcome of Check and why.
type Decision struct {
	Behavior Behavior `json:"behavior"`
	Layer    Layer    `json:"layer"`
	Reason   string   `json:"reason"`
	// Rule is the rule that matched, when a rule decided.
	Rule string `json:"rule,omitempty"`
	// Suggestions are rules that "allow always" would write, shown to the
	// person before they are written.
	Suggestions []string `json:"suggestions,omitempty"`
	// Auto says nova's own read-only table allowed the call, not a person,
	// a rule or a mode: the tool runs it with the configuration that would
	// make such a command run code (git's core.fsmonitor, hooks) off.
	Auto bool `json:"auto,omitempty"`
	// ShellState says the command changes the session shell's state (cd,
	// export, set, source ...), so it must run in order, in the session's
	// shell; a command without it may run beside others.
	ShellState bool `json:"shell_state,omitempty"`
	// Writes are the files the call may write, as the check resolved them
	// (symlinks followed): a tool writing through a link must land exactly
	// there.
	Writes []string `json:"writes,omitempty"`
	// Reads are the files the call may read, as the check resolved them:
	// a tool reading a path must find it still leads there.
	Reads []string `json:"reads,omitempty"`
}
