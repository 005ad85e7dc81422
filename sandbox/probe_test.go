package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestProbeWithoutBinary(t *testing.T) {
	t.Parallel()
	notFound := func(string) (string, error) { return "", exec.ErrNotFound }
	tests := []struct {
		goos, backend, reason string
	}{
		{"linux", BackendBwrap, "bwrap not found: install bubblewrap (apt-get install bubblewrap"},
		{"darwin", BackendSandboxExec, "sandbox-exec not found"},
		{"windows", BackendNone, "no OS sandbox is supported on windows"},
	}
	for _, tt := range tests {
		t.Run(tt.goos, func(t *testing.T) {
			r := probe(context.Background(), tt.goos, notFound)
			if r.Backend != tt.backend || r.Works || r.NetworkIsolation || r.Path != "" {
				t.Errorf("report = %+v", r)
			}
			if !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("reason %q lacks %q", r.Reason, tt.reason)
			}
		})
	}
}

func TestProbeFailingBinary(t *testing.T) {
	t.Parallel()
	// `false` stands in for a bwrap that cannot create its namespaces.
	bin, err := exec.LookPath("false")
	if err != nil {
		t.Skip("no false binary")
	}
	r := probe(context.Background(), "linux", func(string) (string, error) { return bin, nil })
	if r.Works || r.NetworkIsolation || r.Path != bin || !strings.Contains(r.Reason, "bwrap trial run failed") {
		t.Errorf("report = %+v", r)
	}
}

func TestBwrapReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		stderr, want string
	}{
		{"bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.", "user namespaces disabled: "},
		{"bwrap: setting up uid map: Permission denied", "user namespaces disabled: "},
		{"bwrap: Creating new namespace failed: Operation not permitted", "user namespaces disabled: "},
		{"bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "cannot mount /proc"},
		{"bwrap: Failed to make / slave: Permission denied", "bwrap is not permitted to sandbox here"},
		{"bwrap: something else", "bwrap trial run failed: bwrap: something else"},
	}
	for _, tt := range tests {
		got := bwrapReason(&trialError{stderr: tt.stderr, err: errors.New("exit status 1")})
		if !strings.HasPrefix(got, tt.want) || !strings.Contains(got, tt.stderr) {
			t.Errorf("bwrapReason(%q) = %q, want prefix %q and bwrap's words", tt.stderr, got, tt.want)
		}
	}
	if got := bwrapReason(&trialError{timeout: true, err: context.DeadlineExceeded}); !strings.Contains(got, "timed out") {
		t.Errorf("timeout reason = %q", got)
	}
}

func TestReportString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    Report
		want []string
	}{
		{Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true, NetworkIsolation: true},
			[]string{"sandbox: bwrap (/usr/bin/bwrap)", "trial run: ok", "network isolation: ok", "unix socket filter: unavailable"}},
		{Report{Backend: BackendBwrap, Reason: "bwrap not found: install bubblewrap"},
			[]string{"sandbox: bwrap\n", "trial run: failed", "network isolation: unavailable", "reason: bwrap not found"}},
	}
	for _, tt := range tests {
		s := tt.r.String()
		for _, w := range tt.want {
			if !strings.Contains(s, w) {
				t.Errorf("String() = %q, lacks %q", s, w)
			}
		}
	}
}

// fakeBwrapScript writes a stand-in for bwrap that fails with message
// when its arguments contain trigger, and succeeds otherwise.
func fakeBwrapScript(t *testing.T, trigger, message string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\ncase \" $* \" in *\" " + trigger + " \"*) echo '" + message + "' >&2; exit 1;; esac\nexit 0\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProbePartialBwrap(t *testing.T) {
	t.Parallel()
	if _, ok := seccompABIFor(runtime.GOARCH); !ok {
		t.Skipf("no filter on %s", runtime.GOARCH)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	tests := []struct {
		name, trigger, message string
		want                   Report
		reason                 []string
	}{
		{
			name: "filter refused", trigger: "--seccomp", message: "bwrap: prctl(PR_SET_SECCOMP): Invalid argument",
			want:   Report{Works: true, NetworkIsolation: true},
			reason: []string{"Unix socket filter cannot be applied", "PR_SET_SECCOMP"},
		},
		{
			name: "no network namespace", trigger: "--unshare-net", message: "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted",
			want:   Report{Works: true, UnixSocketFilter: true},
			reason: []string{"network namespaces unavailable", "RTM_NEWADDR"},
		},
		{
			name: "old bwrap", trigger: "--ro-bind-data", message: "bwrap: Unknown option --ro-bind-data",
			want:   Report{},
			reason: []string{"too old", "bubblewrap 0.5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := fakeBwrapScript(t, tt.trigger, tt.message)
			r := probe(context.Background(), "linux", func(string) (string, error) { return bin, nil })
			if r.Works != tt.want.Works || r.NetworkIsolation != tt.want.NetworkIsolation || r.UnixSocketFilter != tt.want.UnixSocketFilter {
				t.Errorf("report = %+v, want works %v network %v filter %v", r, tt.want.Works, tt.want.NetworkIsolation, tt.want.UnixSocketFilter)
			}
			for _, s := range tt.reason {
				if !strings.Contains(r.Reason, s) {
					t.Errorf("reason %q lacks %q", r.Reason, s)
				}
			}
		})
	}
}
