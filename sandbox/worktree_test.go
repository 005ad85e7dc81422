package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBwrapRerootWorktree is a subagent's worktree: the sandbox of the
// main workspace rerooted at a linked worktree of it, outside it. Its
// commands write and commit in the worktree (the positive control), and
// cannot write the worktree's .claude/settings.json, the main repository's
// hooks or config, or the main working tree.
func TestBwrapRerootWorktree(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	wt := filepath.Join(r.root, "worktrees", "agent-1")
	gitRun(t, r.home, r.ws, "worktree", "add", "-q", wt)
	extra := mkdir(t, r.root, "extra")
	parent := realSandbox(t, Config{Workspace: r.ws, AddDirs: []string{extra}, Home: r.home})
	sb, err := parent.Reroot(wt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(sb.writable, extra) || !slices.Contains(sb.writable, filepath.Join(r.ws, ".git")) || slices.Contains(sb.writable, r.ws) {
		t.Fatalf("writable = %q: want the worktree, its common git directory and the added directories, not the main working tree", sb.writable)
	}
	sentinel := filepath.Join(r.root, "SENTINEL")
	out, err := runEnv(t, sb, "", gitEnv(r.home), "sh", "-c", "echo written > new.txt && git add new.txt && git commit -q -m in-worktree && git log -1 --format=%s")
	if err != nil || !strings.Contains(out, "in-worktree") || !hostHasWrite(filepath.Join(wt, "new.txt")) {
		t.Fatalf("work in the worktree: %v: %s", err, out)
	}
	for _, script := range []string{
		`mkdir -p .claude && echo written > .claude/settings.json`,
		`mkdir -p "$2/hooks" && printf '#!/bin/sh\ntouch "%s"\n' "$1" > "$2/hooks/pre-commit" && chmod +x "$2/hooks/pre-commit"`,
		`printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$1" >> "$2/config"`,
		`echo written > "$3/README"`,
	} {
		out, err := runEnv(t, sb, "", gitEnv(r.home), "sh", "-c", script, "sh", sentinel, filepath.Join(r.ws, ".git"), r.ws)
		if err == nil {
			t.Errorf("%s: succeeded: %s", script, out)
		}
	}
	for _, p := range []string{filepath.Join(wt, ".claude", "settings.json"), filepath.Join(r.ws, "README")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s written on the host", p)
		}
	}
	gitRun(t, r.home, r.ws, "commit", "-q", "--allow-empty", "-m", "after")
	gitRun(t, r.home, wt, "status")
	if _, err := os.Stat(sentinel); err == nil {
		t.Error("planted git code ran")
	}
	if !isPlaceholderDirPath(filepath.Join(wt, ".claude")) {
		t.Error("the worktree's placeholder did not last until Close")
	}
	// The parent's Close gives back what the Sandboxes made from it keep.
	parent.Close()
	if _, err := os.Lstat(filepath.Join(wt, ".claude")); err == nil {
		t.Error("a placeholder outlived the Sandbox")
	}
}

// TestLinkedGitDirsBelievesOnlyThePointerBack checks that a .git file
// alone does not make a git directory writable: one that does not name
// the worktree back is ignored, so a command that wrote a .git file
// cannot open another repository's git directory to the next command.
func TestLinkedGitDirsBelievesOnlyThePointerBack(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	wt := filepath.Join(r.root, "wt")
	gitRun(t, r.home, r.ws, "worktree", "add", "-q", wt)
	if got := linkedGitDirs([]string{wt}); !slices.Equal(got, []string{filepath.Join(r.ws, ".git")}) {
		t.Errorf("linked worktree: %q", got)
	}
	forged := mkdir(t, r.root, "forged")
	writeFile(t, filepath.Join(forged, ".git"), "gitdir: "+filepath.Join(r.ws, ".git", "worktrees", "wt")+"\n")
	other := mkdir(t, r.root, "other")
	writeFile(t, filepath.Join(other, ".git"), "gitdir: "+filepath.Join(r.ws, ".git")+"\n")
	if got := linkedGitDirs([]string{forged, other}); len(got) != 0 {
		t.Errorf("forged .git files opened %q", got)
	}
	// A submodule's checkout names its git directory, which names it back
	// in core.worktree: that is believed.
	sub := filepath.Join(r.ws, "x")
	gitRun(t, r.home, sub, "config", "core.worktree", "../../../x")
	if got := linkedGitDirs([]string{sub}); !slices.Equal(got, []string{filepath.Join(r.ws, ".git", "modules", "x")}) {
		t.Errorf("submodule checkout: %q", got)
	}
}
