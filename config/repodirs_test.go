package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestProjectDirs: from a subfolder up to the repository's root, nearest
// first; outside a repository, the folder alone (a parent's .claude is
// not the project's).
func TestProjectDirs(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	deep := filepath.Join(repo, "a", "b")
	loose := filepath.Join(top, "loose", "x")
	for _, d := range []string{filepath.Join(repo, ".git"), deep, loose} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := ProjectDirs(deep), []string{deep, filepath.Join(repo, "a"), repo}; !slices.Equal(got, want) {
		t.Errorf("ProjectDirs(deep) = %v, want %v", got, want)
	}
	if got := ProjectDirs(repo); !slices.Equal(got, []string{repo}) {
		t.Errorf("ProjectDirs(repo) = %v", got)
	}
	if got := ProjectDirs(loose); !slices.Equal(got, []string{loose}) {
		t.Errorf("ProjectDirs(outside a repository) = %v, want the folder alone", got)
	}
	if got := ProjectDirs(""); got != nil {
		t.Errorf("ProjectDirs(\"\") = %v", got)
	}
}
