package sandbox

import (
	"fmt"
	"os"
	"strconv"
)

// bwrapFiles hands bwrap the content of a file through an inherited file
// descriptor (--seccomp, --ro-bind-data) and returns its number in the
// child.
type bwrapFiles func(content []byte) (fd int, err error)

// bwrapArgv builds the bubblewrap command line for argv in dir. The order of
// the mount options matters: bwrap applies them in turn, so the private /tmp
// comes before the binds (a workspace under /tmp must stay visible), the
// read-only home before the writable directories (a workspace in the home
// must be writable), the protected paths (git's, and what runs later)
// after those, and the masks
// last of all, so that nothing bound later uncovers a credential.
func bwrapArgv(s *Sandbox, argv []string, dir string, git gitPlan, masks []mask, files bwrapFiles) ([]string, error) {
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
	if s.cache.root != "" {
		// Before the plan: a cache below a path that runs later stays
		// read-only with it.
		args = append(args, "--bind", s.cache.root, s.cache.root)
	}
	args = append(args, bwrapGit(git)...)
	for _, m := range masks {
		if m.dir {
			args = append(args, "--tmpfs", m.path, "--remount-ro", m.path)
			continue
		}
		// An empty file, not /dev/null: bwrap binds with nodev, so a
		// bound /dev/null fails to open (EACCES) instead of reading empty.
		fd, err := files(nil)
		if err != nil {
			return nil, err
		}
		args = append(args, "--ro-bind-data", strconv.Itoa(fd), m.path)
	}
	args = append(args, bwrapNet(s)...)
	args = append(args,
		"--unshare-pid",
		"--die-with-parent",
		// A new session stops a sandboxed command from pushing keystrokes
		// into the user's terminal with TIOCSTI.
		"--new-session",
		// bwrap run by root keeps every capability unless told otherwise,
		// and CAP_SYS_ADMIN can remount / read-write: drop them all.
		"--cap-drop", "ALL",
	)
	if s.seccomp != nil {
		fd, err := files(s.seccomp)
		if err != nil {
			return nil, err
		}
		args = append(args, "--seccomp", strconv.Itoa(fd))
	}
	args = append(args,
		// The caller's TMPDIR may point outside the writable directories;
		// the session's (or the private /tmp) is always writable.
		"--setenv", "TMPDIR", s.TempDir(),
		"--chdir", dir,
		"--",
	)
	return append(args, argv...), nil
}

// bwrapGit turns the plan (git's files, and what runs later) into mount
// options. bwrap binds by path at start-up, so the plan must describe the
// files as they are now. Pins come
// first, parents before children: a later bind of a directory would cover
// the binds made inside it.
func bwrapGit(g gitPlan) []string {
	var args []string
	for _, p := range g.pins {
		args = append(args, "--bind", p, p)
	}
	for _, p := range g.roWhole {
		args = append(args, "--ro-bind", p, p)
	}
	for _, e := range g.entries {
		switch e.state {
		case entryPresent, entryPlaceholder, entryPlaceholderDir:
			// Not -try: a protected file that vanished since the plan
			// was made must stop the command, not leave a gap.
			args = append(args, "--ro-bind", e.path, e.path)
		case entryEmptyDir:
			args = append(args, "--tmpfs", e.path, "--remount-ro", e.path)
		}
	}
	return args
}

// bwrapTrialArgs is the fixed part of the command line Probe tries: the
// same namespaces and kinds of mounts as a real run, without any workspace.
// dataFD is a descriptor holding nothing, for the kind of bind that masks a
// credential file; seccompFD is the filter's, or -1 to try without.
func bwrapTrialArgs(network bool, dataFD, seccompFD int) []string {
	args := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--ro-bind-data", strconv.Itoa(dataFD), "/tmp/nova-probe-mask",
		"--tmpfs", "/tmp/nova-probe-dir", "--remount-ro", "/tmp/nova-probe-dir",
	}
	if !network {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL")
	if seccompFD >= 0 {
		args = append(args, "--seccomp", strconv.Itoa(seccompFD))
	}
	return append(args, "--", "true")
}

// pipeWith returns the read end of a pipe that holds content and then ends;
// the write end is closed. content must fit the pipe's buffer (64 KiB on
// Linux), which the filter and the empty masks do by far.
func pipeWith(content []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: pipe: %w", err)
	}
	if len(content) > 0 {
		if _, err := w.Write(content); err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("sandbox: pipe: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: pipe: %w", err)
	}
	return r, nil
}
