package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// Limits of Bash.
const (
	bashDefaultTimeout = 120_000 // ms
	bashMaxTimeout     = 600_000 // ms
	bashMaxOutput      = 30_000  // characters kept of a foreground command's output
)

// Bash runs shell commands in the session's persistent shell: the working
// directory and exported variables carry over from one call to the next.
type Bash struct{ Input[bashInput] }

type bashInput struct {
	Command         string   `json:"command" jsonschema:"The command to execute"`
	Timeout         *float64 `json:"timeout,omitempty" jsonschema:"Optional timeout in milliseconds (max 600000)"`
	Description     string   `json:"description,omitempty" jsonschema:"Clear, concise description of what this command does in 5-10 words"`
	RunInBackground bool     `json:"run_in_background,omitempty" jsonschema:"Set to true to run this command in the background. Use BashOutput to read the output later and KillShell to stop it."`
	// DangerouslyDisableSandbox (Claude Code's name) runs the command
	// outside the sandbox; the permission check then judges it unconfined.
	DangerouslyDisableSandbox bool `json:"dangerouslyDisableSandbox,omitempty" jsonschema:"Set to true to run the command outside the sandbox, only after it failed because the sandbox blocked it; the user is asked."`
}

// Name implements Tool.
func (*Bash) Name() string { return "Bash" }

// Kind implements Tool.
func (*Bash) Kind() permission.Kind { return permission.KindExec }

// Description implements Tool.
func (*Bash) Description() string {
	return `Executes a bash command in a persistent shell session with an optional timeout.

- The working directory and exported environment variables persist between calls (cd and export carry over); shell functions, aliases and unexported variables do not.
- Stdout and stderr are returned together, in order; stdin is /dev/null, so interactive commands (editors, pagers, prompts) cannot be used — pass flags that make them non-interactive (git commit -m, --yes, --no-pager).
- timeout is in milliseconds: default 120000 (2 minutes), at most 600000 (10 minutes). On timeout the command and every process it started are killed.
- Output longer than 30000 characters is cut in the middle; filter it (grep, head, tail) when you expect a lot.
- A non-zero exit is reported as "Exit code: N".
- Processes a command leaves running with & are stopped when it returns. For long-running processes (dev servers, watchers, long builds) set run_in_background: true instead, read their output with BashOutput and stop them with KillShell.
- Prefer the dedicated tools over shell equivalents: Read instead of cat/head/tail, Grep instead of grep/rg, Glob instead of find, Edit/Write instead of sed/echo redirection.
- Quote paths that contain spaces. Chain dependent commands with && and independent ones with ;.
- Give a short description (5-10 words) of what the command does.
- Commands may run inside a sandbox: writes only inside the workspace, no network, credentials hidden. When a command fails because the sandbox blocked it (no network, a read-only or missing path), run it again with dangerouslyDisableSandbox: true; the user is then asked. Never set it otherwise.`
}

// Permission implements Permissioner: the command, the directory the
// session's shell is in now (which is where it will run), the variables
// the shell carries into it, and whether the sandbox confines it.
func (*Bash) Permission(input json.RawMessage, env *Env) permission.Request {
	var in bashInput
	_ = json.Unmarshal(input, &in) // a partial request is better than none; Run validates
	m := shellsOf(env)
	cwd, _ := m.cwdFor(env)
	req := permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: in.Command, Workdir: cwd,
		Sandboxed: env.Sandbox != nil, SandboxUnavailable: env.SandboxUnavailable, ShellEnv: m.carried(env)}
	if leaves, excluded := leavesSandbox(in, env); leaves {
		req.Sandboxed, req.LeavesSandbox, req.Excluded = false, true, excluded
		req.SandboxFailure = m.sandboxFailure(in.Command)
	}
	return req
}

// leavesSandbox reports whether the call runs outside the session's
// sandbox: the model asked (dangerouslyDisableSandbox), or
// sandbox.excludedCommands names a command of it (excluded, the pattern).
// Without a sandbox there is nothing to leave.
func leavesSandbox(in bashInput, env *Env) (leaves bool, excluded string) {
	if env.Sandbox == nil {
		return false, ""
	}
	if in.DangerouslyDisableSandbox {
		return true, ""
	}
	p := permission.ExcludedCommand(env.SandboxExcluded, in.Command)
	return p != "", p
}

// RunsBeside reports whether a call may run beside other calls, in a shell
// process of its own: nova's read-only table allowed it unasked, it changes
// nothing the session's shell carries, and it is not a background job.
func (*Bash) RunsBeside(input json.RawMessage, d permission.Decision) bool {
	var in bashInput
	if json.Unmarshal(input, &in) != nil || in.RunInBackground || in.DangerouslyDisableSandbox {
		return false
	}
	return d.Auto && !d.ShellState
}

// Run implements Tool.
func (*Bash) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in bashInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid Bash input: %v", err), nil
	}
	if strings.TrimSpace(in.Command) == "" {
		return Errorf("command is empty"), nil
	}
	m := shellsOf(env)
	d, _ := DecisionOf(ctx)
	leaves, _ := leavesSandbox(in, env)
	o := runOpts{unsandboxed: leaves, auto: d.Auto, beside: d.Auto && !d.ShellState, hosts: hostsOf(ctx)}
	if in.RunInBackground {
		o.hosts = o.hosts.unasked()
		return runBashBackground(m, env, in, o)
	}
	timeout := bashTimeout(in.Timeout)
	out, err := m.run(ctx, env, in.Command, timeout, o)
	if err != nil {
		return Result{}, fmt.Errorf("bash: %w", err)
	}
	if !leaves && env.Sandbox != nil {
		m.noteSandboxed(in.Command, out)
	}
	disp := display.OfCommand(display.Command{Command: in.Command, ExitCode: out.exitCode, TimedOut: out.timedOut, Cwd: out.cwd})
	var b strings.Builder
	if out.note != "" {
		b.WriteString(out.note + "\n")
	}
	b.WriteString(strings.TrimRight(out.output, "\n"))
	res := Result{Display: disp}
	switch {
	case out.timedOut:
		fmt.Fprintf(&b, "\nCommand timed out after %s", bashSeconds(timeout))
		res.IsError = true
	case out.interrupted:
		b.WriteString("\nCommand was interrupted")
		res.IsError = true
	case out.exitCode != 0:
		fmt.Fprintf(&b, "\nExit code: %d", out.exitCode)
	}
	b.WriteString(o.hosts.refusedNote())
	res.Output = strings.TrimLeft(b.String(), "\n")
	if res.Output == "" {
		res.Output = "(no output)"
	}
	return res, nil
}

func runBashBackground(m *shellManager, env *Env, in bashInput, o runOpts) (Result, error) {
	s, note, err := m.background(env, in.Command, in.Description, o)
	if err != nil {
		return Result{}, fmt.Errorf("bash: %w", err)
	}
	var b strings.Builder
	if note != "" {
		b.WriteString(note + "\n")
	}
	fmt.Fprintf(&b, "Command running in background with ID: %s\n", s.id)
	fmt.Fprintf(&b, "Read its output with BashOutput (bash_id %q); stop it with KillShell (shell_id %q).", s.id, s.id)
	return Result{Output: b.String(), Display: display.OfCommand(display.Command{Command: in.Command, Cwd: s.cwd, Background: s.id})}, nil
}

// bashTimeout turns the timeout input (ms) into a duration: the default
// when absent or not positive, capped at the maximum.
func bashTimeout(ms *float64) time.Duration {
	v := float64(bashDefaultTimeout)
	if ms != nil && *ms > 0 {
		v = min(*ms, bashMaxTimeout)
	}
	return time.Duration(v * float64(time.Millisecond))
}

// bashSeconds formats d as "0.5s", "120s".
func bashSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}
