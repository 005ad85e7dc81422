//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
	"time"
)

// detach starts a stdio server in its own session, away from nova's
// terminal (a Ctrl-C meant for nova does not kill it; it cannot draw on
// the TUI's screen), and makes stopping it stop everything it started:
// npx runs the real server as a child, which must not outlive it. A
// server that dies with nova sees its stdin close and exits.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
}
