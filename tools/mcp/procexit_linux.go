package mcp

import "golang.org/x/sys/unix"

// processExited reports whether the child pid has exited, without
// reaping it: mcp-go's transport reaps it when it is closed, and a pid
// reaped here could be another process's by then. The kernel sets
// si_signo to SIGCHLD only when it found such a child.
func processExited(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo == int32(unix.SIGCHLD)
}
