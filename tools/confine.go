package tools

import (
	"context"
	"fmt"
	"os"
	"slices"
)

// openApproved opens abs for reading and checks that the file it got is
// the one the permission check resolved when it judged the call: between
// the check and the open, a directory on the path could have been swapped
// for a link to ~/.ssh. Where the system cannot say which file a
// descriptor holds, or no check resolved the path, it opens as os.Open.
func openApproved(ctx context.Context, abs string) (*os.File, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	if want := approvedReads(ctx); len(want) > 0 {
		if got := fdPath(f); got != "" && !slices.Contains(want, got) {
			f.Close()
			return nil, fmt.Errorf("%s changed while it was being read (it now leads to %s, not where it led when it was checked); nothing was read", abs, got)
		}
	}
	return f, nil
}

// approvedRoot returns the real path of the directory or file a search was
// judged on, or "" when no check resolved one.
func approvedRoot(ctx context.Context) string {
	if r := approvedReads(ctx); len(r) == 1 {
		return r[0]
	}
	return ""
}
