package agent

import (
	"context"

	"github.com/nova-dev/nova/gitwork"
)

// newWorktree makes subagent id's worktree: a fresh one of the repository
// workdir is in, on branch nova/agent-<id> from HEAD.
func newWorktree(ctx context.Context, workdir, id string) (*gitwork.Worktree, error) {
	return gitwork.Add(ctx, workdir, "agent-"+id, "nova/agent-"+id)
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
