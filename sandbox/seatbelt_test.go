package sandbox

import (
	"slices"
	"strings"
	"testing"
)

func TestDarwinProfile(t *testing.T) {
	in := seatbeltInput{
		writable:  []string{"/Users/me/proj", `/Users/me/we"ird) (allow default`},
		tempDirs:  []string{"/private/tmp"},
		protected: []string{"/Users/me/proj/.git/hooks"},
		pinned:    []string{"/Users/me/proj/.git"},
	}
	tests := []struct {
		name    string
		network bool
		has     []string
		hasNot  []string
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
			has:     []string{`(subpath (param "WRITABLE_0"))`},
			hasNot:  []string{"network", "/Users/me"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := in
			in.network = tt.network
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
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	sub := mkdir(t, ws, "sub")
	probed := &Report{Backend: BackendSandboxExec, Path: "/usr/bin/sandbox-exec", Works: true, NetworkIsolation: true}
	sb, err := New(Config{Workspace: ws, Home: mkdir(t, root, "home"), Probed: probed})
	if err != nil {
		t.Fatal(err)
	}
	argv, err := sb.Wrap([]string{"go", "test", "./..."}, "sub")
	if err != nil {
		t.Fatal(err)
	}
	if argv[0] != "/usr/bin/sandbox-exec" || argv[1] != "-p" || !strings.HasPrefix(argv[2], "(version 1)") {
		t.Fatalf("argv head = %q", argv[:3])
	}
	if indexPair(argv, "-D", "WRITABLE_0="+ws) < 0 {
		t.Errorf("no -D WRITABLE_0=%s in %q", ws, argv)
	}
	if indexPair(argv, "-D", "PROTECTED_2="+ws+"/.nova") < 0 {
		t.Errorf("no -D for .nova in %q", argv)
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
