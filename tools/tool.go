// Package tools holds the Tool interface, the Registry of tools and the
// Pipeline: the one path every tool call takes, whoever asked for it.
package tools

import (
	"context"
	"encoding/json"
	"os/exec"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// Tool is something the model can call.
type Tool interface {
	// Name is what the model calls the tool ("Read", "Bash").
	Name() string
	// Description tells the model when to use the tool and its limits.
	Description() string
	// Schema is the JSON schema of the tool's input object.
	Schema() json.RawMessage
	// Kind says what the tool does; read-only tools may run concurrently
	// and while the model is still streaming.
	Kind() permission.Kind
	// Run executes a validated call.
	Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error)
}

// Permissioner is a tool that describes its calls to the permission
// checker itself, because the paths its input declares (see Input) do not
// say enough: Bash's command, WebFetch's domain, the files a patch names.
// A tool that is neither is judged by its name and kind alone.
type Permissioner interface {
	// Permission describes a call: the paths it touches, the command it
	// runs. A tool that cannot read input returns a request with what it
	// could find.
	Permission(input json.RawMessage, env *Env) permission.Request
}

// Result is what a tool returns.
type Result struct {
	// Output is the text shown to the model.
	Output string `json:"output"`
	// Images go to vision models as image parts after Output; they may
	// also hold tool_reference parts (ToolSearch's answer), which load
	// deferred tools.
	Images []llm.Part `json:"images,omitempty"`
	// IsError marks a failure the model should see as such.
	IsError bool `json:"is_error,omitempty"`
	// Display is what frontends show beside Output (a diff, an exit
	// code), by kind; nil when the output says it all. The model never
	// sees it.
	Display *display.Display `json:"display,omitempty"`
}

// Errorf returns an error result with a formatted message.
func Errorf(format string, args ...any) Result {
	return Result{Output: sprintf(format, args...), IsError: true}
}

// Env is what the pipeline hands a tool: where it works and the session
// state it shares with other calls. One Env lives as long as a session.
type Env struct {
	// Workdir is the workspace root and the directory relative paths start in.
	Workdir string
	// Home is the user's home directory, where "~/" paths lead; "" for none.
	Home string
	// AddDirs are further directories the user granted.
	AddDirs []string
	// SessionID names the session, for spilled results and shells.
	SessionID string
	// SpillDir is where large results are written (NOVA_HOME/sessions/<id>/tool-results).
	SpillDir string
	// ScratchDir is a private directory for tools' own files (the shell's
	// saved state). It is writable inside the sandbox; "" means the
	// system's temporary directory.
	ScratchDir string
	// Files remembers what was read, for the read-before-write guard.
	Files *FileTracker
	// DeniedRead reports whether a deny rule forbids reading the absolute
	// path p; search tools (Grep, Glob, LS) leave such files out of what
	// they return. nil means nothing is denied.
	DeniedRead func(p string) bool
	// ExtraEnv are variables set for every command the shell runs, over
	// nova's own environment as EnvPolicy leaves it (the settings' "env":
	// the user's or a trusted project's words, so they all pass); nil
	// means none.
	ExtraEnv map[string]string
	// EnvPolicy is what of nova's own environment commands inherit; the
	// zero policy drops secret-named variables.
	EnvPolicy EnvPolicy
	// Sandbox wraps commands when the OS sandbox is on; nil means none.
	// It is the one record of whether commands are confined: the
	// permission check learns it from the tool's request.
	Sandbox Sandbox
	// SandboxExcluded are sandbox.excludedCommands: commands (Bash rule
	// specifiers) that run outside the sandbox, still checked.
	SandboxExcluded []string
	// SandboxUnavailable says the user asked for the sandbox but it
	// cannot run here (Sandbox is nil): every command then asks.
	SandboxUnavailable bool
	// SandboxAt returns a sandbox with Sandbox's settings whose workspace
	// is dir instead (a subagent's git worktree, which its commands must
	// be able to write); nil when there is no sandbox.
	SandboxAt func(dir string) (Sandbox, error)
	// Notify carries what a tool shows outside its result (the todo list)
	// to whoever watches the run of ctx; nil means nobody does.
	Notify func(ctx context.Context, d *display.Display)
	// Ask puts questions to a person (AskUserQuestion, plan approval); nil
	// when nobody can answer (print mode).
	Ask Asker
	// Buffers, when set, gives the text of files as the person's editor
	// holds them (an ACP client's unsaved buffers): Read shows that text
	// in place of the disk's. nil reads the disk.
	Buffers BufferReader
	// Modes switches the permission mode (EnterPlanMode, ExitPlanMode);
	// nil when the session has no mode to switch, and plan mode is then
	// unavailable.
	Modes ModeSwitch
	// Extra holds session state owned by individual tools (shells, todos),
	// keyed by the tool that owns it. Use State to reach it.
	extra stateMap
}

// Sandbox confines a command to the OS sandbox.
type Sandbox interface {
	// Confine rewrites cmd (not yet started; cmd.Dir is its working
	// directory) so that it runs inside the sandbox. The caller calls
	// release once the command and every process it started have ended (or
	// it failed to start), so the sandbox can undo what it set up for it.
	Confine(cmd *exec.Cmd) (release func(), err error)
	// Env returns the variables (NAME=value) the sandbox sets for every
	// confined command: the shell sets them again after restoring its
	// state, and takes them back for a command run outside the sandbox.
	Env() []string
}

// BufferReader reads a file as an editor holds it, saved or not.
type BufferReader interface {
	// ReadBuffer returns the text of the file at the absolute path abs as
	// the editor has it; an error sends Read to the disk.
	ReadBuffer(ctx context.Context, abs string) (string, error)
}

// Asker answers questions on behalf of a person.
type Asker interface {
	// AskPermission asks whether a call may run.
	AskPermission(ctx context.Context, ask PermissionAsk) Approval
	// AskQuestions puts AskUserQuestion-style questions; it returns the
	// answers in order, or an error when nobody answered.
	AskQuestions(ctx context.Context, qs []Question) ([]string, error)
}

// PermissionAsk is a call waiting for a person's decision.
type PermissionAsk struct {
	CallID   string              `json:"call_id"`
	Tool     string              `json:"tool"`
	Input    json.RawMessage     `json:"input"`
	Decision permission.Decision `json:"decision"`
	// Preview is what the call would change, from a Previewer; nil when
	// the tool has none or the call would fail.
	Preview *display.Display `json:"preview,omitempty"`
	// Host is the host a sandboxed command asks to reach (the network
	// question); "" for a call's own ask. A "no" refuses that host only:
	// the command goes on without it.
	Host string `json:"host,omitempty"`
}

// Previewer is a tool that can show what a call would do before it runs:
// the diff an edit would make, computed from the file as it is now and the
// call's input, exactly as Run computes it, writing nothing. The pipeline
// puts it in the permission ask, so a person sees what they approve.
//
// When the call would fail whatever the answer (an Edit of a file never
// read, an old_string that is not there), Preview returns that failure,
// as Run would, instead of a display: the pipeline then refuses the call
// rather than ask a person to approve what cannot work. Both are nil when
// Preview cannot tell (Run then says what happened).
type Previewer interface {
	Preview(ctx context.Context, input json.RawMessage, env *Env) (*display.Display, *Result)
}

// Approval is what a person decided about a PermissionAsk, as the
// pipeline acts on it. Frontends answer in the agent's own terms
// (agent.PermissionAnswer); the agent turns that into an Approval.
type Approval struct {
	Allow bool
	// Rule, with Allow, is saved (one of the ask's suggestions) so the
	// same call is not asked again; "" allows this call once.
	Rule string
	// Message goes to the model with a denial.
	Message string
	// Stop, with a denial, also ends the run: the person said no and
	// stopped the turn (the TUI's "No"), which holds however soon the
	// run's cancellation arrives.
	Stop bool
	// Input, with Allow, replaces the call's input (an Agent SDK host's
	// updatedInput); the pipeline checks it again before it runs.
	Input json.RawMessage
}

// Question is one AskUserQuestion question.
type Question struct {
	Question    string   `json:"question" jsonschema:"The complete question to ask the user, ending with a question mark"`
	Header      string   `json:"header,omitempty" jsonschema:"Very short label displayed as a chip/tag (max 12 chars), e.g. \"Library\""`
	Options     []Option `json:"options" jsonschema:"The available choices (2-4 options)"`
	MultiSelect bool     `json:"multiSelect,omitempty" jsonschema:"Allow the user to select several options"`
}

// Option is one choice of a Question.
type Option struct {
	Label       string `json:"label" jsonschema:"The display text of this option (1-5 words)"`
	Description string `json:"description,omitempty" jsonschema:"What this option means or implies"`
}
