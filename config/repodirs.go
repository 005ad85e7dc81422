package config

import (
	"os"
	"path/filepath"
)

// ProjectDirs are the directories a project's .claude and .nova folders
// are looked for in: workdir and each parent up to the root of the git
// repository holding it (nearest first, so a nearer folder's file wins a
// name, as in Claude Code). Outside a repository it is workdir alone.
// A repository root is a directory with .git (a directory, or a file in
// worktrees and submodules).
func ProjectDirs(workdir string) []string {
	if workdir == "" {
		return nil
	}
	var up []string
	for d := filepath.Clean(workdir); ; {
		up = append(up, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return up
		}
		parent := filepath.Dir(d)
		if parent == d {
			return up[:1] // no repository: the workdir alone
		}
		d = parent
	}
}
