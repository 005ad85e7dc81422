package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestProbeWithoutBinary(t *testing.T) {
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
	tests := []struct {
		r    Report
		want []string
	}{
		{Report{Backend: BackendBwrap, Path: "/usr/bin/bwrap", Works: true, NetworkIsolation: true},
			[]string{"sandbox: bwrap (/usr/bin/bwrap)", "trial run: ok", "network isolation: ok"}},
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
