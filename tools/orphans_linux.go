package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// shellRecordsKey is where Env.State keeps the shells' record directory.
const shellRecordsKey = "bash.records"

// RecordShellsIn has env's shells write a record of each process group they
// start into dir, removed once the group is gone. A nova that dies without
// stopping its shells (SIGKILL, a crash) leaves its records behind, and the
// next nova's ReapOrphanShells stops what they name. dir must be out of
// reach of sandboxed commands: a forged record names processes to kill.
func RecordShellsIn(env *Env, dir string) {
	env.State(shellRecordsKey, func() any { return &shellRecords{dir: dir} })
}

// shareShellRecords records the shells of child (a subagent's Env)
// where parent's are recorded.
func shareShellRecords(child, parent *Env) {
	rec := recordsOf(parent)
	child.State(shellRecordsKey, func() any { return rec })
}

// recordsOf returns env's shell records; they record nothing unless
// RecordShellsIn named a directory.
func recordsOf(env *Env) *shellRecords {
	return env.State(shellRecordsKey, func() any { return &shellRecords{} }).(*shellRecords)
}

// shellRecord names one process group of a nova's shell. Pids are reused;
// a pid with its start time (and the boot it belongs to) is not.
type shellRecord struct {
	Owner      int    `json:"owner"`       // nova's pid
	OwnerStart uint64 `json:"owner_start"` // its start, in clock ticks since boot
	Group      int    `json:"pgid"`        // the group, whose id is its leader's pid
	Start      uint64 `json:"start"`       // the leader's start
	Boot       string `json:"boot"`        // /proc/sys/kernel/random/boot_id
}

// shellRecords writes and removes the records of one session's shells.
type shellRecords struct {
	dir string

	once  sync.Once
	owner *shellRecord // this nova's part of every record; nil when unknown
}

// add records group pgid, whose leader has just started and is not yet
// reaped (so its pid is still its own), and returns the record's path, ""
// when nothing was recorded. A record that cannot be written (a full disk)
// costs only the clean-up after a crash, so the command runs regardless.
func (r *shellRecords) add(pgid int) string {
	if r.dir == "" {
		return ""
	}
	r.once.Do(func() {
		self, ok := procStat(strconv.Itoa(os.Getpid()))
		if boot := bootID(); ok && boot != "" {
			r.owner = &shellRecord{Owner: self.pid, OwnerStart: self.start, Boot: boot}
			_ = os.MkdirAll(r.dir, 0o700)
		}
	})
	leader, ok := procStat(strconv.Itoa(pgid))
	if r.owner == nil || !ok {
		return ""
	}
	rec := *r.owner
	rec.Group, rec.Start = pgid, leader.start
	data, err := json.Marshal(rec)
	if err != nil {
		return ""
	}
	path := filepath.Join(r.dir, fmt.Sprintf("shell-%d-%d.json", rec.Owner, pgid))
	if os.WriteFile(path, data, 0o600) != nil {
		os.Remove(path)
		return ""
	}
	return path
}

// remove deletes a record add returned, once its group is gone.
func (r *shellRecords) remove(path string) {
	if path != "" {
		_ = os.Remove(path)
	}
}

// ReapOrphanShells stops the shell processes that novas which died without
// stopping them left running, as their records in dir name them, and
// removes those records; then the processes whose run marker names a nova
// that is gone (what left the recorded groups: a sandboxed command's inner
// bwrap, a setsid'd program). Records and markers of a nova still running
// are left alone. It returns how many processes it stopped.
func ReapOrphanShells(dir string) int {
	done := map[int]bool{}
	ents, _ := os.ReadDir(dir)
	boot := bootID()
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "shell-") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var rec shellRecord
		if json.Unmarshal(data, &rec) == nil && rec.Group > 1 && rec.Boot == boot {
			if isProcess(rec.Owner, rec.OwnerStart) {
				continue // its nova runs and stops its own shells
			}
			killOrphanGroup(rec, done)
		}
		// A record torn by a crash, of an earlier boot (which ended every
		// process) or now dealt with.
		_ = os.Remove(path)
	}
	return len(done) + sweepMarked(done)
}

// isProcess reports whether pid is alive and is the process that started
// at start.
func isProcess(pid int, start uint64) bool {
	pi, ok := procStat(strconv.Itoa(pid))
	return ok && pi.start == start && pi.state != 'Z' && pi.state != 'X'
}

// killOrphanGroup kills what is left of the recorded group, adding them
// to done: the processes in its process group and session that started no
// earlier than its leader. Its leader, usually, is gone already (the parent-death signal
// took it). A living leader that is not the recorded one means the id was
// reused, and nothing is killed.
func killOrphanGroup(rec shellRecord, done map[int]bool) {
	members, ok := groupMembers(rec.Group)
	if !ok {
		return
	}
	for _, m := range members {
		if m.pid == rec.Group && m.start != rec.Start {
			return
		}
	}
	for _, m := range members {
		if m.sid == rec.Group && m.start >= rec.Start && killExactly(m) {
			done[m.pid] = true
		}
	}
}

// killExactly sends SIGKILL to the process pi describes and to no other:
// through a pidfd, checked after it is opened, so a pid freed and reused
// since /proc was read is not hit. Without pidfds (Linux before 5.3) the
// window between the check and kill is left.
func killExactly(pi procInfo) bool {
	fd, err := unix.PidfdOpen(pi.pid, 0)
	if errors.Is(err, syscall.ENOSYS) {
		return isProcess(pi.pid, pi.start) && syscall.Kill(pi.pid, syscall.SIGKILL) == nil
	}
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if !isProcess(pi.pid, pi.start) {
		return false
	}
	return unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil
}

// bootID names the current boot, "" when unknown.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}
