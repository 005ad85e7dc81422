// Package team runs teams of agents: a lead and teammates, each a nova
// process in its own git worktree, sharing a task board and a mailbox kept
// as files under NOVA_HOME/teams/<team>/, correct when several processes
// write at once and when any of them dies.
package team

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/atomicfile"
)

// LeadName is the member id of the team's lead.
const LeadName = "lead"

// Team is one team's directory and what is kept there.
type Team struct {
	Name, Dir string
	Board     *Board
	Mail      *Mailbox
}

// Dir is where team name is kept.
func Dir(novaHome, name string) string { return filepath.Join(novaHome, "teams", name) }

// Open opens team name under novaHome, creating its directory.
func Open(novaHome, name string) (*Team, error) {
	if err := checkName("team name", name); err != nil {
		return nil, err
	}
	dir := Dir(novaHome, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("team %s: %w", name, err)
	}
	return &Team{Name: name, Dir: dir, Board: NewBoard(dir), Mail: NewMailbox(dir)}, nil
}

// Existing opens team name only when it exists.
func Existing(novaHome, name string) (*Team, error) {
	if err := checkName("team name", name); err != nil {
		return nil, err
	}
	if _, err := os.Stat(Dir(novaHome, name)); err != nil {
		names, _ := List(novaHome)
		if len(names) == 0 {
			return nil, fmt.Errorf("no team %q: there are no teams in %s", name, filepath.Join(novaHome, "teams"))
		}
		return nil, fmt.Errorf("no team %q; the teams are: %s", name, strings.Join(names, ", "))
	}
	return Open(novaHome, name)
}

// List returns the names of the teams under novaHome, sorted.
func List(novaHome string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(novaHome, "teams"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && checkName("team", e.Name()) == nil {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// Member is a teammate as the lead started it.
type Member struct {
	Name      string    `json:"name"`
	PID       int       `json:"pid,omitempty"`
	LeadPID   int       `json:"lead_pid,omitempty"`
	Branch    string    `json:"branch,omitempty"`
	Worktree  string    `json:"worktree,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Model     string    `json:"model,omitempty"`
	Started   time.Time `json:"started"`
	// Exited is set when the worker ended on its own.
	Exited time.Time `json:"exited,omitzero"`
}

func (t *Team) membersPath() string { return filepath.Join(t.Dir, "members.json") }

// Members returns the team's teammates, in the order they joined.
func (t *Team) Members() ([]Member, error) {
	var out []Member
	err := t.editMembers(func(ms *[]Member) bool { out = slices.Clone(*ms); return false })
	return out, err
}

// Member returns teammate name.
func (t *Team) Member(name string) (Member, bool, error) {
	ms, err := t.Members()
	for _, m := range ms {
		if m.Name == name {
			return m, true, err
		}
	}
	return Member{}, false, err
}

// AddMember records a new teammate; a name already taken is refused.
func (t *Team) AddMember(m Member) error {
	if err := checkName("teammate name", m.Name); err != nil {
		return err
	}
	if m.Name == LeadName {
		return fmt.Errorf("teammate name %q is the lead's; choose another", LeadName)
	}
	var dup bool
	err := t.editMembers(func(ms *[]Member) bool {
		if slices.ContainsFunc(*ms, func(o Member) bool { return o.Name == m.Name }) {
			dup = true
			return false
		}
		*ms = append(*ms, m)
		return true
	})
	if err == nil && dup {
		err = fmt.Errorf("team %s already has a teammate named %q; choose another name", t.Name, m.Name)
	}
	return err
}

// UpdateMember changes teammate name's record with fn.
func (t *Team) UpdateMember(name string, fn func(*Member)) error {
	found := false
	err := t.editMembers(func(ms *[]Member) bool {
		for i := range *ms {
			if (*ms)[i].Name == name {
				fn(&(*ms)[i])
				found = true
			}
		}
		return found
	})
	if err == nil && !found {
		err = fmt.Errorf("team %s has no teammate %q", t.Name, name)
	}
	return err
}

// removeMember drops teammate name's record: a spawn that failed before
// its worker started leaves no teammate behind.
func (t *Team) removeMember(name string) error {
	return t.editMembers(func(ms *[]Member) bool {
		n := len(*ms)
		*ms = slices.DeleteFunc(*ms, func(m Member) bool { return m.Name == name })
		return len(*ms) != n
	})
}

// editMembers runs fn on members.json under team.lock, writing it back
// when fn returns true.
func (t *Team) editMembers(fn func(*[]Member) bool) error {
	lock := flock.New(filepath.Join(t.Dir, "team.lock"), flock.SetPermissions(0o600))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock team %s: %w", t.Name, err)
	}
	defer lock.Unlock()
	var ms []Member
	data, err := os.ReadFile(t.membersPath())
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read the members of team %s: %w", t.Name, err)
	default:
		if err := json.Unmarshal(data, &ms); err != nil {
			return fmt.Errorf("%s is not valid JSON (%v); fix or remove it", t.membersPath(), err)
		}
	}
	if !fn(&ms) {
		return nil
	}
	data, err = json.MarshalIndent(ms, "", "  ")
	if err != nil {
		return fmt.Errorf("encode members: %w", err)
	}
	return atomicfile.Write(t.membersPath(), append(data, '\n'), 0o600)
}
