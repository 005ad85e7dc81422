//go:build unix

package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// maxOutput bounds what nova keeps of a hook's stdout and of its stderr.
const maxOutput = 1 << 20

// waitDelay is how long nova waits, after a hook's process has ended,
// for children it left holding its output open.
const waitDelay = 2 * time.Second

// runCommand runs a command hook: through sh -c (bash -c with "shell":
// "bash"), or the program itself with "args", in the workspace, the
// event's JSON on stdin. The hook leads a session of its own, with no
// controlling terminal (as Claude Code's), and on timeout or
// cancellation its whole process group is killed.
func (e *Engine) runCommand(ctx context.Context, h *Hook, ev Event, payload []byte) reply {
	limit := timeout(h, ev)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var cmd *exec.Cmd
	if h.Exec {
		args := make([]string, len(h.Args))
		for i, a := range h.Args {
			args[i] = e.placeholders(h, a)
		}
		cmd = exec.CommandContext(ctx, e.placeholders(h, h.Command), args...)
	} else {
		shell := "/bin/sh"
		if h.Shell == "bash" {
			shell = "bash"
		}
		cmd = exec.CommandContext(ctx, shell, "-c", h.Command)
	}
	cmd.Dir = e.s.ProjectDir
	cmd.Env = e.environ(h)
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr capBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error {
		// The hook and everything it started: a guard that spawned a
		// helper must not leave it running past its timeout.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	r := reply{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case cmd.Process == nil:
		r.broken = fmt.Sprintf("could not start: %v", err)
		return r
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		r.broken = fmt.Sprintf("timed out after %s and was stopped", seconds(limit))
		return r
	case ctx.Err() != nil:
		r.broken = "was stopped: the run it belonged to was interrupted"
		return r
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.broken = fmt.Sprintf("was killed (%v)", ws.Signal())
			return r
		}
		r.code = exitErr.ExitCode()
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		r.broken = fmt.Sprintf("failed: %v", err)
		return r
	}
	if r.code == 126 || r.code == 127 {
		// The shell's "not executable" and "not found": the hook itself
		// never ran, however the shell exited.
		r.broken = fmt.Sprintf("could not start (exit %d: %s)", r.code, orNone(firstLine(r.stderr)))
	}
	return r
}

// environ is nova's environment as the session's policy leaves it for
// hooks (without nova's own credentials), the settings' env, the project
// directory under Claude Code's name and nova's, and what h's source
// adds (a skill's directory).
func (e *Engine) environ(h *Hook) []string {
	env := e.s.EnvPolicy.Hooks(os.Environ())
	for k, v := range e.s.Env {
		env = append(env, k+"="+v)
	}
	env = append(env, "CLAUDE_PROJECT_DIR="+e.s.ProjectDir, "NOVA_PROJECT_DIR="+e.s.ProjectDir)
	for k, v := range h.env {
		env = append(env, k+"="+v)
	}
	return env
}

// placeholders puts the project directory in for ${CLAUDE_PROJECT_DIR}
// and ${NOVA_PROJECT_DIR} in the exec form, where no shell expands them,
// and the values h's source adds (${CLAUDE_SKILL_DIR}).
func (e *Engine) placeholders(h *Hook, s string) string {
	vals := map[string]string{"CLAUDE_PROJECT_DIR": e.s.ProjectDir, "NOVA_PROJECT_DIR": e.s.ProjectDir}
	for k, v := range h.env {
		vals[k] = v
	}
	for name, v := range vals {
		s = strings.ReplaceAll(s, "${"+name+"}", v)
	}
	for name, v := range vals {
		s = strings.ReplaceAll(s, "$"+name, v)
	}
	return s
}

func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	return d.String()
}

// capBuffer keeps the first maxOutput bytes written to it and drops the
// rest: a hook that floods its output cannot fill nova's memory.
type capBuffer struct{ bytes.Buffer }

// Write keeps what fits and reports all of p written, so the hook is
// never stopped by a full pipe.
func (b *capBuffer) Write(p []byte) (int, error) {
	if room := maxOutput - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}
