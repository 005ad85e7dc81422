package team

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clock is a settable clock for leases.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestBoardClaimIsExclusiveAndNamesTheHolder(t *testing.T) {
	b := NewBoard(t.TempDir())
	task, err := b.Create("lead", "write the parser", "in parse.go")
	if err != nil || task.ID != "1" || task.Status != StatusPending {
		t.Fatalf("create = %+v, %v", task, err)
	}
	got, err := b.Update("1", "alice", Update{Status: StatusInProgress})
	if err != nil || got.Owner != "alice" || got.Status != StatusInProgress || got.LeaseUntil.IsZero() {
		t.Fatalf("claim = %+v, %v", got, err)
	}
	_, err = b.Update("1", "bob", Update{Status: StatusInProgress})
	var ce *ClaimedError
	if !errors.As(err, &ce) || ce.Owner != "alice" || !strings.Contains(err.Error(), "alice") {
		t.Fatalf("second claim: %v, want a ClaimedError naming alice", err)
	}
	if _, err := b.Update("1", "bob", Update{Status: StatusCompleted}); !errors.As(err, &ce) {
		t.Fatalf("bob completed alice's task: %v", err)
	}
	got, err = b.Update("1", "alice", Update{Status: StatusCompleted, Progress: "done, tests pass"})
	if err != nil || got.Status != StatusCompleted || got.Owner != "alice" || len(got.Notes) != 1 {
		t.Fatalf("complete = %+v, %v", got, err)
	}
	if _, err := b.Update("1", "bob", Update{Status: StatusInProgress}); err == nil {
		t.Fatal("a completed task was claimed again")
	}
	if _, err := b.Get("9"); !errors.Is(err, ErrNoTask) {
		t.Fatalf("get 9: %v", err)
	}
	if _, err := b.Update("1", "alice", Update{Status: "done"}); err == nil || !strings.Contains(err.Error(), "in_progress") {
		t.Fatalf("bad status: %v", err)
	}
}

func TestBoardExpiredLeaseReturnsTaskAndRenewKeepsIt(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}
	b := NewBoard(t.TempDir())
	b.Now, b.Lease = c.now, time.Minute
	for range 2 {
		if _, err := b.Create("lead", "t", ""); err != nil {
			t.Fatal(err)
		}
	}
	for id, who := range map[string]string{"1": "dead", "2": "live"} {
		if _, err := b.Update(id, who, Update{Status: StatusInProgress}); err != nil {
			t.Fatal(err)
		}
	}
	c.t = c.t.Add(40 * time.Second)
	if n, err := b.Renew("live"); err != nil || n != 1 {
		t.Fatalf("renew = %d, %v", n, err)
	}
	c.t = c.t.Add(40 * time.Second) // dead's lease lapsed 20s ago; live's holds 20s more
	tasks, err := b.List()
	if err != nil {
		t.Fatal(err)
	}
	if tasks[0].Status != StatusPending || tasks[0].Owner != "" || len(tasks[0].Notes) != 1 || !strings.Contains(tasks[0].Notes[0].Text, "dead's lease expired") {
		t.Errorf("dead's task = %+v, want pending with a note", tasks[0])
	}
	if tasks[1].Status != StatusInProgress || tasks[1].Owner != "live" {
		t.Errorf("live's task = %+v, want still live's", tasks[1])
	}
	// The returned task can be claimed by another.
	if _, err := b.Update("1", "bob", Update{Status: StatusInProgress}); err != nil {
		t.Fatal(err)
	}
}

func TestBoardRejectsCorruptFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "board.json"), []byte("{not json"), 0o600)
	if _, err := NewBoard(dir).List(); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("list = %v", err)
	}
}

func TestMailboxResendIsOneMessageAndAckRemoves(t *testing.T) {
	mb := NewMailbox(t.TempDir())
	for range 3 {
		if _, err := mb.Send(Message{ID: "k1", From: "lead", To: "alice", Text: "first"}); err != nil {
			t.Fatal(err)
		}
	}
	second, err := mb.Send(Message{From: "lead", To: "alice", Text: "second", Time: time.Now().Add(time.Second)})
	if err != nil || second.ID == "" {
		t.Fatal(second, err)
	}
	got, err := mb.Pending("alice")
	if err != nil || len(got) != 2 || got[0].Text != "first" || got[1].Text != "second" {
		t.Fatalf("pending = %+v, %v", got, err)
	}
	if err := mb.Ack("alice", "k1"); err != nil {
		t.Fatal(err)
	}
	if err := mb.Ack("alice", "k1"); err != nil {
		t.Fatalf("second ack: %v", err)
	}
	// A resend after the ack is still the same message: not delivered again.
	mb.Send(Message{ID: "k1", From: "lead", To: "alice", Text: "first"})
	got, _ = mb.Pending("alice")
	if len(got) != 1 || got[0].ID != second.ID {
		t.Fatalf("pending after ack = %+v", got)
	}
	if _, err := mb.Send(Message{To: "../x", Text: "x"}); err == nil {
		t.Fatal("a recipient with a path was accepted")
	}
}

func TestReceiverSkipsRedeliveredProcessedMessage(t *testing.T) {
	dir := t.TempDir()
	mb := NewMailbox(dir)
	state := filepath.Join(dir, "recv.json")
	mb.Send(Message{ID: "a", From: "lead", To: "bob", Text: "1"})
	r, err := OpenReceiver[[]string](mb, "bob", state)
	if err != nil {
		t.Fatal(err)
	}
	// A crash after the state was recorded, before the ack.
	r.crash = func(string) { panic("crash") }
	msgs, _ := r.Next()
	func() {
		defer func() { recover() }()
		r.Process(msgs[0], func(m Message, s *[]string) error { *s = append(*s, m.Text); return nil })
	}()
	if p, _ := mb.Pending("bob"); len(p) != 1 {
		t.Fatalf("the message was acked before the crash: %v", p)
	}
	r2, err := OpenReceiver[[]string](mb, "bob", state)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err = r2.Next()
	if err != nil || len(msgs) != 0 {
		t.Fatalf("redelivered processed message offered again: %v, %v", msgs, err)
	}
	if p, _ := mb.Pending("bob"); len(p) != 0 {
		t.Fatalf("processed message not acked on redelivery: %v", p)
	}
	if s := r2.State(); len(s) != 1 || s[0] != "1" {
		t.Fatalf("state = %v", s)
	}
	// An apply that fails records nothing.
	mb.Send(Message{ID: "b", From: "lead", To: "bob", Text: "2"})
	msgs, _ = r2.Next()
	if err := r2.Process(msgs[0], func(m Message, s *[]string) error {
		*s = append(*s, "half")
		return errors.New("failed")
	}); err == nil {
		t.Fatal("failure not returned")
	}
	if s := r2.State(); len(s) != 1 || r2.Processed("b") {
		t.Fatalf("a failed apply was recorded: %v", s)
	}
}

func TestTeamMembersAndList(t *testing.T) {
	home := t.TempDir()
	tm, err := Open(home, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if err := tm.AddMember(Member{Name: "alice", PID: 1}); err != nil {
		t.Fatal(err)
	}
	if err := tm.AddMember(Member{Name: "alice"}); err == nil {
		t.Fatal("duplicate name accepted")
	}
	if err := tm.AddMember(Member{Name: LeadName}); err == nil {
		t.Fatal("a teammate named lead accepted")
	}
	if err := tm.UpdateMember("alice", func(m *Member) { m.SessionID = "s1" }); err != nil {
		t.Fatal(err)
	}
	m, ok, err := tm.Member("alice")
	if err != nil || !ok || m.SessionID != "s1" {
		t.Fatalf("member = %+v %v %v", m, ok, err)
	}
	if names, _ := List(home); len(names) != 1 || names[0] != "alpha" {
		t.Fatalf("list = %v", names)
	}
	if _, err := Existing(home, "beta"); err == nil || !strings.Contains(err.Error(), "alpha") {
		t.Fatalf("existing beta: %v", err)
	}
	if _, err := Open(home, "../x"); err == nil {
		t.Fatal("team name with a path accepted")
	}
}

// TestKeepAliveRenewsClaimsUntilStopped: the heartbeat a worker (and the
// lead) runs holds its claims past their first lease; once it stops, the
// claims lapse.
func TestKeepAliveRenewsClaimsUntilStopped(t *testing.T) {
	t.Parallel() // waits on leases and processes, not the CPU: beside the others
	b := NewBoard(t.TempDir())
	b.Lease = 1500 * time.Millisecond
	b.Create("lead", "t", "")
	first, err := b.Update("1", "bob", Update{Status: StatusInProgress})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { keepAlive(ctx, func() {}, b, "bob", 0, time.Hour); close(stopped) }()
	waitUntil(t, first.LeaseUntil.Add(100*time.Millisecond))
	tk, _ := b.Get("1")
	if tk.Owner != "bob" || !tk.LeaseUntil.After(first.LeaseUntil) {
		t.Fatalf("the heartbeat did not hold the claim: %+v", tk)
	}
	cancel()
	<-stopped
	waitUntil(t, tk.LeaseUntil.Add(100*time.Millisecond))
	if tk, _ := b.Get("1"); tk.Status != StatusPending {
		t.Fatalf("the claim outlived its stopped heartbeat: %+v", tk)
	}
}

// waitUntil waits for the wall clock to pass at: a lease's expiry.
func waitUntil(t *testing.T, at time.Time) {
	t.Helper()
	time.Sleep(time.Until(at))
}

// A temp file of board.json that a writer killed between writing and
// renaming left behind is removed by the next update once a minute old;
// a fresh one is not touched.
func TestBoardSweepsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, ".board.json.tmp-123")
	fresh := filepath.Join(dir, ".board.json.tmp-456")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte(`{"next_id":`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := NewBoard(dir).Create("lead", "a task", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temp file is still there (%v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temp file was removed: %v", err)
	}
	if tasks, err := NewBoard(dir).List(); err != nil || len(tasks) != 1 {
		t.Errorf("board %v %v, want the one task", tasks, err)
	}
}
