//go:build unix

package tools

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Timings of stopping a process group.
const (
	procPollInterval = 10 * time.Millisecond
	procKillWait     = 2 * time.Second // how long SIGKILL may take to land
)

// setShellProcAttr starts cmd as the leader of a new session, and so of a
// new process group whose id is its pid. A session rather than a bare
// Setpgid also detaches it from nova's controlling terminal: a command that
// opens /dev/tty fails at once instead of being stopped by SIGTTIN (a hang
// until the timeout) or scribbling over the TUI.
func setShellProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// killProcGroup stops every process of group pgid: SIGTERM (and SIGCONT, so
// stopped members can act on it), up to grace for them to exit, then SIGKILL.
// It returns once the group is gone or SIGKILL has had procKillWait to land.
func killProcGroup(pgid int, grace time.Duration) {
	if pgid <= 0 {
		return
	}
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
	if waitProcGroupGone(pgid, grace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitProcGroupGone(pgid, procKillWait)
}

// waitProcGroupGone polls until group pgid has no live process or d has
// passed, and reports whether it is gone.
func waitProcGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for procGroupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(procPollInterval)
	}
	return true
}

// procGroupAlive reports whether group pgid has a process that still runs.
// kill(-pgid, 0) alone also counts zombies, and an orphaned member whose
// parent died first stays a zombie for good under an init that does not
// reap (common in containers); on Linux /proc tells the two apart.
func procGroupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return false
	}
	if runtime.GOOS != "linux" {
		return true
	}
	live, ok := liveGroupMembers(pgid)
	return !ok || live > 0
}

// liveGroupMembers counts the processes of group pgid that are not zombies,
// reading /proc; ok is false when /proc cannot be read.
func liveGroupMembers(pgid int) (live int, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		state, group, found := procStat(e.Name())
		if found && group == pgid && state != 'Z' && state != 'X' {
			live++
		}
	}
	return live, true
}

// procStat reads the state letter and process group of /proc/<pid>/stat.
// The command name is in parentheses and may hold spaces, so fields are
// counted from the last ')'.
func procStat(pid string) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp ...
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], g, true
}

// shellExitCode is the exit code a shell would report for ps: the status,
// or 128+n when the process died of signal n; -1 when it is unknown.
func shellExitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
