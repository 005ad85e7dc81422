package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

func TestDarwinProfile(t *testing.T) {
	t.Parallel()
	in := seatbeltInput{
		writable:  []string{"/Users/me/proj", `/Users/me/we"ird) (allow default`},
		tempDirs:  []string{"/private/tmp"},
		protected: []string{"/Users/me/proj/.git/hooks"},
		pinned:    []string{"/Users/me/proj/.git"},
	}
	tests := []struct {
		name        string
		network     bool
		unixSockets bool
		has         []string
		hasNot      []string
	}{
		{
			name: "no network",
			has: []string{
				"(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n",
				`(subpath (param "WRITABLE_0"))`,
				`(subpath (param "WRITABLE_1"))`,
				`(subpath (param "TEMP_0"))`,
				`(literal "/dev/null")`,
				"(deny file-write*\n  (subpath (param \"PROTECTED_0\"))\n  (literal (param \"PINNED_0\"))\n)",
				"(deny network*)",
			},
			hasNot: []string{"/Users/me", "we\"ird"},
		},
		{
			name:    "network allowed",
			network: true,
			has: []string{
				`(subpath (param "WRITABLE_0"))`,
				"(deny network-outbound (remote unix-socket))\n" +
					`(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))`,
			},
			hasNot: []string{"(deny network*)", "/Users/me"},
		},
		{
			name:        "no network, Unix sockets allowed",
			unixSockets: true,
			has:         []string{"(deny network*)\n(allow network* (local unix-socket) (remote unix-socket))"},
		},
		{
			name:        "network and Unix sockets allowed",
			network:     true,
			unixSockets: true,
			hasNot:      []string{"network"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := in
			in.network, in.unixSockets = tt.network, tt.unixSockets
			sb := darwinProfile(in)
			for _, s := range tt.has {
				if !strings.Contains(sb.profile, s) {
					t.Errorf("profile lacks %q:\n%s", s, sb.profile)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(sb.profile, s) {
					t.Errorf("profile has %q:\n%s", s, sb.profile)
				}
			}
			want := []string{
				"WRITABLE_0=/Users/me/proj",
				`WRITABLE_1=/Users/me/we"ird) (allow default`,
				"TEMP_0=/private/tmp",
				"PROTECTED_0=/Users/me/proj/.git/hooks",
				"PINNED_0=/Users/me/proj/.git",
			}
			if !slices.Equal(sb.params, want) {
				t.Errorf("params = %q, want %q", sb.params, want)
			}
			// The protected paths must be denied after the writable
			// directories are allowed: in SBPL the last match wins.
			if a, d := strings.Index(sb.profile, "WRITABLE_0"), strings.Index(sb.profile, "PROTECTED_0"); a > d {
				t.Errorf("protected paths denied before writable ones are allowed:\n%s", sb.profile)
			}
			if strings.Count(sb.profile, "(") != strings.Count(sb.profile, ")") {
				t.Errorf("unbalanced parentheses:\n%s", sb.profile)
			}
		})
	}
}

func TestSandboxExecWrap(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	sub := mkdir(t, ws, "sub")
	probed := &Report{Backend: BackendSandboxExec, Path: "/usr/bin/sandbox-exec", Works: true, NetworkIsolation: true, UnixSocketFilter: true}
	sb, err := New(Config{Workspace: ws, Home: mkdir(t, root, "home"), Probed: probed})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := sb.resolveWorkdir("sub")
	if err != nil {
		t.Fatal(err)
	}
	argv := sandboxExecArgv(sb, []string{"go", "test", "./..."}, dir, 0)
	if argv[0] != "/usr/bin/sandbox-exec" || argv[1] != "-p" || !strings.HasPrefix(argv[2], "(version 1)") {
		t.Fatalf("argv head = %q", argv[:3])
	}
	if indexPair(argv, "-D", "WRITABLE_0="+ws) < 0 {
		t.Errorf("no -D WRITABLE_0=%s in %q", ws, argv)
	}
	params := map[string]bool{}
	for i := range argv {
		if argv[i] == "-D" && strings.HasPrefix(argv[i+1], "PROTECTED_") {
			_, v, _ := strings.Cut(argv[i+1], "=")
			params[v] = true
		}
	}
	// Seatbelt matches paths: every path that runs later is denied,
	// existing or not, .github whole while it is missing.
	for _, e := range permission.RunsLater() {
		name, _, _ := strings.Cut(e.Rel, "/")
		if !params[filepath.Join(ws, name)] {
			t.Errorf("no -D PROTECTED for %s in %q", name, argv)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, ".vscode")); err == nil {
		t.Error("sandbox-exec left a placeholder: it needs none")
	}
	if indexPair(argv, "-D", "PINNED_0="+ws+"/.git") < 0 {
		t.Errorf("no -D pinning .git in %q", argv)
	}
	sep := slices.Index(argv, "--")
	tail := argv[sep+1:]
	want := []string{"/bin/sh", "-c", `cd -- "$1" || exit 126; shift; exec "$@"`, "nova-sandbox", sub, "go", "test", "./..."}
	if !slices.Equal(tail, want) {
		t.Errorf("after --: %q, want %q", tail, want)
	}
	if !strings.Contains(argv[2], "(deny network*)") {
		t.Errorf("network not denied:\n%s", argv[2])
	}
}

// TestSandboxExecProtects checks what the macOS profile is given beyond the
// writable directories: every git path the plan names (missing or not, since
// Seatbelt matches paths), the pins, the masks, and the Unix socket rule.
func TestSandboxExecProtects(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, root, "ws")
	mkdir(t, ws, ".git", "modules", "x", "objects")
	writeFile(t, filepath.Join(ws, ".git", "modules", "x", "HEAD"), "ref: refs/heads/main\n")
	mkdir(t, root, "elsewhere")
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(home, ".kube")); err != nil {
		t.Fatal(err)
	}
	for _, network := range []bool{false, true} {
		probed := &Report{Backend: BackendSandboxExec, Path: "/usr/bin/sandbox-exec", Works: true, NetworkIsolation: true, UnixSocketFilter: true}
		sb, err := New(Config{Workspace: ws, Home: home, NovaHome: filepath.Join(home, ".nova"), Network: network,
			Mask: []string{"/Volumes/keys"}, Probed: probed})
		if err != nil {
			t.Fatal(err)
		}
		argv := sandboxExecArgv(sb, []string{"true"}, ws, 0)
		params := map[string]bool{}
		for i := range argv {
			if argv[i] == "-D" {
				_, v, _ := strings.Cut(argv[i+1], "=")
				params[v] = true
			}
		}
		for _, want := range []string{
			filepath.Join(ws, ".git", "commondir"),
			filepath.Join(ws, ".git", "modules", "x", "hooks"),
			filepath.Join(ws, ".git", "modules", "x", "commondir"),
			filepath.Join(ws, ".git", "modules", "x", "config"),
			filepath.Join(ws, ".git", "modules"),
			filepath.Join(home, ".ssh"),
			filepath.Join(home, ".kube"),
			filepath.Join(root, "elsewhere"), // the target of the ~/.kube link
			filepath.Join(home, ".nova", "config.json"),
			"/Volumes/keys",
		} {
			if !params[want] {
				t.Errorf("network=%v: no parameter for %s", network, want)
			}
		}
		profile := argv[2]
		if !strings.Contains(profile, `(deny file-read* file-write*`) || !strings.Contains(profile, `(param "MASKED_0")`) {
			t.Errorf("masks not denied:\n%s", profile)
		}
		if network && !strings.Contains(profile, "(deny network-outbound (remote unix-socket))") {
			t.Errorf("Unix sockets open with the network allowed:\n%s", profile)
		}
	}
}
