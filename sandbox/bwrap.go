package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// bwrapArgv builds the bubblewrap command line for argv in dir. The order of
// the mount options matters: bwrap applies them in turn, so the private /tmp
// comes before the binds (a workspace under /tmp must stay visible), the
// read-only home before the writable directories (a workspace in the home
// must be writable) and the protected paths last of all.
func bwrapArgv(s *Sandbox, argv []string, dir string) []string {
	args := []string{
		s.bin,
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
	}
	if s.home != "" {
		// The root is already read-only; binding the home again keeps it
		// visible (and read-only) when it lives under the private /tmp.
		args = append(args, "--ro-bind-try", s.home, s.home)
	}
	for _, w := range s.writable {
		args = append(args, "--bind", w, w)
	}
	for _, w := range s.writable {
		args = append(args, bwrapProtect(w)...)
	}
	if !s.network {
		args = append(args, "--unshare-net")
	}
	args = append(args,
		"--unshare-pid",
		"--die-with-parent",
		// A new session stops a sandboxed command from pushing keystrokes
		// into the user's terminal with TIOCSTI.
		"--new-session",
		// bwrap run by root keeps every capability unless told otherwise,
		// and CAP_SYS_ADMIN can remount / read-write: drop them all.
		"--cap-drop", "ALL",
		// The caller's TMPDIR may point outside the writable directories;
		// the private /tmp is always writable.
		"--setenv", "TMPDIR", "/tmp",
		"--chdir", dir,
		"--",
	)
	return append(args, argv...)
}

// bwrapProtect returns the options that keep the protected paths of the
// writable directory w read-only. bwrap binds by path at start-up, so what
// is bound depends on what exists now:
//
//   - A .git directory is bound onto itself first. That makes it a mount
//     point, which cannot be renamed or removed: otherwise `mv .git x;
//     mkdir -p .git/hooks` would carry the read-only binds away into x and
//     leave a writable hooks directory where git looks.
//   - A .git file (worktree, submodule) names the git directory; rewritten,
//     it could point git at hooks the sandbox wrote, so it is read-only.
//   - A missing .nova gets an empty read-only tmpfs, which leaves an empty
//     .nova directory behind on the host (git ignores empty directories):
//     otherwise a command could create .nova/settings.json with hooks and
//     rules that nova applies outside the sandbox.
//
// A missing .git is left alone: an empty .git directory on the host would
// break tools that look for one (go build's VCS stamping among them).
func bwrapProtect(w string) []string {
	var args []string
	git := filepath.Join(w, ".git")
	fi, err := os.Lstat(git)
	switch {
	case err == nil && fi.Mode().IsRegular():
		args = append(args, "--ro-bind", git, git)
	case err == nil && fi.IsDir():
		args = append(args, "--bind", git, git)
		fallthrough
	default:
		for _, name := range []string{"hooks", "config"} {
			p := filepath.Join(git, name)
			// -try: a repository may lack hooks; a missing .git has neither.
			args = append(args, "--ro-bind-try", p, p)
		}
	}
	nova := filepath.Join(w, ".nova")
	if _, err := os.Lstat(nova); errors.Is(err, fs.ErrNotExist) {
		args = append(args, "--tmpfs", nova, "--remount-ro", nova)
	} else {
		args = append(args, "--ro-bind-try", nova, nova)
	}
	return args
}

// bwrapTrialArgs is the fixed part of the command line Probe tries: the
// same namespaces and mounts as a real run, without any workspace.
func bwrapTrialArgs(network bool) []string {
	args := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
	}
	if !network {
		args = append(args, "--unshare-net")
	}
	return append(args,
		"--unshare-pid", "--die-with-parent", "--new-session",
		"--cap-drop", "ALL",
		"--", "true",
	)
}
