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
// until the timeout) or scribbling over the TUI. Where the system can, the
// leader is killed when nova dies (see setPdeathsig).
func setShellProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	setPdeathsig(cmd.SysProcAttr)
}

// forker starts processes from one goroutine locked to its OS thread. The
// kernel sends the parent-death signal when the thread that forked a child
// exits, not when the process does (golang/go#27505), and the Go runtime
// ends a thread whenever a goroutine locked to it returns: a child forked
// from an ordinary goroutine's thread dies if some other code later locks
// that thread and leaves it. The forker's thread only forks and stays
// locked until the shells it started are gone.
type forker struct {
	reqs chan func()
}

func newForker() *forker {
	f := &forker{reqs: make(chan func())}
	go func() {
		// Never unlocked: when the forker closes, its thread ends, and any
		// child of it somehow still alive is killed with it.
		runtime.LockOSThread()
		for fn := range f.reqs {
			fn()
		}
	}()
	return f
}

// start starts cmd from the forker's thread.
func (f *forker) start(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	f.reqs <- func() { errc <- cmd.Start() }
	return <-errc
}

// close ends the forker; call it once every process it started is gone.
func (f *forker) close() { close(f.reqs) }

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
	members, ok := groupMembers(pgid)
	return len(members), ok
}

// groupMembers returns the processes of group pgid that are not zombies,
// reading /proc; ok is false when /proc cannot be read.
func groupMembers(pgid int) (members []procInfo, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		pi, found := procStat(e.Name())
		if found && pi.pgid == pgid && pi.state != 'Z' && pi.state != 'X' {
			members = append(members, pi)
		}
	}
	return members, true
}

// procInfo is what nova reads of a process in /proc/<pid>/stat.
type procInfo struct {
	pid   int
	state byte // R, S, D, Z ...
	ppid  int
	pgid  int
	sid   int
	// start is when the process started, in clock ticks since boot: with
	// the pid, it names one process, where a pid alone may be reused.
	start uint64
}

// procStat reads /proc/<pid>/stat. The command name is in parentheses and
// may hold spaces, so fields are counted from the last ')'.
func procStat(pid string) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp session ... starttime (the 20th)
	if len(f) < 20 || len(f[0]) != 1 {
		return procInfo{}, false
	}
	pi := procInfo{state: f[0][0]}
	var errs [5]error
	pi.pid, errs[0] = strconv.Atoi(pid)
	pi.pgid, errs[1] = strconv.Atoi(f[2])
	pi.sid, errs[2] = strconv.Atoi(f[3])
	pi.start, errs[3] = strconv.ParseUint(f[19], 10, 64)
	pi.ppid, errs[4] = strconv.Atoi(f[1])
	for _, err := range errs {
		if err != nil {
			return procInfo{}, false
		}
	}
	return pi, true
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
