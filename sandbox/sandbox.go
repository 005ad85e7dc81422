// Package sandbox wraps a command line so it runs inside the OS sandbox:
// bubblewrap (bwrap) on Linux, sandbox-exec on macOS. Inside, the whole
// filesystem is read-only except the workspace, the directories the user
// added and a private temp directory, and the network is cut unless allowed.
//
// Probe says what the machine supports; New refuses, with the reason and the
// fix, when the sandbox cannot work, so callers can ask or refuse instead of
// silently running unsandboxed.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrUnavailable marks errors from New that mean "the sandbox cannot run on
// this machine", as opposed to a bad Config.
var ErrUnavailable = errors.New("sandbox unavailable")

// newProbeTimeout bounds the trial runs New makes when it probes itself.
const newProbeTimeout = 10 * time.Second

// Config says what a sandboxed command may touch.
type Config struct {
	// Workspace is the project root; it is writable inside the sandbox.
	Workspace string
	// AddDirs are further directories the user granted; writable too.
	AddDirs []string
	// Network allows network access; false cuts it (loopback included).
	Network bool
	// Home is the user's home directory, kept read-only except where it
	// overlaps the workspace or an added directory; empty means os.UserHomeDir.
	Home string
	// Probed is the Report of an earlier Probe to trust instead of probing
	// again; nil means New probes the machine itself.
	Probed *Report
}

// Sandbox wraps command lines for one workspace. It is immutable after New
// and safe for concurrent use.
type Sandbox struct {
	backend  string
	bin      string
	writable []string // absolute, symlinks resolved, workspace first
	home     string   // absolute, symlinks resolved when it exists; "" for none
	network  bool
	tempDirs []string // sandbox-exec only: host temp dirs left writable
}

// New checks cfg and the machine and returns a Sandbox, or an error saying
// exactly why the sandbox cannot be used and what to do about it. Errors
// about the machine wrap ErrUnavailable.
func New(cfg Config) (*Sandbox, error) {
	writable, err := writableDirs(cfg)
	if err != nil {
		return nil, err
	}
	home, err := homeDir(cfg.Home)
	if err != nil {
		return nil, err
	}
	for _, dir := range writable {
		// A writable home (or a parent of it) would let a sandboxed command
		// edit shell rc files, ~/.ssh and nova's own settings, which run
		// outside the sandbox later: that is an escape, not a sandbox.
		if dir == "/" {
			return nil, errors.New("sandbox: / would make the whole filesystem writable; " +
				"start nova in a project directory or remove / from the added directories")
		}
		if home != "" && within(home, dir) {
			return nil, fmt.Errorf("sandbox: %s would make your whole home directory (%s) writable; "+
				"start nova in a project directory or remove it from the added directories", dir, home)
		}
	}

	report := cfg.Probed
	if report == nil {
		ctx, cancel := context.WithTimeout(context.Background(), newProbeTimeout)
		r := Probe(ctx)
		cancel()
		report = &r
	}
	if !report.Works {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, report.Reason)
	}
	if !cfg.Network && !report.NetworkIsolation {
		return nil, fmt.Errorf("%w: network isolation does not work here (%s); "+
			"set sandbox.network to true to sandbox the filesystem only", ErrUnavailable, report.Reason)
	}

	sb := &Sandbox{
		backend:  report.Backend,
		bin:      report.Path,
		writable: writable,
		home:     home,
		network:  cfg.Network,
	}
	switch report.Backend {
	case BackendBwrap:
	case BackendSandboxExec:
		sb.tempDirs = darwinTempDirs()
	default:
		return nil, fmt.Errorf("%w: unknown backend %q", ErrUnavailable, report.Backend)
	}
	return sb, nil
}

// Backend names the mechanism in use ("bwrap" or "sandbox-exec").
func (s *Sandbox) Backend() string { return s.backend }

// Wrap returns the argv that runs argv inside the sandbox with workdir as
// its working directory. workdir must be inside the workspace or an added
// directory (relative paths start at the workspace; empty means the
// workspace), because a command started elsewhere could not write where it
// stands and that is nearly always a mistake in the caller.
func (s *Sandbox) Wrap(argv []string, workdir string) ([]string, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	dir, err := s.resolveWorkdir(workdir)
	if err != nil {
		return nil, err
	}
	switch s.backend {
	case BackendBwrap:
		return bwrapArgv(s, argv, dir), nil
	case BackendSandboxExec:
		return sandboxExecArgv(s, argv, dir), nil
	}
	return nil, fmt.Errorf("sandbox: unknown backend %q", s.backend)
}

// Confine rewrites cmd, not yet started, so that it runs inside the sandbox
// in cmd.Dir (see Wrap for which directories are accepted). release undoes
// what Confine set up for the command; call it once the command has ended.
func (s *Sandbox) Confine(cmd *exec.Cmd) (release func(), err error) {
	argv, err := s.Wrap(cmd.Args, cmd.Dir)
	if err != nil {
		return nil, err
	}
	if cmd.Path, err = exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	cmd.Args = argv
	return func() {}, nil
}

// resolveWorkdir makes workdir absolute and real, and checks it lies in a
// writable directory.
func (s *Sandbox) resolveWorkdir(workdir string) (string, error) {
	if workdir == "" {
		return s.writable[0], nil
	}
	if !filepath.IsAbs(workdir) {
		workdir = filepath.Join(s.writable[0], workdir)
	}
	real, err := filepath.EvalSymlinks(workdir)
	if err != nil {
		return "", fmt.Errorf("sandbox: working directory: %w", err)
	}
	for _, w := range s.writable {
		if within(real, w) {
			return real, nil
		}
	}
	return "", fmt.Errorf("sandbox: working directory %s is outside the workspace and the added directories (%s)",
		workdir, strings.Join(s.writable, ", "))
}

// writableDirs resolves the workspace and the added directories, workspace
// first, dropping duplicates and directories inside another one.
func writableDirs(cfg Config) ([]string, error) {
	if cfg.Workspace == "" {
		return nil, errors.New("sandbox: no workspace")
	}
	var out []string
	for i, d := range append([]string{cfg.Workspace}, cfg.AddDirs...) {
		what := "workspace"
		if i > 0 {
			what = "added directory"
		}
		real, err := realDir(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %s: %w", what, err)
		}
		out = append(out, real)
	}
	// Keep the workspace at index 0 whatever happens: relative workdirs
	// start there. Drop later entries already covered by an earlier one.
	kept := out[:1]
	for _, d := range out[1:] {
		covered := false
		for _, k := range kept {
			if within(d, k) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, d)
		}
	}
	return kept, nil
}

// realDir returns the absolute, symlink-free form of an existing directory;
// the sandboxes match real paths, so a symlinked workspace would otherwise
// be read-only inside.
func realDir(d string) (string, error) {
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", d, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", d, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", d, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", d)
	}
	return real, nil
}

// homeDir resolves the home directory; a home that does not exist is kept
// as given, since there is nothing under it to protect or bind.
func homeDir(h string) (string, error) {
	if h == "" {
		var err error
		if h, err = os.UserHomeDir(); err != nil {
			// No home to protect: nothing under it can be written anyway
			// beyond what the read-only root allows.
			return "", nil
		}
	}
	abs, err := filepath.Abs(h)
	if err != nil {
		return "", fmt.Errorf("sandbox: home: %w", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if abs == "/" {
		// Some service accounts live in /: the read-only root already
		// covers it, and re-binding / would undo the private /tmp.
		return "", nil
	}
	return abs, nil
}

// within reports whether path is dir or below it; both must be clean and
// absolute.
func within(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// protectedNames are paths, relative to each writable directory, that stay
// read-only inside the sandbox: what a command writes there runs later
// outside it (git hooks, git config's core.fsmonitor / core.pager, nova's
// own settings and permission rules).
func protectedNames() []string {
	return []string{".git/hooks", ".git/config", ".nova"}
}
