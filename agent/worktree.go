package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/nova-dev/nova/gitwork"
	"github.com/nova-dev/nova/tools"
)

// newWorktree makes subagent id's worktree: a fresh one of the repository
// workdir is in, under root (NOVA_HOME/worktrees), on branch
// nova/agent-<id> from HEAD.
func newWorktree(ctx context.Context, root, workdir, id string) (*gitwork.Worktree, error) {
	return gitwork.Add(ctx, root, workdir, "agent-"+id, "nova/agent-"+id)
}

// worktreeEnv is the Env of a subagent working in the worktree w: its
// relative paths start there, and its commands run in a sandbox whose
// workspace is the worktree (the parent's would keep it read-only).
func worktreeEnv(env *tools.Env, w *gitwork.Worktree) (*tools.Env, error) {
	cenv := env.Child(w.Path)
	if env.Sandbox == nil {
		return cenv, nil
	}
	if env.SandboxAt == nil {
		cenv.Close()
		return nil, errors.New("the sandbox cannot be moved to the worktree, so its commands could not write there")
	}
	sb, err := env.SandboxAt(w.Path)
	if err != nil {
		cenv.Close()
		return nil, fmt.Errorf("sandbox the worktree %s: %w", w.Path, err)
	}
	cenv.Sandbox = sb
	return cenv, nil
}

// finishWorktree removes a subagent's worktree and its branch when it
// left nothing in them, and reports whether it was kept.
func finishWorktree(ctx context.Context, w *gitwork.Worktree) (kept bool, err error) {
	// The subagent's interrupt must not leave the worktree behind.
	ctx = context.WithoutCancel(ctx)
	changed, err := w.Changed(ctx)
	if changed || err != nil {
		return true, err
	}
	return false, w.Remove(ctx)
}
