package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/permission"
)

// worktree is a git worktree nova made for a subagent's isolation.
type worktree struct {
	repo   string // the repository's top level
	dir    string
	branch string
	base   string // the commit it started from
}

// worktreesDir is where subagents' worktrees go, under the repository:
// inside the workspace, so the permission checker and the sandbox treat
// the subagent's files as the workspace's.
const worktreesDir = ".nova/worktrees"

// runGit runs one of nova's own git commands in dir. A repository is its
// author's words: its core.fsmonitor and hooks (post-index-change runs on
// git status, post-checkout on worktree add) are switched off, as Codex
// does, and callers skip commands that would run the programs its config
// names (see permission.GitConfigHazard). The error carries git's words.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	base := []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-optional-locks", "-C", dir}
	cmd := exec.CommandContext(ctx, "git", append(base, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// newWorktree makes a fresh worktree of the repository workdir is in, on
// a new branch from HEAD, for subagent id.
func newWorktree(ctx context.Context, workdir, id string) (*worktree, error) {
	repo, err := runGit(ctx, workdir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("isolation \"worktree\" needs a git repository: %s is not in one (%v)", workdir, err)
	}
	if why := permission.GitConfigHazard(repo); why != "" {
		return nil, fmt.Errorf("isolation \"worktree\" would check files out with programs the repository's git config names: %s", why)
	}
	base, err := runGit(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("isolation \"worktree\" needs a commit to start from: %v", err)
	}
	parent := filepath.Join(repo, filepath.FromSlash(worktreesDir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", parent, err)
	}
	// The repository's own status must not list nova's worktrees.
	ignore := filepath.Join(parent, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, os.ErrNotExist) {
		_ = os.WriteFile(ignore, []byte("*\n"), 0o644)
	}
	w := &worktree{repo: repo, dir: filepath.Join(parent, "agent-"+id), branch: "nova/agent-" + id, base: base}
	if _, err := runGit(ctx, repo, "worktree", "add", "-b", w.branch, w.dir, base); err != nil {
		return nil, err
	}
	return w, nil
}

// finish removes the worktree and its branch when the subagent left
// nothing in them, and reports whether it was kept: files changed, or
// commits made.
func (w *worktree) finish(ctx context.Context) (kept bool, err error) {
	// The subagent's interrupt must not leave the worktree behind.
	ctx = context.WithoutCancel(ctx)
	status, err := runGit(ctx, w.dir, "status", "--porcelain")
	if err != nil {
		return true, err
	}
	head, err := runGit(ctx, w.dir, "rev-parse", "HEAD")
	if err != nil {
		return true, err
	}
	if status != "" || head != w.base {
		return true, nil
	}
	if _, err := runGit(ctx, w.repo, "worktree", "remove", "--force", w.dir); err != nil {
		return true, err
	}
	_, err = runGit(ctx, w.repo, "branch", "-D", w.branch)
	return false, err
}
