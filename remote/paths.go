package remote

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// canonicalDir is p as the server uses a directory: "~" expanded with
// home, absolute, symlinks resolved; it must exist and be a directory.
func canonicalDir(p, home string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", fmt.Errorf("%s: no home directory to expand ~", p)
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: give an absolute path (or one starting with ~)", p)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(p))
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
