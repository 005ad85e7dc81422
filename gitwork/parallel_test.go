package gitwork

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// Worktrees added to one repository at once (parallel subagents with
// isolation "worktree") all come about: git reads every worktree's
// metadata while it adds one, and failed on one half made beside it
// ("failed to read .git/worktrees/<name>/commondir").
func TestParallelAddsAllSucceed(t *testing.T) {
	dir := repo(t)
	root := filepath.Join(t.TempDir(), "worktrees")
	ctx := context.Background()
	const n = 6
	for round := range 4 {
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				name := fmt.Sprintf("agent-%d-%d", round, i)
				_, errs[i] = Add(ctx, root, dir, name, "nova/"+name)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, worktree %d of %d added at once: %v", round, i, n, err)
			}
		}
	}
}
