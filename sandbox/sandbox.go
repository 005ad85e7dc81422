// Package sandbox confines a command so it runs inside the OS sandbox:
// bubblewrap (bwrap) on Linux, sandbox-exec on macOS. Inside, the whole
// filesystem is read-only except the workspace, the directories the user
// added and a private temp directory; what runs later outside the sandbox
// (the git metadata git runs code from, and the paths of
// permission.RunsLater: .nova, .claude, .mcp.json, .vscode, ...) stays
// read-only even there, existing or not; credential stores read as empty;
// Unix sockets cannot be used; and the network is cut unless allowed.
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	// Hosts, when set (and Network is false), lets commands reach the
	// network through nova's filtering proxy only: Hosts decides each host,
	// unless Confine is given a decider of its own (ConfineHosts).
	Hosts HostDecider
	// Bridge is the executable that runs the proxy's bridge inside bwrap
	// (BridgeMain, for the argument BridgeArg): nova's own. Required with
	// Hosts on Linux.
	Bridge string
	// AllowUnixSockets lets commands connect to Unix sockets (setting
	// sandbox.allowUnixSockets). By default they cannot: a Unix socket
	// reaches whatever listens on it (the Docker daemon, an ssh agent, the
	// session bus), with or without network access.
	AllowUnixSockets bool
	// Home is the user's home directory, kept read-only except where it
	// overlaps the workspace or an added directory; empty means there is
	// none to protect (the read-only root still covers it).
	Home string
	// NovaHome is nova's own directory, whose files that hold secrets
	// (config.json, settings.json, mcp-auth) are masked; empty means
	// Home/.nova.
	NovaHome string
	// Mask lists further absolute paths that read as empty inside the
	// sandbox (setting sandbox.mask), on top of permission.CredentialPaths.
	Mask []string
	// Probed is the Report of an earlier Probe to trust instead of probing
	// again; nil means New probes the machine itself.
	Probed *Report
	// Caches is the directory of the private toolchain caches of
	// sandboxed commands (NOVA_HOME/cache/sandbox), writable inside; ""
	// means none (caches.go).
	Caches string
	// TempDir is the session's private temporary directory, TMPDIR inside
	// and writable (it must lie in a writable directory); "" keeps bwrap's
	// /tmp, private to each command.
	TempDir string
	// Getenv reads nova's environment for the toolchains' settings the
	// caches build on (GOPROXY, GOMODCACHE, MAVEN_OPTS); nil means
	// os.Getenv.
	Getenv func(string) string
}

// Sandbox wraps commands for one workspace. Its configuration is fixed by
// New; it is safe for concurrent use.
type Sandbox struct {
	backend   string
	bin       string
	writable  []string // absolute, symlinks resolved, workspace first
	home      string   // absolute, symlinks resolved when it exists; "" for none
	network   bool
	allowUnix bool
	// hosts, bridge and proxy filter the network (Config.Hosts); hosts is
	// nil when it is all or nothing.
	hosts    HostDecider
	bridge   string
	proxy    *proxy
	masks    []string // candidates, absolute; resolved again for each command
	warnings []string
	tempDirs []string // sandbox-exec only: host temp dirs left writable
	cache    cacheSetup
	seccomp  []byte // bwrap only: the Unix socket filter; nil when allowed
	// placeholders are the files written on the host for the commands
	// (bwrap only), kept a minute past the last one or until Close;
	// shared with the Sandboxes Reroot makes, so that one Close gives back
	// all of them.
	placeholders *placeholders
	// cfg and report are what New made it from, for Reroot.
	cfg    Config
	report Report
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
	for _, dir := range linkedGitDirs(writable) {
		// What a .git file leads to never widens the sandbox to / or
		// the home: such a worktree commits outside the sandbox.
		if dir != "/" && (home == "" || !within(home, dir)) {
			writable = append(writable, dir)
		}
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

	novaHome := cfg.NovaHome
	if novaHome != "" {
		if novaHome, err = filepath.Abs(novaHome); err != nil {
			return nil, fmt.Errorf("sandbox: nova home: %w", err)
		}
	}
	masks, warnings, err := maskCandidates(home, novaHome, cfg.Mask, writable)
	if err != nil {
		return nil, err
	}
	cache, err := setupCaches(cfg, home, writable)
	if err != nil {
		return nil, err
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
	if report.Backend != BackendBwrap && report.Backend != BackendSandboxExec {
		return nil, fmt.Errorf("%w: unknown backend %q", ErrUnavailable, report.Backend)
	}
	if !cfg.AllowUnixSockets && !report.UnixSocketFilter {
		return nil, fmt.Errorf("%w: Unix sockets cannot be closed here (%s); "+
			"set sandbox.allowUnixSockets to true to sandbox without closing them", ErrUnavailable, report.Reason)
	}

	if err := checkHosts(cfg, report.Backend); err != nil {
		return nil, err
	}
	sb := &Sandbox{
		hosts:     cfg.Hosts,
		bridge:    cfg.Bridge,
		backend:   report.Backend,
		bin:       report.Path,
		writable:  writable,
		home:      home,
		network:   cfg.Network,
		allowUnix: cfg.AllowUnixSockets,
		masks:     masks,
		warnings:  warnings,
		cache:     cache,
		cfg:       cfg,
		report:    *report,
		// A fresh set even when Reroot hands over its own: the sweep below
		// must not keep anything.
		placeholders: &placeholders{},
	}
	if sb.hosts != nil {
		sb.proxy = newProxy()
	}
	switch report.Backend {
	case BackendBwrap:
		if !cfg.AllowUnixSockets {
			if sb.seccomp, err = seccompFilter(runtime.GOARCH); err != nil {
				return nil, fmt.Errorf("%w: %v; set sandbox.allowUnixSockets to true to sandbox without it", ErrUnavailable, err)
			}
		}
		plan := planGit(writable, home)
		// A bind cannot hold a symbolic link, only the directory around
		// it, and a writable directory cannot be made read-only.
		for _, l := range plan.links {
			if slices.Contains(writable, filepath.Dir(l)) {
				sb.warnings = append(sb.warnings, fmt.Sprintf(
					"sandbox: %s is a symbolic link to files that run later outside the sandbox (git's, or an editor's or agent's settings); "+
						"a sandboxed command can re-aim it at files of its own", l))
			}
		}
		sb.sweepPlaceholders(plan)
	case BackendSandboxExec:
		sb.tempDirs = darwinTempDirs()
	}
	return sb, nil
}

// Reroot returns a Sandbox like s, with every setting and added directory
// of s, whose workspace is workspace instead: a subagent's git worktree,
// whose commands must write there and not in the workspace it was made
// from. The worktree's git directories become writable with it (their
// hooks and config stay read-only), so that it can commit.
func (s *Sandbox) Reroot(workspace string) (*Sandbox, error) {
	cfg := s.cfg
	cfg.Workspace = workspace
	cfg.Probed = &s.report
	sb, err := New(cfg)
	if err != nil {
		return nil, err
	}
	sb.placeholders = s.placeholders
	return sb, nil
}

// Close removes the placeholders s keeps between commands (bwrap makes an
// empty read-only directory where a protected path such as .vscode is
// missing, and keeps it for the next command rather than make it again,
// until no command has run for a minute),
// those of the Sandboxes Reroot made from s included; one a command still
// binds goes when that command is released. It is called once the session
// ends; commands confined after it still work, and their placeholders go
// with them. A nova that was killed leaves its placeholders, which New
// sweeps at the next start.
func (s *Sandbox) Close() error {
	s.placeholders.close()
	return nil
}

// Backend names the mechanism in use ("bwrap" or "sandbox-exec").
func (s *Sandbox) Backend() string { return s.backend }

// Warnings says, for a person, what New could not protect as asked:
// credential paths left readable because they hold the workspace or an
// added directory, and (bwrap) symbolic links git follows that a command
// could re-aim. Callers show them at start-up.
func (s *Sandbox) Warnings() []string { return slices.Clone(s.warnings) }

// Confine rewrites cmd, not yet started, so that it runs inside the sandbox
// in cmd.Dir. cmd.Dir must be inside the workspace or an added directory
// (relative paths start at the workspace; empty means the workspace),
// because a command started elsewhere could not write where it stands and
// that is nearly always a mistake in the caller.
//
// What the sandbox sets up for the command (the pipes bwrap reads, its
// share in the placeholders it binds) lasts until release, which the
// caller must call once, after the command and every process it started
// have ended or when it failed to start. The placeholders themselves stay
// for the next command, until none has run for a minute or Close.
func (s *Sandbox) Confine(cmd *exec.Cmd) (release func(), err error) {
	return s.ConfineHosts(cmd, nil)
}

// ConfineHosts is Confine with decide judging the hosts this command's
// network requests go to, in place of Config.Hosts (the Bash tool's, which
// can ask the person whose call it runs); nil means Config.Hosts. It makes
// no difference unless the network is filtered.
func (s *Sandbox) ConfineHosts(cmd *exec.Cmd, decide HostDecider) (release func(), err error) {
	if decide == nil {
		decide = s.hosts
	}
	if len(cmd.Args) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	dir, err := s.resolveWorkdir(cmd.Dir)
	if err != nil {
		return nil, err
	}
	bin, err := exec.LookPath(s.bin)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	// The command is looked up inside the sandbox; what exec.Command
	// found (or did not) outside no longer matters. bwrap itself starts
	// where the command will run.
	cmd.Err, cmd.Dir = nil, dir
	if len(s.cache.env) > 0 {
		cmd.Env = withEnv(cmd.Env, s.cache.env)
	}
	switch s.backend {
	case BackendBwrap:
		return s.confineBwrap(cmd, bin, dir, decide)
	case BackendSandboxExec:
		return s.confineSandboxExec(cmd, bin, dir, decide)
	}
	return nil, fmt.Errorf("sandbox: unknown backend %q", s.backend)
}

// confineBwrap plans the command's mounts as the files are now, writes the
// placeholders and the pipes bwrap reads, and rewrites cmd.
func (s *Sandbox) confineBwrap(cmd *exec.Cmd, bin, dir string, decide HostDecider) (release func(), err error) {
	var (
		files []*os.File
		held  []*placeholder
		stop  = func() {}
	)
	undo := sync.OnceFunc(func() {
		for _, f := range files {
			f.Close()
		}
		stop()
		s.placeholders.release(held)
	})
	defer func() {
		if err != nil {
			undo()
		}
	}()
	git := planGit(s.writable, s.home)
	if held, err = s.placeholders.acquire(git.placeholders(), true); err != nil {
		return nil, err
	}
	// ExtraFiles[i] is descriptor 3+i in the child.
	first := 3 + len(cmd.ExtraFiles)
	pass := func(content []byte) (int, error) {
		r, err := pipeWith(content)
		if err != nil {
			return 0, err
		}
		files = append(files, r)
		return first + len(files) - 1, nil
	}
	argv := cmd.Args
	if s.hosts != nil {
		var ctl *os.File
		if ctl, stop, err = s.startBridge(decide); err != nil {
			return nil, err
		}
		files = append(files, ctl)
		argv = append([]string{bridgeInside, BridgeArg, strconv.Itoa(first + len(files) - 1), "--"}, argv...)
	}
	argv, err = bwrapArgv(s, argv, dir, git, s.currentMasks(), pass)
	if err != nil {
		return nil, err
	}
	cmd.Path, cmd.Args = bin, argv
	cmd.ExtraFiles = append(cmd.ExtraFiles, files...)
	return undo, nil
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
// as given, since there is nothing under it to protect or bind. No home
// ("") has nothing to protect: nothing under it can be written anyway
// beyond what the read-only root allows.
func homeDir(h string) (string, error) {
	if h == "" {
		return "", nil
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

// protectedNames are paths, relative to each writable directory, that
// sandbox-exec keeps read-only whether or not they exist: what a command
// writes there makes git run code later outside it (git hooks, git
// config's core.fsmonitor / core.pager, what commondir points git at). The
// paths that run later for other programs come from the plan (later.go).
func protectedNames() []string {
	return []string{".git/hooks", ".git/config", ".git/commondir", ".git/config.worktree"}
}
