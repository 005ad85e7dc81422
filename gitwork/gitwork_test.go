package gitwork

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// A worktree nova makes runs none of the repository's hooks, stays out of
// its status, and is removed with its branch when nothing changed in it.
func TestWorktree(t *testing.T) {
	dir := repo(t)
	sentinel := filepath.Join(t.TempDir(), "hook-ran")
	hook := filepath.Join(dir, ".git", "hooks", "post-checkout")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+sentinel+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "worktrees")
	w, err := Add(ctx, root, dir, "agent-x", "nova/agent-x")
	if err != nil {
		t.Fatal(err)
	}
	// Outside the repository, under root, one directory per repository.
	if want := filepath.Join(Dir(root, w.Repo), "agent-x"); w.Path != want || strings.HasPrefix(w.Path, dir) {
		t.Errorf("worktree at %s, want %s, outside the repository", w.Path, want)
	}
	if _, err := os.Stat(sentinel); err == nil {
		t.Error("the repository's post-checkout hook ran")
	}
	if st, _ := Run(ctx, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the repository's status lists the worktree: %q", st)
	}
	if changed, err := w.Changed(ctx); changed || err != nil {
		t.Fatalf("a fresh worktree changed = %v, %v", changed, err)
	}
	if err := os.WriteFile(filepath.Join(w.Path, "f.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if changed, _ := w.Changed(ctx); !changed {
		t.Error("a new file is not a change")
	}
	if err := w.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path); err == nil {
		t.Error("the worktree is still there")
	}
	if b, _ := Run(ctx, dir, "branch", "--list", "nova/agent-x"); b != "" {
		t.Errorf("the branch is still there: %q", b)
	}
	// A repository whose config names a filter program is refused.
	if _, err := Run(ctx, dir, "config", "filter.x.smudge", "touch "+sentinel); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(ctx, root, dir, "agent-y", "nova/agent-y"); err == nil || !strings.Contains(err.Error(), "programs") {
		t.Errorf("a filter-configured repository: %v", err)
	}
	if _, err := Add(ctx, root, t.TempDir(), "agent-z", "nova/agent-z"); err == nil || !strings.Contains(err.Error(), "not in a git repository") {
		t.Errorf("outside a repository: %v", err)
	}
}

// TestWorktreeNotThroughSymlink checks that a worktree is never made
// through a symbolic link where its repository's directory would be: the
// link is refused and nothing is created where it leads.
func TestWorktreeNotThroughSymlink(t *testing.T) {
	dir := repo(t)
	root := filepath.Join(t.TempDir(), "worktrees")
	elsewhere := t.TempDir()
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	top, err := Run(context.Background(), dir, "rev-parse", "--show-toplevel")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, Dir(root, top)); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(context.Background(), root, dir, "agent-x", "nova/agent-x"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Add through a link: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("something was made where the link leads: %v", ents)
	}
	// The control: without the link, the worktree is made.
	os.Remove(Dir(root, top))
	if _, err := Add(context.Background(), root, dir, "agent-x", "nova/agent-x"); err != nil {
		t.Errorf("Add: %v", err)
	}
}
