package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeBwrap is a probe result for tests that only build command lines.
func fakeBwrap() *Report {
	return &Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true, NetworkIsolation: true}
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
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, root, "ws")
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	broken := &Report{Backend: BackendBwrap, Reason: "bwrap not found: install bubblewrap (apt-get install bubblewrap)"}
	noNet := &Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true, Reason: "network namespaces unavailable: x"}

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
	ws := realTempDir(t)
	noNet := &Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true}
	sb, err := New(Config{Workspace: ws, Network: true, Home: realTempDir(t), Probed: noNet})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if sb.Backend() != BackendBwrap {
		t.Errorf("Backend = %q", sb.Backend())
	}
}

// TestNewProbes checks that New without Config.Probed probes the machine
// itself and agrees with Probe.
func TestNewProbes(t *testing.T) {
	r := Probe(context.Background())
	sb, err := New(Config{Workspace: realTempDir(t), Home: realTempDir(t)})
	switch {
	case r.Works && r.NetworkIsolation:
		if err != nil || sb.Backend() != r.Backend {
			t.Errorf("New = %v, %v; Probe says %+v", sb, err, r)
		}
	case err == nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), r.Reason):
		t.Errorf("New err = %v, want ErrUnavailable with %q", err, r.Reason)
	}
}

func TestWrapWorkdir(t *testing.T) {
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
			argv, err := sb.Wrap([]string{"true"}, tt.workdir)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Wrap err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Wrap: %v", err)
			}
			i := slices.Index(argv, "--chdir")
			if i < 0 || argv[i+1] != tt.want {
				t.Errorf("--chdir in %q, want %s", argv, tt.want)
			}
		})
	}
	if _, err := sb.Wrap(nil, ""); err == nil {
		t.Error("Wrap(nil) succeeded")
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

func TestBwrapArgv(t *testing.T) {
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, home, "proj") // a workspace inside the home, the usual case
	mkdir(t, ws, ".git", "hooks")
	mkdir(t, ws, ".nova")
	extra := mkdir(t, root, "extra") // no .git, no .nova
	worktree := mkdir(t, root, "worktree")
	if err := os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, network := range []bool{false, true} {
		sb, err := New(Config{Workspace: ws, AddDirs: []string{extra, worktree}, Home: home, Network: network, Probed: fakeBwrap()})
		if err != nil {
			t.Fatal(err)
		}
		argv, err := sb.Wrap([]string{"sh", "-c", "echo hi", "--chdir"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if argv[0] != "/usr/bin/bwrap" {
			t.Errorf("argv[0] = %q", argv[0])
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
		rootRO := must("--ro-bind", "/", "/")
		must("--dev", "/dev")
		must("--proc", "/proc")
		tmp := must("--tmpfs", "/tmp")
		homeRO := must("--ro-bind-try", home, home)
		wsRW := must("--bind", ws, ws)
		extraRW := must("--bind", extra, extra)
		// An existing .git is pinned by a bind before its hooks and config
		// are made read-only; a .git file is read-only; a missing .nova
		// gets an empty read-only tmpfs.
		pin := must("--bind", filepath.Join(ws, ".git"), filepath.Join(ws, ".git"))
		hooks := must("--ro-bind-try", filepath.Join(ws, ".git/hooks"), filepath.Join(ws, ".git/hooks"))
		must("--ro-bind-try", filepath.Join(ws, ".git/config"), filepath.Join(ws, ".git/config"))
		must("--ro-bind-try", filepath.Join(ws, ".nova"), filepath.Join(ws, ".nova"))
		must("--ro-bind-try", filepath.Join(extra, ".git/config"), filepath.Join(extra, ".git/config"))
		must("--tmpfs", filepath.Join(extra, ".nova"))
		must("--remount-ro", filepath.Join(extra, ".nova"))
		must("--ro-bind", filepath.Join(worktree, ".git"), filepath.Join(worktree, ".git"))
		if indexPair(opts, "--bind", filepath.Join(extra, ".git"), filepath.Join(extra, ".git")) >= 0 {
			t.Errorf("missing .git bound: %q", opts)
		}
		must("--unshare-pid")
		must("--die-with-parent")
		must("--new-session")
		must("--cap-drop", "ALL")
		must("--chdir", ws)
		// bwrap applies mounts in order: each later one must cover the
		// earlier ones where they overlap.
		if !(rootRO < tmp && tmp < homeRO && homeRO < wsRW && wsRW < extraRW && extraRW < pin && pin < hooks) {
			t.Errorf("mount order wrong: root %d tmp %d home %d ws %d extra %d pin %d hooks %d",
				rootRO, tmp, homeRO, wsRW, extraRW, pin, hooks)
		}
		if got := slices.Contains(opts, "--unshare-net"); got == network {
			t.Errorf("network=%v: --unshare-net present = %v", network, got)
		}
	}
}

func TestWritableDirsDedup(t *testing.T) {
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
