package team

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nova-dev/nova/atomicfile"
)

// helperEnv names the role a re-executed test binary plays.
const helperEnv = "NOVA_TEAM_HELPER"

// TestHelperProcess is not a test: it is the body of the processes the
// tests below start (the test binary run again with helperEnv set).
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(helperEnv)
	if role == "" {
		t.Skip("helper process")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	err := runHelper(role, args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

func suicide() { syscall.Kill(os.Getpid(), syscall.SIGKILL); select {} }

func runHelper(role string, args []string) error {
	dir := args[0]
	switch role {
	case "writer": // dir member n: create n tasks and add n notes to task 1
		b := NewBoard(dir)
		n, _ := strconv.Atoi(args[2])
		for i := range n {
			if _, err := b.Create(args[1], fmt.Sprintf("%s-%d", args[1], i), ""); err != nil {
				return err
			}
			if _, err := b.Update("1", args[1], Update{Progress: fmt.Sprintf("%s-%d", args[1], i)}); err != nil {
				return err
			}
		}
		return nil
	case "holder": // dir member task lease renew: claim, say so, then hold
		b := NewBoard(dir)
		b.Lease, _ = time.ParseDuration(args[3])
		if _, err := b.Update(args[2], args[1], Update{Status: StatusInProgress}); err != nil {
			return err
		}
		fmt.Println("claimed")
		if args[4] != "renew" {
			select {}
		}
		for {
			time.Sleep(b.Lease / 10) // the heartbeat's period, not a synchronisation
			if _, err := b.Renew(args[1]); err != nil {
				return err
			}
		}
	case "sender": // dir n: send messages m0000..; its state is the next index
		n, _ := strconv.Atoi(args[1])
		mb := NewMailbox(dir)
		statePath := filepath.Join(dir, "sender.json")
		next := 0
		if data, err := os.ReadFile(statePath); err == nil {
			json.Unmarshal(data, &next)
		}
		for i := next; i < n; i++ {
			if _, err := mb.Send(Message{ID: fmt.Sprintf("m%04d", i), From: "sender", To: "recv", Text: strconv.Itoa(i)}); err != nil {
				return err
			}
			if rand.IntN(60) == 0 {
				suicide() // sent, not yet recorded: the restart sends it again
			}
			// The test's own bookkeeping, unsynced: a SIGKILL loses no page cache.
			if err := atomicfile.WriteCache(statePath, []byte(strconv.Itoa(i+1)), 0o600); err != nil {
				return err
			}
			fmt.Println(i)
		}
		return nil
	case "receiver": // dir n: process until n messages are in the effect log
		n, _ := strconv.Atoi(args[1])
		r, err := OpenReceiver[[]int](NewMailbox(dir), "recv", filepath.Join(dir, "recv-state.json"))
		if err != nil {
			return err
		}
		r.crash = func(string) {
			if rand.IntN(60) == 0 {
				suicide() // recorded, not yet acked: the restart sees it again
			}
		}
		for len(r.State()) < n {
			if _, err := r.mb.Wait(context.Background(), "recv", time.Millisecond); err != nil {
				return err
			}
			msgs, err := r.Next()
			if err != nil {
				return err
			}
			for _, m := range msgs {
				err := r.Process(m, func(m Message, log *[]int) error {
					v, _ := strconv.Atoi(m.Text)
					*log = append(*log, v)
					return nil
				})
				if err != nil {
					return err
				}
				fmt.Println(m.ID)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown helper role %q", role)
}

// helper starts the test binary as a helper process playing role.
func helper(t *testing.T, role string, args ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), helperEnv+"="+role)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

func TestEightWriterProcessesLoseNoUpdate(t *testing.T) {
	dir := t.TempDir()
	b := NewBoard(dir)
	if _, err := b.Create("lead", "shared", ""); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 12
	var cmds []*exec.Cmd
	for w := range writers {
		cmd, _ := helper(t, "writer", dir, fmt.Sprintf("w%d", w), strconv.Itoa(each))
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	tasks, err := b.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1+writers*each {
		t.Errorf("%d tasks, want %d: creates were lost", len(tasks), 1+writers*each)
	}
	ids, subjects := map[string]bool{}, map[string]bool{}
	for _, tk := range tasks {
		ids[tk.ID], subjects[tk.Subject] = true, true
	}
	if len(ids) != len(tasks) || len(subjects) != len(tasks) {
		t.Errorf("duplicate ids or subjects: %d ids, %d subjects for %d tasks", len(ids), len(subjects), len(tasks))
	}
	if n := len(tasks[0].Notes); n != writers*each {
		t.Errorf("task 1 has %d notes, want %d: updates were lost", n, writers*each)
	}
}

func TestKilledHolderTaskReturnsAndLiveHolderKeepsIt(t *testing.T) {
	t.Parallel() // waits on leases and processes, not the CPU: beside the others
	dir := t.TempDir()
	b := NewBoard(dir)
	for range 2 {
		b.Create("lead", "t", "")
	}
	const lease = "1500ms"
	dead, out := helper(t, "holder", dir, "dead", "1", lease, "hold")
	if !out.Scan() {
		t.Fatal("the dying holder did not claim")
	}
	_, out2 := helper(t, "holder", dir, "live", "2", lease, "renew")
	if !out2.Scan() {
		t.Fatal("the live holder did not claim")
	}
	dead.Process.Signal(syscall.SIGKILL)
	dead.Wait()
	if tk, _ := b.Get("1"); tk.Owner != "dead" {
		t.Fatalf("task 1 = %+v before the lease expired", tk)
	}
	// Wait for the lease: looked at until it lapses, bounded.
	deadline := time.Now().Add(20 * time.Second)
	for {
		tk, err := b.Get("1")
		if err != nil {
			t.Fatal(err)
		}
		if tk.Status == StatusPending {
			if tk.Owner != "" || len(tk.Notes) == 0 {
				t.Errorf("returned task = %+v", tk)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task 1 never returned to the board: %+v", tk)
		}
		time.Sleep(50 * time.Millisecond)
	}
	tk, _ := b.Get("2")
	if tk.Status != StatusInProgress || tk.Owner != "live" {
		t.Errorf("the live holder lost its task: %+v", tk)
	}
}

func TestThousandMessagesProcessedOnceThroughKills(t *testing.T) {
	t.Parallel() // waits on leases and processes, not the CPU: beside the others
	dir := t.TempDir()
	const n = 1000
	run := func(role string, restarts *int) error {
		for {
			cmd, out := helper(t, role, dir, strconv.Itoa(n))
			budget := 1 + rand.IntN(150)
			killed := false
			for out.Scan() {
				if budget--; budget == 0 {
					cmd.Process.Signal(syscall.SIGKILL) // at whatever point it has reached
					killed = true
					break
				}
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			switch {
			case err == nil && !killed:
				return nil
			case killed || errors.As(err, &ee) && ee.ExitCode() == -1: // killed by us or by itself
				*restarts++
			default:
				return fmt.Errorf("%s: %v", role, err)
			}
		}
	}
	var wg sync.WaitGroup
	var sendRestarts, recvRestarts int
	var sendErr, recvErr error
	wg.Go(func() { sendErr = run("sender", &sendRestarts) })
	wg.Go(func() { recvErr = run("receiver", &recvRestarts) })
	wg.Wait()
	if sendErr != nil || recvErr != nil {
		t.Fatal(sendErr, recvErr)
	}
	t.Logf("sender restarted %d times, receiver %d times", sendRestarts, recvRestarts)
	if sendRestarts == 0 || recvRestarts == 0 {
		t.Errorf("nothing was killed (%d, %d): the test proves nothing", sendRestarts, recvRestarts)
	}
	r, err := OpenReceiver[[]int](NewMailbox(dir), "recv", filepath.Join(dir, "recv-state.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, n)
	for _, v := range r.State() {
		seen[v]++
	}
	for i, c := range seen {
		if c != 1 {
			t.Errorf("message %d processed %d times", i, c)
		}
	}
	if p, _ := NewMailbox(dir).Pending("recv"); len(p) != 0 {
		// The receiver stops at its n-th; one redelivered after that is
		// processed already and only waits for its ack.
		for _, m := range p {
			if !r.Processed(m.ID) {
				t.Errorf("message %s left unprocessed", m.ID)
			}
		}
	}
}
