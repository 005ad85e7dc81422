package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/permission"
)

// What nova, Claude Code, an editor, direnv or CI later runs as the user
// (permission.RunsLater: .nova, .claude, .mcp.json, .vscode, ...) stays
// read-only to sandboxed commands at the top of every writable directory,
// existing or not: an existing one is bound read-only, a missing one gets a
// placeholder directory bound read-only, so nothing can be created there
// either (see placeholder_dir.go).

// laterTops plans the paths that run later at the top of the writable
// directory w, and at the top of the working tree w is a folder of when a
// writable directory holds that too: the editor opens the repository, not
// only the folder nova was started in. A git directory (a linked
// worktree's common directory) has no working tree to protect.
func (p *gitPlanner) laterTops(w string) {
	if isBareRepo(w) {
		return
	}
	p.later(w, w)
	for d := filepath.Dir(w); d != filepath.Dir(d); d = filepath.Dir(d) {
		root, inside := p.rootOf(d)
		if !inside {
			return
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			p.later(root, d)
			return
		}
	}
}

// later plans each path of permission.RunsLater below top, in the
// writable directory root, with one Lstat per path component.
func (p *gitPlanner) later(root, top string) {
	for _, e := range permission.RunsLater() {
		parts := strings.Split(e.Rel, "/")
		cur := top
		for i, name := range parts {
			next := filepath.Join(cur, name)
			fi, err := os.Lstat(next)
			last := i == len(parts)-1
			switch {
			case errors.Is(err, fs.ErrNotExist):
				// The highest missing part: .github, when there is no
				// .github to hold workflows.
				p.pinParents(root, next)
				p.entry(next, entryPlaceholderDir, "")
			case err != nil:
				// It cannot be looked at, so it exists: bound read-only,
				// or the command fails rather than leave a gap.
				p.pinParents(root, next)
				p.entry(next, entryPresent, "")
			case fi.Mode()&fs.ModeSymlink != 0:
				p.laterLink(next)
			case fi.IsDir() && isPlaceholderDirMode(fi.Mode()) && isPlaceholderDirPath(next):
				// This Sandbox's, another one's, or left by a nova that
				// was killed: shared, or claimed again and removed with
				// the Sandbox.
				// Nothing is made inside it (.github/workflows in the
				// .github placeholder), which would keep it from going.
				p.pinParents(root, next)
				p.entry(next, entryPlaceholderDir, "")
			case fi.IsDir() && !last:
				cur = next
				continue
			default:
				// A file where a directory would be (.github a file) is
				// kept too: removed, a directory could take its place.
				p.pinParents(root, next)
				p.entry(next, entryPresent, "")
			}
			break
		}
	}
}

// laterLink protects what the symbolic link link leads to, when that is in
// a writable directory. The link itself stays in a writable directory and
// could be re-aimed, which New warns about; its holder, when it is not a
// writable directory itself, becomes read-only (follow).
func (p *gitPlanner) laterLink(link string) {
	p.links[link] = true
	target, exists := p.follow(link)
	root, inside := p.rootOf(target)
	switch {
	case !inside || target == root:
	case exists:
		p.pinParents(root, target)
		p.readOnly(target)
	default:
		p.missingAs(root, target, entryPlaceholderDir)
	}
}

// sweepPlaceholders removes the placeholders a nova that was killed left
// in the writable directories, unless some other sandbox binds them now:
// claiming them and giving them back removes each one nobody holds.
func (s *Sandbox) sweepPlaceholders(g gitPlan) {
	var stale []gitEntry
	for _, e := range g.placeholders() {
		if _, err := os.Lstat(e.path); err == nil {
			stale = append(stale, e)
		}
	}
	if len(stale) == 0 {
		return
	}
	if held, err := s.placeholders.acquire(stale, false); err == nil {
		s.placeholders.release(held)
	}
}

// linkedGitDirs returns the git directories outside the writable
// directories that a writable linked worktree or submodule checkout
// commits into: its common directory (the main repository's .git), and its
// own git directory when that lies elsewhere. They become writable too, so
// that git add and git commit work in a worktree, with their hooks and
// config read-only like those of any git directory (git.go). A .git file
// alone is not believed, since a sandboxed command could have written it:
// the git directory must point back at the worktree (its gitdir file, or a
// submodule's core.worktree), which only the repository's owner writes.
func linkedGitDirs(writable []string) []string {
	var out []string
	covered := func(d string) bool {
		for _, w := range append(append([]string(nil), writable...), out...) {
			if within(d, w) {
				return true
			}
		}
		return false
	}
	for _, w := range writable {
		gitFile := filepath.Join(w, ".git")
		if fi, err := os.Lstat(gitFile); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		target, ok := readGitFile(gitFile)
		if !ok {
			continue
		}
		gitDir, err := filepath.EvalSymlinks(target)
		if err != nil || !pointsBack(gitDir, w) {
			continue
		}
		common := gitDir
		if data, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
			if c := strings.TrimRight(string(data), "\r\n"); c != "" {
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				if real, err := filepath.EvalSymlinks(c); err == nil {
					common = real
				}
			}
		}
		for _, d := range []string{common, gitDir} {
			if !covered(d) && isBareRepo(d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// pointsBack reports whether the git directory gitDir names the working
// tree w as its own: a linked worktree's gitdir file holds w/.git, a
// submodule's config names w in core.worktree.
func pointsBack(gitDir, w string) bool {
	same := func(p string) bool {
		real, err := filepath.EvalSymlinks(p)
		return err == nil && real == w
	}
	if data, err := readSmall(filepath.Join(gitDir, "gitdir")); err == nil {
		back := strings.TrimRight(string(data), "\r\n")
		if !filepath.IsAbs(back) {
			back = filepath.Join(gitDir, back)
		}
		return filepath.Base(back) == ".git" && same(filepath.Dir(back))
	}
	for _, v := range readGitConfig(filepath.Join(gitDir, "config")) {
		if v.section == "core" && v.key == "worktree" {
			wt := v.value
			if !filepath.IsAbs(wt) {
				wt = filepath.Join(gitDir, wt)
			}
			return same(wt)
		}
	}
	return false
}
