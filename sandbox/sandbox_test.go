package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// fakeBwrap is a probe result for tests that only build command lines.
func fakeBwrap() *Report {
	// Any executable will do: these commands are built, never started.
	sh, err := exec.LookPath("sh")
	if err != nil {
		sh = "/bin/sh"
	}
	return &Report{Backend: BackendBwrap, Path: sh, Works: true, NetworkIsolation: true, UnixSocketFilter: true}
}

// realTempDir is t.TempDir with symlinks resolved, as New resolves them.
func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, root, "ws")
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	broken := &Report{Backend: BackendBwrap, Reason: "bwrap not found: install bubblewrap (apt-get install bubblewrap)"}
	noNet := &Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true, UnixSocketFilter: true, Reason: "network namespaces unavailable: x"}
	noFilter := &Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true, NetworkIsolation: true, Reason: "the Unix socket filter cannot be applied: x"}

	tests := []struct {
		name        string
		cfg         Config
		want        string // substring of the error
		unavailable bool   // errors.Is(err, ErrUnavailable)
	}{
		{"no workspace", Config{Home: home, Probed: fakeBwrap()}, "no workspace", false},
		{"missing workspace", Config{Workspace: filepath.Join(root, "nope"), Home: home, Probed: fakeBwrap()}, "workspace", false},
		{"workspace is a file", Config{Workspace: file, Home: home, Probed: fakeBwrap()}, "not a directory", false},
		{"workspace is home", Config{Workspace: home, Home: home, Probed: fakeBwrap()}, "whole home directory", false},
		{"workspace above home", Config{Workspace: root, Home: home, Probed: fakeBwrap()}, "whole home directory", false},
		{"added dir is home", Config{Workspace: ws, AddDirs: []string{home}, Home: home, Probed: fakeBwrap()}, "whole home directory", false},
		{"workspace is root", Config{Workspace: "/", Home: home, Probed: fakeBwrap()}, "whole filesystem", false},
		{"added dir is root", Config{Workspace: ws, AddDirs: []string{"/"}, Home: home, Probed: fakeBwrap()}, "/ would make", false},
		{"added dir is root, home is root", Config{Workspace: ws, AddDirs: []string{"/"}, Home: "/", Probed: fakeBwrap()}, "whole filesystem", false},
		{"unknown backend", Config{Workspace: ws, Home: home, Probed: &Report{Backend: "jail", Works: true, NetworkIsolation: true}}, "unknown backend", true},
		{"missing added dir", Config{Workspace: ws, AddDirs: []string{filepath.Join(root, "nope")}, Home: home, Probed: fakeBwrap()}, "added directory", false},
		{"backend broken", Config{Workspace: ws, Home: home, Probed: broken}, "apt-get install bubblewrap", true},
		{"no network isolation", Config{Workspace: ws, Home: home, Probed: noNet}, "sandbox.network", true},
		{"no unix socket filter", Config{Workspace: ws, Home: home, Probed: noFilter}, "sandbox.allowUnixSockets", true},
		{"no unix socket filter, network allowed", Config{Workspace: ws, Home: home, Network: true, Probed: noFilter}, "cannot be applied", true},
		{"relative mask", Config{Workspace: ws, Home: home, Mask: []string{"secrets"}, Probed: fakeBwrap()}, "not absolute", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb, err := New(tt.cfg)
			if err == nil {
				t.Fatalf("New = %+v, want error containing %q", sb, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if got := errors.Is(err, ErrUnavailable); got != tt.unavailable {
				t.Errorf("errors.Is(ErrUnavailable) = %v, want %v (%v)", got, tt.unavailable, err)
			}
		})
	}
}

func TestNewNetworkAllowedWithoutIsolation(t *testing.T) {
	t.Parallel()
	ws := realTempDir(t)
	noNet := &Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true, UnixSocketFilter: true}
	sb, err := New(Config{Workspace: ws, Network: true, Home: realTempDir(t), Probed: noNet})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if sb.Backend() != BackendBwrap {
		t.Errorf("Backend = %q", sb.Backend())
	}
	// Without the filter, only a Config that allows Unix sockets runs.
	noFilter := &Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true, NetworkIsolation: true}
	sb, err = New(Config{Workspace: ws, AllowUnixSockets: true, Home: realTempDir(t), Probed: noFilter})
	if err != nil {
		t.Fatalf("New with AllowUnixSockets: %v", err)
	}
	if sb.seccomp != nil {
		t.Error("AllowUnixSockets still loads the filter")
	}
}

// TestNewProbes checks that New without Config.Probed probes the machine
// itself and agrees with Probe.
func TestNewProbes(t *testing.T) {
	t.Parallel()
	r := Probe(context.Background())
	sb, err := New(Config{Workspace: realTempDir(t), Home: realTempDir(t)})
	switch {
	case r.Works && r.NetworkIsolation && r.UnixSocketFilter:
		if err != nil || sb.Backend() != r.Backend {
			t.Errorf("New = %v, %v; Probe says %+v", sb, err, r)
		}
	case err == nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), r.Reason):
		t.Errorf("New err = %v, want ErrUnavailable with %q", err, r.Reason)
	}
}

// confine confines argv in workdir without starting it, and releases it
// when the test ends.
func confine(t *testing.T, sb *Sandbox, workdir string, argv ...string) (*exec.Cmd, error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = workdir
	release, err := sb.Confine(cmd)
	if err != nil {
		return nil, err
	}
	t.Cleanup(release)
	return cmd, nil
}

func TestConfineWorkdir(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	sub := mkdir(t, ws, "sub")
	extra := mkdir(t, root, "extra")
	outside := mkdir(t, root, "outside")
	link := filepath.Join(root, "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	sb, err := New(Config{Workspace: ws, AddDirs: []string{extra, sub}, Home: mkdir(t, root, "home"), Probed: fakeBwrap()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, workdir, want, err string
	}{
		{"empty is workspace", "", ws, ""},
		{"workspace", ws, ws, ""},
		{"relative", "sub", sub, ""},
		{"added dir", extra, extra, ""},
		{"symlink into workspace", link, sub, ""},
		{"outside", outside, "", "outside the workspace"},
		{"relative escape", "../outside", "", "outside the workspace"},
		{"root", "/", "", "outside the workspace"},
		{"missing", filepath.Join(ws, "nope"), "", "working directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, err := confine(t, sb, tt.workdir, "true")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Confine err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Confine: %v", err)
			}
			i := slices.Index(cmd.Args, "--chdir")
			if i < 0 || cmd.Args[i+1] != tt.want {
				t.Errorf("--chdir in %q, want %s", cmd.Args, tt.want)
			}
		})
	}
	if _, err := sb.Confine(&exec.Cmd{}); err == nil {
		t.Error("Confine of an empty command succeeded")
	}
}

// indexPair finds the option opt followed by its arguments args in argv.
func indexPair(argv []string, opt string, args ...string) int {
	for i := range argv {
		if argv[i] == opt && i+len(args) < len(argv) && slices.Equal(argv[i+1:i+1+len(args)], args) {
			return i
		}
	}
	return -1
}

// passedFile returns what bwrap would read from the descriptor named by
// the option opt for dest (or the only one, when dest is empty).
func passedFile(t *testing.T, cmd *exec.Cmd, opt string, dest ...string) []byte {
	t.Helper()
	i := indexPair(cmd.Args, opt)
	if len(dest) > 0 {
		i = -1
		for j := range cmd.Args {
			if cmd.Args[j] == opt && j+2 < len(cmd.Args) && cmd.Args[j+2] == dest[0] {
				i = j
			}
		}
	}
	if i < 0 {
		t.Fatalf("no %s %q in %q", opt, dest, cmd.Args)
	}
	fd, err := strconv.Atoi(cmd.Args[i+1])
	if err != nil || fd < 3 || fd-3 >= len(cmd.ExtraFiles) {
		t.Fatalf("%s %s: not a passed descriptor (ExtraFiles %d)", opt, cmd.Args[i+1], len(cmd.ExtraFiles))
	}
	b, err := io.ReadAll(cmd.ExtraFiles[fd-3])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBwrapArgv(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, home, "proj") // a workspace inside the home, the usual case
	mkdir(t, ws, ".git", "objects")
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n")
	writeFile(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	mkdir(t, ws, ".nova")
	extra := mkdir(t, root, "extra") // no .git, no .nova
	worktree := mkdir(t, root, "worktree")
	writeFile(t, filepath.Join(worktree, ".git"), "gitdir: /elsewhere\n")
	mkdir(t, home, ".ssh")
	writeFile(t, filepath.Join(home, ".netrc"), "machine x password y\n")

	for _, network := range []bool{false, true} {
		sb, err := New(Config{Workspace: ws, AddDirs: []string{extra, worktree}, Home: home, NovaHome: filepath.Join(home, ".nova"),
			Network: network, Probed: fakeBwrap()})
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := confine(t, sb, "", "sh", "-c", "echo hi", "--chdir")
		if err != nil {
			t.Fatal(err)
		}
		argv := cmd.Args
		if argv[0] != fakeBwrap().Path || cmd.Path != fakeBwrap().Path {
			t.Errorf("argv[0] = %q, Path %q", argv[0], cmd.Path)
		}
		sep := slices.Index(argv, "--")
		if sep < 0 || !slices.Equal(argv[sep+1:], []string{"sh", "-c", "echo hi", "--chdir"}) {
			t.Fatalf("command not after --: %q", argv)
		}
		opts := argv[:sep]
		must := func(opt string, args ...string) int {
			t.Helper()
			i := indexPair(opts, opt, args...)
			if i < 0 {
				t.Errorf("network=%v: missing %s %q in %q", network, opt, args, opts)
			}
			return i
		}
		git := func(name string) string { return filepath.Join(ws, ".git", name) }
		rootRO := must("--ro-bind", "/", "/")
		must("--dev", "/dev")
		must("--proc", "/proc")
		tmp := must("--tmpfs", "/tmp")
		homeRO := must("--ro-bind-try", home, home)
		wsRW := must("--bind", ws, ws)
		extraRW := must("--bind", extra, extra)
		// An existing .git is pinned by a bind before its entries are
		// made read-only; a missing hooks becomes an empty read-only
		// directory; a missing commondir gets a placeholder; a .git file
		// is read-only; every path that runs later is bound read-only,
		// a missing one over a placeholder directory, a missing parent
		// (.github for .github/workflows) in its place.
		pin := must("--bind", git(""), git(""))
		cfg := must("--ro-bind", git("config"), git("config"))
		hooks := must("--tmpfs", git("hooks"))
		must("--remount-ro", git("hooks"))
		must("--ro-bind", git("commondir"), git("commondir"))
		nova := must("--ro-bind", filepath.Join(ws, ".nova"), filepath.Join(ws, ".nova"))
		for _, top := range []string{ws, extra, worktree} {
			for _, e := range permission.RunsLater() {
				name, _, _ := strings.Cut(e.Rel, "/")
				must("--ro-bind", filepath.Join(top, name), filepath.Join(top, name))
				if top != ws || name != ".nova" {
					if !isPlaceholderDirPath(filepath.Join(top, name)) {
						t.Errorf("%s: no placeholder directory while the command runs", filepath.Join(top, name))
					}
				}
			}
		}
		must("--ro-bind", filepath.Join(worktree, ".git"), filepath.Join(worktree, ".git"))
		if indexPair(opts, "--bind", filepath.Join(extra, ".git"), filepath.Join(extra, ".git")) >= 0 {
			t.Errorf("missing .git bound: %q", opts)
		}
		if slices.Contains(opts, git("config.worktree")) {
			t.Errorf("config.worktree protected without extensions.worktreeConfig: %q", opts)
		}
		// Credentials: a directory becomes an empty read-only tmpfs, a
		// file an empty read-only file.
		ssh := must("--tmpfs", filepath.Join(home, ".ssh"))
		must("--remount-ro", filepath.Join(home, ".ssh"))
		if b := passedFile(t, cmd, "--ro-bind-data", filepath.Join(home, ".netrc")); len(b) != 0 {
			t.Errorf(".netrc covered with %q, want an empty file", b)
		}
		must("--unshare-pid")
		must("--die-with-parent")
		must("--new-session")
		must("--cap-drop", "ALL")
		must("--chdir", ws)
		want, err := seccompFilter(runtime.GOARCH)
		if err == nil {
			if got := passedFile(t, cmd, "--seccomp"); !bytes.Equal(got, want) {
				t.Errorf("--seccomp descriptor holds %d bytes, want the %d-byte filter", len(got), len(want))
			}
		}
		// bwrap applies mounts in order: each later one must cover the
		// earlier ones where they overlap.
		if !(rootRO < tmp && tmp < homeRO && homeRO < wsRW && wsRW < extraRW && extraRW < pin && pin < cfg && pin < hooks && hooks < ssh &&
			extraRW < nova && nova < ssh) {
			t.Errorf("mount order wrong: root %d tmp %d home %d ws %d extra %d pin %d config %d hooks %d nova %d ssh %d",
				rootRO, tmp, homeRO, wsRW, extraRW, pin, cfg, hooks, nova, ssh)
		}
		if got := slices.Contains(opts, "--unshare-net"); got == network {
			t.Errorf("network=%v: --unshare-net present = %v", network, got)
		}
	}
}

// TestConfineReleasesFiles checks that the parent keeps no descriptor and
// no placeholder once release and Close have run, whether or not the
// command started, and that the Sandbox keeps the same few between
// commands rather than more for each.
func TestConfineReleasesFiles(t *testing.T) {
	// Not parallel: it counts the whole process's descriptors, which
	// other tests open and close.
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	mkdir(t, ws, ".git", "hooks")
	home := mkdir(t, root, "home")
	writeFile(t, filepath.Join(home, ".netrc"), "x\n")
	sb, err := New(Config{Workspace: ws, Home: home, NovaHome: filepath.Join(home, ".nova"), Probed: fakeBwrap()})
	if err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	kept := -1
	for i := range 20 {
		cmd := exec.Command("true")
		release, err := sb.Confine(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if len(cmd.ExtraFiles) == 0 {
			t.Fatal("no descriptors passed")
		}
		if _, err := os.Stat(filepath.Join(ws, ".git", "commondir")); err != nil {
			t.Fatalf("placeholder missing while confined: %v", err)
		}
		release()
		release() // twice is harmless
		if _, err := os.Lstat(filepath.Join(ws, ".git", "commondir")); err != nil {
			t.Fatalf("placeholder not kept for the next command: %v", err)
		}
		switch n := openFDs(t); {
		case i == 0:
			kept = n
		case n > kept:
			t.Fatalf("%d descriptors open after the first command, %d after %d", kept, n, i+1)
		}
	}
	sb.Close()
	// More after is a leak; fewer is an earlier test's descriptors (a
	// proxy's, a bridge's) closing late, which flaked this under -race.
	if after := openFDs(t); after > before {
		t.Errorf("%d descriptors open before, %d after 20 commands", before, after)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git", "commondir")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("placeholder left behind: %v", err)
	}
}

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

func TestWarningsForMaskHoldingWorkspace(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, home, ".config", "gh", "proj")
	sb, err := New(Config{Workspace: ws, Home: home, NovaHome: filepath.Join(home, ".nova"), Probed: fakeBwrap()})
	if err != nil {
		t.Fatal(err)
	}
	w := sb.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], filepath.Join(home, ".config", "gh")) || !strings.Contains(w[0], ws) {
		t.Errorf("Warnings = %q, want one naming ~/.config/gh and the workspace", w)
	}
	cmd, err := confine(t, sb, "", "true")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(cmd.Args, filepath.Join(home, ".config", "gh")) {
		t.Errorf("the mask holding the workspace is still applied: %q", cmd.Args)
	}
}

func TestWritableDirsDedup(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	inner := mkdir(t, ws, "inner")
	other := mkdir(t, root, "other")
	got, err := writableDirs(Config{Workspace: ws, AddDirs: []string{inner, other, other + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{ws, other}; !slices.Equal(got, want) {
		t.Errorf("writableDirs = %q, want %q", got, want)
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, dir string
		want      bool
	}{
		{"/a/b", "/a", true},
		{"/a", "/a", true},
		{"/ab", "/a", false},
		{"/a", "/a/b", false},
		{"/x", "/", true},
	}
	for _, tt := range tests {
		if got := within(tt.path, tt.dir); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.path, tt.dir, got, tt.want)
		}
	}
}

func TestWarningsForGitSymlink(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	gitdir := mkdir(t, root, "gitdir")
	writeFile(t, filepath.Join(gitdir, "HEAD"), "ref: refs/heads/main\n")
	if err := os.Symlink(gitdir, filepath.Join(ws, ".git")); err != nil {
		t.Fatal(err)
	}
	sb, err := New(Config{Workspace: ws, Home: mkdir(t, root, "home"), NovaHome: mkdir(t, root, "nova"), Probed: fakeBwrap()})
	if err != nil {
		t.Fatal(err)
	}
	if w := sb.Warnings(); len(w) != 1 || !strings.Contains(w[0], filepath.Join(ws, ".git")) {
		t.Errorf("Warnings = %q, want one about the .git link", w)
	}
}
