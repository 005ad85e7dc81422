package tools

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runMarkerVar names the variable every shell command nova starts carries
// in its environment, and every process it starts inherits: the command's
// run marker. bwrap's inner processes leave the command's process group
// and session (--new-session) and, when bwrap is stopped in its first
// moments, its parent-death signal too; the marker still names them.
const runMarkerVar = "NOVA_RUN_ID"

// freezeWait bounds how long killing a command waits for its frozen
// leader to stop, so it can no longer fork what the kill would miss.
const freezeWait = 200 * time.Millisecond

// newRunMarker returns a marker for one session's commands:
// <nova's pid>-<its start time>-<its pid namespace>-<random>. The owner in
// front lets a later nova tell the processes of a dead nova from those of
// a running one, in the same pid namespace only: a nova run inside the
// sandbox (a pid namespace of its own) cannot see the nova outside, and
// must not take it for dead. The random part tells sessions apart.
func newRunMarker() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	start := uint64(0)
	if self, ok := procStat(strconv.Itoa(os.Getpid())); ok {
		start = self.start
	}
	return strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(start, 10) + "-" + pidNamespace() + "-" + hex.EncodeToString(b[:])
}

// pidNamespace names this process's pid namespace (the inode of
// /proc/self/ns/pid), "0" when unknown.
func pidNamespace() string {
	link, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return "0"
	}
	ino := strings.TrimSuffix(strings.TrimPrefix(link, "pid:["), "]")
	if _, err := strconv.ParseUint(ino, 10, 64); err != nil {
		return "0"
	}
	return ino
}

// markedProc is a process of the scan with its marker ("" for none).
type markedProc struct {
	procInfo
	marker string
}

// scanProcs reads every live process's stat and run marker. Processes of
// other users, whose environment cannot be read, have no marker.
func scanProcs() []markedProc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []markedProc
	for _, e := range ents {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pi, ok := procStat(name)
		if !ok || pi.pid == self || pi.state == 'Z' || pi.state == 'X' {
			continue
		}
		out = append(out, markedProc{procInfo: pi, marker: markerOf(name)})
	}
	return out
}

// markerOf reads process pid's run marker from its environment.
func markerOf(pid string) string {
	b, err := os.ReadFile("/proc/" + pid + "/environ")
	if err != nil {
		return ""
	}
	key := []byte(runMarkerVar + "=")
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, key); ok {
			return string(v)
		}
	}
	return ""
}

// killEscapees is the first step of killing a command whose leader is
// pgid and whose processes carry marker: it freezes the group (SIGSTOP:
// its leader can fork no more) and SIGKILLs the processes of the command
// the group kill would miss, those that left the group (bwrap's inner
// processes, a setsid'd program) found by their marker or as descendants
// of the leader. With all, it SIGKILLs every process of the command: a
// sandboxed command's inner bwrap is the init of a pid namespace, which
// ignores the SIGTERM of a graceful kill. leaderAlive says the leader is
// not yet reaped, so its pid still names it.
func killEscapees(pgid int, marker string, leaderAlive, all bool) {
	if pgid <= 0 {
		return
	}
	if leaderAlive && syscall.Kill(-pgid, syscall.SIGSTOP) == nil {
		waitStopped(pgid)
	}
	procs := scanProcs()
	children := map[int][]int{}
	byPid := map[int]markedProc{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
		byPid[p.pid] = p
	}
	hit := map[int]bool{}
	if leaderAlive {
		queue := []int{pgid}
		for len(queue) > 0 {
			pid := queue[0]
			queue = queue[1:]
			for _, c := range children[pid] {
				if !hit[c] {
					hit[c] = true
					queue = append(queue, c)
				}
			}
		}
	}
	for _, p := range procs {
		if marker != "" && p.marker == marker {
			hit[p.pid] = true
		}
	}
	for pid := range hit {
		p := byPid[pid]
		if all || p.pgid != pgid {
			killExactly(p.procInfo)
		}
	}
}

// killMarked SIGKILLs every process still carrying marker: what left the
// group while the graceful kill ran.
func killMarked(marker string) {
	if marker == "" {
		return
	}
	for _, p := range scanProcs() {
		if p.marker == marker {
			killExactly(p.procInfo)
		}
	}
}

// waitStopped waits, up to freezeWait, until the leader of group pgid is
// stopped (or gone).
func waitStopped(pgid int) {
	deadline := time.Now().Add(freezeWait)
	for time.Now().Before(deadline) {
		pi, ok := procStat(strconv.Itoa(pgid))
		if !ok || pi.state == 'T' || pi.state == 'Z' || pi.state == 'X' {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// sweepMarked SIGKILLs the processes whose marker names a nova of this
// pid namespace that is gone, except those in done (already stopped), and
// returns how many.
func sweepMarked(done map[int]bool) int {
	ns := pidNamespace()
	if ns == "0" {
		return 0 // no telling whose namespace a marker is from
	}
	n := 0
	for _, p := range scanProcs() {
		if p.marker == "" || done[p.pid] {
			continue
		}
		owner, start, ownerNS, ok := markerOwner(p.marker)
		if !ok || ownerNS != ns || isProcess(owner, start) {
			continue
		}
		if killExactly(p.procInfo) {
			n++
		}
	}
	return n
}

// markerOwner parses the nova that a marker names, and its pid namespace.
func markerOwner(marker string) (pid int, start uint64, ns string, ok bool) {
	f := strings.SplitN(marker, "-", 4)
	if len(f) != 4 {
		return 0, 0, "", false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	return pid, start, f[2], err1 == nil && err2 == nil && pid > 1 && start > 0
}
