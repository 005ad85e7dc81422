package remote

import (
	"fmt"
	"os"
)

// canonicalDir is p as the server uses a directory: "~" expanded with
// home, absolute, symlinks resolved; it must exist and be a directory.
func canonicalDir(p, home string) (string, error) {
	real, err := canonicalPath(p, home)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return real, nil
}
