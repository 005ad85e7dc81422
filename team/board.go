package team

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/atomicfile"
)

// Task statuses, as Claude Code's task tools name them.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
)

// DefaultLease is how long a claim holds without a heartbeat: long enough
// for a slow turn's heartbeat to arrive, short enough that a dead
// teammate's task is soon back on the board.
const DefaultLease = 2 * time.Minute

// Task is one entry of a team's task board.
type Task struct {
	ID          string `json:"id"`
	Subject     string `json:"subject"`
	Description string `json:"description,omitempty"`
	Status      string `json:"status"`
	// Owner is the member id of the claimer ("" while pending).
	Owner string `json:"owner,omitempty"`
	// LeaseUntil is when an in_progress claim lapses unless renewed.
	LeaseUntil time.Time `json:"lease_until,omitzero"`
	Notes      []Note    `json:"notes,omitempty"`
	CreatedBy  string    `json:"created_by,omitempty"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
}

// Note is a progress note on a task, by a member or by the board itself.
type Note struct {
	By   string    `json:"by"`
	Text string    `json:"text"`
	Time time.Time `json:"time"`
}

// boardFile is board.json.
type boardFile struct {
	NextID int    `json:"next_id"`
	Tasks  []Task `json:"tasks"`
}

// ClaimedError is a claim of a task another member holds.
type ClaimedError struct {
	Task, Owner string
	LeaseUntil  time.Time
}

// Error names who holds the task.
func (e *ClaimedError) Error() string {
	return fmt.Sprintf("task %s is already claimed by %s (lease until %s); pick another task or ask %s", e.Task, e.Owner, e.LeaseUntil.Format(time.RFC3339), e.Owner)
}

// ErrNoTask is an id the board does not hold.
var ErrNoTask = errors.New("no such task")

// Board is a team's task board: board.json, read and rewritten whole under
// board.lock by every process of the team, so no update is lost.
type Board struct {
	dir string
	// Lease is how long a claim or a heartbeat holds.
	Lease time.Duration
	// Now is the clock; tests move it past a lease.
	Now func() time.Time
}

// NewBoard is the board kept in dir (the team's directory).
func NewBoard(dir string) *Board {
	return &Board{dir: dir, Lease: DefaultLease, Now: time.Now}
}

// Path is board.json's path.
func (b *Board) Path() string { return filepath.Join(b.dir, "board.json") }

// update runs fn on the board under the lock and writes the board back
// when fn says it changed it. Claims whose lease has lapsed go back to
// pending first, so no operation acts on a dead member's claim.
func (b *Board) update(fn func(bf *boardFile, now time.Time) (bool, error)) error {
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return fmt.Errorf("task board: %w", err)
	}
	lock := flock.New(filepath.Join(b.dir, "board.lock"), flock.SetPermissions(0o600))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock the task board: %w", err)
	}
	defer lock.Unlock()
	b.sweepTemps()
	bf, err := b.read()
	if err != nil {
		return err
	}
	now := b.Now()
	changed := reclaim(bf, now)
	ch, err := fn(bf, now)
	if err != nil && !changed {
		return err
	}
	if changed || ch {
		data, merr := json.MarshalIndent(bf, "", "  ")
		if merr != nil {
			return fmt.Errorf("encode the task board: %w", merr)
		}
		if werr := atomicfile.Write(b.Path(), append(data, '\n'), 0o600); werr != nil {
			return fmt.Errorf("write the task board: %w", werr)
		}
	}
	return err
}

// staleTemp is how old a temp file of board.json must be to be taken for
// the leftover of a writer killed mid-write.
const staleTemp = time.Minute

// sweepTemps removes the temp files of board.json that writers killed
// between writing and renaming left behind. It runs under the lock, where
// no writer of the board is mid-write; the age is a margin on top.
func (b *Board) sweepTemps() {
	temps, _ := filepath.Glob(filepath.Join(b.dir, ".board.json.tmp-*"))
	for _, p := range temps {
		if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > staleTemp {
			_ = os.Remove(p)
		}
	}
}

// read loads board.json; a missing one is an empty board.
func (b *Board) read() (*boardFile, error) {
	bf := &boardFile{NextID: 1}
	data, err := os.ReadFile(b.Path())
	if errors.Is(err, os.ErrNotExist) {
		return bf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the task board: %w", err)
	}
	if err := json.Unmarshal(data, bf); err != nil {
		return nil, fmt.Errorf("task board %s is not valid JSON (%v); fix or remove it", b.Path(), err)
	}
	return bf, nil
}

// reclaim returns every in_progress task whose lease lapsed to pending.
func reclaim(bf *boardFile, now time.Time) bool {
	changed := false
	for i := range bf.Tasks {
		t := &bf.Tasks[i]
		if t.Status != StatusInProgress || !now.After(t.LeaseUntil) {
			continue
		}
		t.Notes = append(t.Notes, Note{By: "board", Time: now, Text: fmt.Sprintf(
			"returned to the board: %s's lease expired at %s without a heartbeat (the teammate stopped or died)",
			t.Owner, t.LeaseUntil.Format(time.RFC3339))})
		t.Status, t.Owner, t.LeaseUntil, t.Updated = StatusPending, "", time.Time{}, now
		changed = true
	}
	return changed
}

func find(bf *boardFile, id string) (*Task, error) {
	for i := range bf.Tasks {
		if bf.Tasks[i].ID == id {
			return &bf.Tasks[i], nil
		}
	}
	return nil, fmt.Errorf("task %q: %w", id, ErrNoTask)
}

// Create adds a pending task and returns it.
func (b *Board) Create(by, subject, description string) (Task, error) {
	var out Task
	err := b.update(func(bf *boardFile, now time.Time) (bool, error) {
		out = Task{ID: strconv.Itoa(bf.NextID), Subject: subject, Description: description,
			Status: StatusPending, CreatedBy: by, Created: now, Updated: now}
		bf.NextID++
		bf.Tasks = append(bf.Tasks, out)
		return true, nil
	})
	return out, err
}

// List returns every task, in the order they were created.
func (b *Board) List() ([]Task, error) {
	var out []Task
	err := b.update(func(bf *boardFile, _ time.Time) (bool, error) {
		out = slices.Clone(bf.Tasks)
		return false, nil
	})
	return out, err
}

// Get returns one task.
func (b *Board) Get(id string) (Task, error) {
	var out Task
	err := b.update(func(bf *boardFile, _ time.Time) (bool, error) {
		t, err := find(bf, id)
		if err == nil {
			out = *t
		}
		return false, err
	})
	return out, err
}

// Update is a change to a task by member: a new status (claim with
// in_progress, finish with completed, give back with pending) and a
// progress note; empty fields leave it as it is.
type Update struct {
	Status   string
	Progress string
}

// Update applies u to task id on member's behalf. Claiming a task another
// member holds fails with a *ClaimedError; so does changing one.
func (b *Board) Update(id, member string, u Update) (Task, error) {
	switch u.Status {
	case "", StatusPending, StatusInProgress, StatusCompleted:
	default:
		return Task{}, fmt.Errorf("status %q: want %s, %s or %s", u.Status, StatusPending, StatusInProgress, StatusCompleted)
	}
	var out Task
	err := b.update(func(bf *boardFile, now time.Time) (bool, error) {
		t, err := find(bf, id)
		if err != nil {
			return false, err
		}
		if t.Status == StatusInProgress && t.Owner != member {
			return false, &ClaimedError{Task: t.ID, Owner: t.Owner, LeaseUntil: t.LeaseUntil}
		}
		switch u.Status {
		case StatusInProgress:
			if t.Status == StatusCompleted {
				return false, fmt.Errorf("task %s is already completed; create a new task for further work", t.ID)
			}
			t.Status, t.Owner, t.LeaseUntil = StatusInProgress, member, now.Add(b.Lease)
		case StatusCompleted:
			t.Status, t.Owner, t.LeaseUntil = StatusCompleted, member, time.Time{}
		case StatusPending:
			t.Status, t.Owner, t.LeaseUntil = StatusPending, "", time.Time{}
		}
		if u.Progress != "" {
			t.Notes = append(t.Notes, Note{By: member, Text: u.Progress, Time: now})
			if t.Status == StatusInProgress {
				t.LeaseUntil = now.Add(b.Lease) // a note is a sign of life
			}
		}
		t.Updated = now
		out = *t
		return true, nil
	})
	return out, err
}

// Renew extends the lease of every task member holds (its heartbeat) and
// returns how many it holds.
func (b *Board) Renew(member string) (int, error) {
	n := 0
	err := b.update(func(bf *boardFile, now time.Time) (bool, error) {
		for i := range bf.Tasks {
			if t := &bf.Tasks[i]; t.Status == StatusInProgress && t.Owner == member {
				t.LeaseUntil = now.Add(b.Lease)
				n++
			}
		}
		return n > 0, nil
	})
	return n, err
}
