// Package gitwork runs nova's own git commands (not the model's, which go
// through the Bash tool and the permission checker) and makes the git
// worktrees subagents and teammates work in.
package gitwork

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/permission"
)

// base switches off what a repository would run for nova's own commands:
// its hooks (post-index-change runs on git status, post-checkout on
// worktree add) and its fsmonitor, as Codex does, and takes no optional
// locks, so a status never contends with the person's own git.
var base = []string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-optional-locks"}

// Run runs git with args in dir and returns its standard output, trimmed
// of the final newline; the error carries git's own words. Callers skip
// commands that would run programs the repository's config names (see
// permission.GitConfigHazard); Worktree does.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	err := run(ctx, dir, &out, &errb, args)
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// Combined runs git as Run does and returns its output and errors
// together (what a merge says of its conflicts), trimmed.
func Combined(ctx context.Context, dir string, args ...string) (string, error) {
	var out bytes.Buffer
	err := run(ctx, dir, &out, &out, args)
	s := strings.TrimSpace(out.String())
	if err != nil {
		return s, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, s)
	}
	return s, nil
}

func run(ctx context.Context, dir string, stdout, stderr *bytes.Buffer, args []string) error {
	cmd := exec.CommandContext(ctx, "git", append(append(append([]string(nil), base...), "-C", dir), args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd.Run()
}

// Dir is the directory under root (NOVA_HOME/worktrees) that holds the
// worktrees nova makes of the repository whose top level is repo: one
// per repository, named after it and a hash of its path. It is outside
// the repository, so that nothing in it sits under the repository's .nova
// or .claude, which the sandbox keeps read-only, and out of its git status.
func Dir(root, repo string) string { return filepath.Join(root, repoKey(repo)) }

// repoKey names the directory of repo's worktrees.
func repoKey(repo string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(repo)))
	return filepath.Base(repo) + "-" + hex.EncodeToString(sum[:6])
}

// Worktree is a git worktree nova made.
type Worktree struct {
	// Repo is the repository's top level, Path the worktree's directory.
	Repo, Path string
	Branch     string
	// Base is the commit it started from.
	Base string
}

// Add makes a fresh worktree of the repository workdir is in, at
// Dir(root, repo)/name on a new branch from HEAD. It refuses a repository
// whose git config would run programs of its own on checkout (filters),
// one without a commit, and a place for it that is reached through a
// symbolic link below root (it would make the worktree somewhere else).
func Add(ctx context.Context, root, workdir, name, branch string) (*Worktree, error) {
	repo, err := Run(ctx, workdir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not in a git repository (%v)", workdir, err)
	}
	if root == "" {
		return nil, errors.New("no directory for worktrees (NOVA_HOME is not set)")
	}
	if why := permission.GitConfigHazard(repo); why != "" {
		return nil, fmt.Errorf("a checkout would run programs the repository's git config names: %s", why)
	}
	head, err := Run(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("the repository has no commit to start from (make a first commit): %v", err)
	}
	parent, err := ownDir(root, repoKey(repo))
	if err != nil {
		return nil, err
	}
	// One worktree is added to a repository at a time, by every nova: git
	// reads each existing worktree's metadata while it adds one, and one
	// half made by a parallel subagent fails it ("failed to read
	// .git/worktrees/<name>/commondir"). flock(2) holds between the open
	// files of one process too.
	lock := flock.New(filepath.Join(parent, ".add.lock"))
	if ok, err := lock.TryLockContext(ctx, 20*time.Millisecond); err != nil || !ok {
		return nil, fmt.Errorf("wait for the lock on %s's worktrees: %v", repo, cmp.Or(err, ctx.Err()))
	}
	defer lock.Unlock()
	w := &Worktree{Repo: repo, Path: filepath.Join(parent, name), Branch: branch, Base: head}
	if _, err := os.Lstat(w.Path); err == nil {
		return nil, pathTaken(ctx, repo, w.Path)
	}
	if _, err := Run(ctx, repo, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		// Left by an earlier worktree of that name (a teammate removed
		// from its team, a run that was killed): git would refuse with a
		// bare "already exists".
		return nil, fmt.Errorf("the branch %s already exists (an earlier worktree's); choose another name, or delete the branch (git branch -D %s) if its work is no longer needed", branch, branch)
	}
	if _, err := Run(ctx, repo, "worktree", "add", "-b", branch, w.Path, head); err != nil {
		if other := refInTheWay(ctx, repo, branch); other != "" {
			// git's own words ("cannot lock ref") name no fix.
			return nil, fmt.Errorf("the branch %s cannot be made: the branch %s exists, and git cannot keep a branch both as a name and as a folder of other branches; choose another name, or rename that branch (git branch -m %s <new name>)", branch, other, other)
		}
		return nil, err
	}
	return w, nil
}

// pathTaken says what holds the place of a new worktree, and what to do:
// a worktree git knows (whose branch it names, for a person to judge
// whether its work is still wanted) or a directory left by something else.
func pathTaken(ctx context.Context, repo, path string) error {
	list, _ := Run(ctx, repo, "worktree", "list", "--porcelain")
	for _, entry := range strings.Split(list, "\n\n") {
		var at, branch string
		for _, l := range strings.Split(entry, "\n") {
			if v, ok := strings.CutPrefix(l, "worktree "); ok {
				at = v
			}
			if v, ok := strings.CutPrefix(l, "branch refs/heads/"); ok {
				branch = v
			}
		}
		if at != path {
			continue
		}
		if branch == "" {
			branch = "a detached HEAD"
		}
		return fmt.Errorf("%s is already a worktree of this repository, on %s; choose another name, or, if its work is no longer needed, remove it (git worktree remove %s)", path, branch, path)
	}
	return fmt.Errorf("%s already exists and is no worktree of this repository (left by an earlier run?); choose another name, or remove it if nothing in it is needed", path)
}

// refInTheWay returns the branch that keeps branch from being made, as
// git keeps refs as files: one named by a leading part of branch
// ("a/b" for "a/b/c"), or one below it ("a/b/c/d"); "" when none does.
func refInTheWay(ctx context.Context, repo, branch string) string {
	top, _, _ := strings.Cut(branch, "/")
	// A pattern matches a ref whole or up to a slash: every branch that
	// could be in the way, in one command.
	out, err := Run(ctx, repo, "for-each-ref", "--format=%(refname)", "refs/heads/"+top)
	if err != nil {
		return ""
	}
	for _, ref := range strings.Split(out, "\n") {
		other, ok := strings.CutPrefix(ref, "refs/heads/")
		if !ok || other == branch {
			continue
		}
		if strings.HasPrefix(branch, other+"/") || strings.HasPrefix(other, branch+"/") {
			return other
		}
	}
	return ""
}

// ownDir creates root and its subdirectory name (private to the user)
// and returns that with root's own links resolved, refusing one that is
// not a real directory: a symbolic link planted there would lead the
// worktree, and the writes of the agent working in it, elsewhere.
func ownDir(root, name string) (string, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", root, err)
	}
	dir := filepath.Join(real, name)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory (a symbolic link?); remove it so nova can make its worktrees there", dir)
	}
	return dir, nil
}

// Changed reports whether the worktree holds work: changed or new files,
// or commits beyond its base.
func (w *Worktree) Changed(ctx context.Context) (bool, error) {
	status, err := Run(ctx, w.Path, "status", "--porcelain")
	if err != nil {
		return true, err
	}
	head, err := Run(ctx, w.Path, "rev-parse", "HEAD")
	if err != nil {
		return true, err
	}
	return status != "" || head != w.Base, nil
}

// Remove deletes the worktree and its branch.
func (w *Worktree) Remove(ctx context.Context) error {
	if _, err := Run(ctx, w.Repo, "worktree", "remove", "--force", w.Path); err != nil {
		return err
	}
	_, err := Run(ctx, w.Repo, "branch", "-D", w.Branch)
	return err
}
