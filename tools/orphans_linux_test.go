package tools

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// groupLeader starts `sleep` as the leader of its own session and group,
// as the shells start, and returns it and its /proc entry.
func groupLeader(t *testing.T) (*exec.Cmd, procInfo) {
	t.Helper()
	cmd := exec.Command("sleep", "1000")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pi, ok := procStat(strconv.Itoa(cmd.Process.Pid))
	if !ok {
		t.Skip("no /proc here")
	}
	return cmd, pi
}

// writeRecord writes rec into dir as a shell's record.
func writeRecord(t *testing.T, dir string, rec shellRecord) string {
	t.Helper()
	data, _ := json.Marshal(rec)
	path := filepath.Join(dir, "shell-"+strconv.Itoa(rec.Owner)+"-"+strconv.Itoa(rec.Group)+".json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// killedBySignal reports whether cmd ended by SIGKILL, waiting for it.
func killedBySignal(cmd *exec.Cmd) bool {
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func TestReapOrphanShells(t *testing.T) {
	self, ok := procStat(strconv.Itoa(os.Getpid()))
	boot := bootID()
	if !ok || boot == "" {
		t.Skip("no /proc here")
	}
	dead := shellRecord{Owner: self.pid, OwnerStart: self.start + 1, Boot: boot} // not this process: its start differs
	tests := []struct {
		name   string
		record func(leader procInfo) shellRecord
		killed bool
	}{
		{"owner dead: its group is stopped", func(l procInfo) shellRecord {
			r := dead
			r.Group, r.Start = l.pid, l.start
			return r
		}, true},
		{"owner alive: left to it", func(l procInfo) shellRecord {
			return shellRecord{Owner: self.pid, OwnerStart: self.start, Boot: boot, Group: l.pid, Start: l.start}
		}, false},
		{"the group id reused by another leader", func(l procInfo) shellRecord {
			r := dead
			r.Group, r.Start = l.pid, l.start+1
			return r
		}, false},
		{"from an earlier boot", func(l procInfo) shellRecord {
			r := dead
			r.Group, r.Start, r.Boot = l.pid, l.start, "another-boot"
			return r
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd, leader := groupLeader(t)
			path := writeRecord(t, dir, tt.record(leader))
			n := ReapOrphanShells(dir)
			if tt.killed != (n == 1) {
				t.Fatalf("stopped %d processes, want killed=%v", n, tt.killed)
			}
			if tt.killed && !killedBySignal(cmd) {
				t.Error("the orphan was not killed")
			}
			if !tt.killed && syscall.Kill(leader.pid, 0) != nil {
				t.Error("a process that is not an orphan was hit")
			}
			_, err := os.Stat(path)
			if kept := err == nil; kept != (tt.name == "owner alive: left to it") {
				t.Errorf("record kept = %v", kept)
			}
		})
	}
}

// TestShellsRecordTheirGroups checks that a running shell's group is on
// record, with its leader's identity, and is struck off once it ends.
func TestShellsRecordTheirGroups(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	env := NewEnv(t.TempDir())
	RecordShellsIn(env, dir)
	t.Cleanup(func() { env.Close() })
	id := startBackground(t, env, "echo pid=$$; exec sleep 1000")
	out, _ := readUntil(t, env, id, "", outputHas("pid="))
	pgid := pidIn(t, out, "pid")

	recs, _ := filepath.Glob(filepath.Join(dir, "shell-*.json"))
	if len(recs) != 1 {
		t.Fatalf("records %v, want one", recs)
	}
	var rec shellRecord
	data, _ := os.ReadFile(recs[0])
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	leader, _ := procStat(strconv.Itoa(pgid))
	if rec.Group != pgid || rec.Start != leader.start || rec.Owner != os.Getpid() || !isProcess(rec.Owner, rec.OwnerStart) || rec.Boot != bootID() {
		t.Errorf("record %+v, want group %d started at %d, owned by this process", rec, pgid, leader.start)
	}
	if n := ReapOrphanShells(dir); n != 0 {
		t.Errorf("the live owner's shell was reaped (%d)", n)
	}

	res := shellCall(t, t.Context(), &KillShell{}, env, map[string]any{"shell_id": id})
	if res.IsError {
		t.Fatalf("KillShell: %s", res.Output)
	}
	if recs, _ := filepath.Glob(filepath.Join(dir, "shell-*.json")); len(recs) != 0 {
		t.Errorf("records %v left after the shell ended", recs)
	}
}

// TestForkerOutlivesLockedThreads is golang/go#27505: the parent-death
// signal follows the thread that forked, and a goroutine that returns while
// locked to its thread ends that thread. A shell started from such a thread
// would die with it; started through the forker, it lives.
func TestForkerOutlivesLockedThreads(t *testing.T) {
	for _, viaForker := range []bool{false, true} {
		t.Run(map[bool]string{false: "control: forked from the dying thread", true: "forker"}[viaForker], func(t *testing.T) {
			f := newForker()
			defer f.close()
			cmd := exec.Command("sleep", "1000")
			setShellProcAttr(cmd)
			tid := make(chan int, 1)
			errc := make(chan error, 1)
			go func() {
				runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
				tid <- unix.Gettid()
				if viaForker {
					errc <- f.start(cmd)
				} else {
					errc <- cmd.Start()
				}
			}()
			thread := <-tid
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			if thread == os.Getpid() {
				t.Skip("the goroutine ran on the main thread, which Go never ends")
			}
			// Once the thread is gone the kernel has sent the signal, if any.
			for {
				if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(thread)); errors.Is(err, os.ErrNotExist) {
					break
				}
				runtime.Gosched()
			}
			if got := killPending(cmd.Process.Pid) || exited(cmd.Process.Pid); got == viaForker {
				t.Errorf("killed when its forking thread ended = %v, want %v", got, !viaForker)
			}
		})
	}
}

// killPending reports whether pid has SIGKILL pending (sent, not yet acted on).
func killPending(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if k != "SigPnd" && k != "ShdPnd" {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err == nil && mask&(1<<(uint(syscall.SIGKILL)-1)) != 0 {
			return true
		}
	}
	return false
}

// exited reports whether pid has ended (a zombie, or gone).
func exited(pid int) bool {
	pi, ok := procStat(strconv.Itoa(pid))
	return !ok || pi.state == 'Z' || pi.state == 'X'
}

// TestReapSweepsMarkedProcesses: a process that left every recorded group
// (bwrap's inner processes do) but carries the run marker of a nova that
// is gone is stopped at the next start; one whose nova runs is not.
func TestReapSweepsMarkedProcesses(t *testing.T) {
	self, ok := procStat(strconv.Itoa(os.Getpid()))
	if !ok {
		t.Skip("no /proc here")
	}
	start := func(marker string) *exec.Cmd {
		cmd := exec.Command("sleep", "1000")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Env = append(os.Environ(), runMarkerVar+"="+marker)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	owner := func(start uint64, ns, rest string) string {
		return strconv.Itoa(self.pid) + "-" + strconv.FormatUint(start, 10) + "-" + ns + "-" + rest
	}
	orphan := start(owner(self.start+1, pidNamespace(), "dead.1"))
	live := start(owner(self.start, pidNamespace(), "live.1"))
	// A nova of another pid namespace (one run inside the sandbox, whose
	// view hides the nova outside) is never taken for dead.
	elsewhere := start(owner(self.start+1, "1", "elsewhere.1"))
	deadline := time.Now().Add(5 * time.Second)
	for markerOf(strconv.Itoa(orphan.Process.Pid)) == "" || markerOf(strconv.Itoa(live.Process.Pid)) == "" {
		if time.Now().After(deadline) {
			t.Fatal("the sleeps never showed their markers")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := ReapOrphanShells(t.TempDir()); n < 1 {
		t.Errorf("stopped %d processes, want the orphan", n)
	}
	if !killedBySignal(orphan) {
		t.Error("the process of a dead nova was not stopped")
	}
	if syscall.Kill(live.Process.Pid, 0) != nil {
		t.Error("the process of a running nova was hit")
	}
	if syscall.Kill(elsewhere.Process.Pid, 0) != nil {
		t.Error("the process of another pid namespace's nova was hit")
	}
}
