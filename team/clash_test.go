package team

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/gitwork"
)

// clashWorld is a repository and its worktrees' directory, with leads of
// any team in it whose workers are `true` (they start and end at once).
type clashWorld struct {
	t               *testing.T
	repo, home, wts string
	exe             string
}

func newClashWorld(t *testing.T) *clashWorld {
	t.Helper()
	exe, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to start as a worker")
	}
	return &clashWorld{t: t, repo: gitRepo(t), home: t.TempDir(), wts: t.TempDir(), exe: exe}
}

func (c *clashWorld) lead(team string) *Lead {
	c.t.Helper()
	tm, err := Open(c.home, team)
	if err != nil {
		c.t.Fatal(err)
	}
	return &Lead{Team: tm, Repo: c.repo, Worktrees: c.wts, Exe: c.exe}
}

// wantRefusal checks err is a refusal that has every one of has and no
// word about a first commit (the repository has one).
func wantRefusal(t *testing.T, what string, err error, has ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	for _, h := range has {
		if !strings.Contains(err.Error(), h) {
			t.Errorf("%s: %v\nwant it to say %q", what, err, h)
		}
	}
	if strings.Contains(err.Error(), "first commit") {
		t.Errorf("%s: %v\nblames a first commit the repository has", what, err)
	}
}

func TestSpawnSameNameTwiceSaysSo(t *testing.T) {
	c := newClashWorld(t)
	l := c.lead("alpha")
	if _, err := l.Spawn(context.Background(), "bob", "one", ""); err != nil {
		t.Fatal(err)
	}
	_, err := l.Spawn(context.Background(), "bob", "two", "")
	wantRefusal(t, "second bob", err, `team alpha already has a teammate named "bob"`, "choose another name")
}

// Teammates of two teams whose names joined with '-' would be one
// directory ("a"+"b-c", "a-b"+"c") each get their own worktree.
func TestSpawnNamesOfTwoTeamsDoNotClash(t *testing.T) {
	c := newClashWorld(t)
	m1, err := c.lead("a").Spawn(context.Background(), "b-c", "one", "")
	if err != nil {
		t.Fatal(err)
	}
	m2, err := c.lead("a-b").Spawn(context.Background(), "c", "two", "")
	if err != nil {
		t.Fatalf("a-b's c after a's b-c: %v", err)
	}
	if m1.Worktree == m2.Worktree {
		t.Errorf("both teammates work in %s", m1.Worktree)
	}
	for _, m := range []Member{m1, m2} {
		if got := strings.TrimSpace(run(t, m.Worktree, "git", "branch", "--show-current")); got != m.Branch {
			t.Errorf("%s is on %q, want %s", m.Worktree, got, m.Branch)
		}
	}
}

// A branch named like the team's folder of branches keeps every teammate's
// branch from being made: that branch is named, with the fix.
func TestSpawnBranchInTheWaySaysWhich(t *testing.T) {
	c := newClashWorld(t)
	run(t, c.repo, "git", "branch", "nova/team/alpha")
	_, err := c.lead("alpha").Spawn(context.Background(), "bob", "one", "")
	wantRefusal(t, "bob under a branch nova/team/alpha", err, "branch nova/team/alpha exists", "git branch -m nova/team/alpha")
	// And the other way round: a branch below the teammate's.
	run(t, c.repo, "git", "branch", "nova/team/beta/carl/old")
	_, err = c.lead("beta").Spawn(context.Background(), "carl", "one", "")
	wantRefusal(t, "carl over nova/team/beta/carl/old", err, "branch nova/team/beta/carl/old exists")
}

// A directory in the teammate's place says what it is: a worktree git
// knows, on which branch, or something left there.
func TestSpawnPlaceTakenSaysByWhat(t *testing.T) {
	c := newClashWorld(t)
	place := filepath.Join(gitwork.Dir(c.wts, c.repo), WorktreeName("alpha", "bob"))
	if err := os.MkdirAll(place, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := c.lead("alpha").Spawn(context.Background(), "bob", "one", "")
	wantRefusal(t, "bob over a left directory", err, place+" already exists and is no worktree of this repository")
	if err := os.Remove(place); err != nil {
		t.Fatal(err)
	}
	run(t, c.repo, "git", "worktree", "add", "-q", "-b", "mine", place)
	_, err = c.lead("alpha").Spawn(context.Background(), "bob", "one", "")
	wantRefusal(t, "bob over a worktree", err, place+" is already a worktree of this repository, on mine", "git worktree remove "+place)
}

// A spawn whose worker could not start leaves nothing behind: trying again
// is not refused for the name, and the teammate gets the new prompt.
func TestSpawnFailedStartIsUndone(t *testing.T) {
	c := newClashWorld(t)
	l := c.lead("alpha")
	l.Exe = filepath.Join(t.TempDir(), "no-such-nova")
	_, err := l.Spawn(context.Background(), "bob", "old prompt", "")
	wantRefusal(t, "bob with no worker binary", err, "start teammate bob", "no-such-nova")
	if _, ok, _ := l.Team.Member("bob"); ok {
		t.Error("the failed spawn left bob on the team")
	}
	place := filepath.Join(gitwork.Dir(c.wts, c.repo), WorktreeName("alpha", "bob"))
	if _, err := os.Stat(place); err == nil {
		t.Errorf("the failed spawn left its worktree %s", place)
	}
	if out := run(t, c.repo, "git", "branch", "--list", Branch("alpha", "bob")); out != "" {
		t.Errorf("the failed spawn left its branch: %s", out)
	}
	l.Exe = c.exe
	if _, err := l.Spawn(context.Background(), "bob", "new prompt", ""); err != nil {
		t.Fatalf("spawn again after the failure: %v", err)
	}
	msgs, err := l.Team.Mail.Pending("bob")
	if err != nil || len(msgs) != 1 || msgs[0].Text != "new prompt" {
		t.Errorf("bob's mailbox %+v (%v), want the new prompt alone", msgs, err)
	}
}
