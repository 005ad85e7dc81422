package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Backend names, as they appear in Report.Backend.
const (
	BackendBwrap       = "bwrap"
	BackendSandboxExec = "sandbox-exec"
	BackendNone        = "none"
)

// trialTimeout bounds each trial run; starting `true` in a sandbox takes
// milliseconds, so a run this slow means something is wrong.
const trialTimeout = 5 * time.Second

// Report is what Probe found out about this machine.
type Report struct {
	// Backend is "bwrap", "sandbox-exec" or "none".
	Backend string `json:"backend"`
	// Path is the backend's binary; empty when it was not found.
	Path string `json:"path,omitempty"`
	// Works says a real trial run (`true` inside the sandbox) succeeded.
	Works bool `json:"works"`
	// NetworkIsolation says a trial run with the network cut succeeded.
	NetworkIsolation bool `json:"network_isolation"`
	// Reason says, for a person, why Works or NetworkIsolation is false
	// and what to do about it; empty when both are true.
	Reason string `json:"reason,omitempty"`
}

// String renders the report for `nova doctor`.
func (r Report) String() string {
	var b strings.Builder
	switch {
	case r.Path == "":
		fmt.Fprintf(&b, "sandbox: %s", r.Backend)
	default:
		fmt.Fprintf(&b, "sandbox: %s (%s)", r.Backend, r.Path)
	}
	b.WriteString("\n  trial run: " + okOr(r.Works, "failed"))
	b.WriteString("\n  network isolation: " + okOr(r.NetworkIsolation, "unavailable"))
	if r.Reason != "" {
		b.WriteString("\n  reason: " + r.Reason)
	}
	return b.String()
}

func okOr(ok bool, not string) string {
	if ok {
		return "ok"
	}
	return not
}

// Probe finds the sandbox backend of this machine and tries it for real.
// It never fails: what went wrong is in the Report's Reason.
func Probe(ctx context.Context) Report {
	return probe(ctx, runtime.GOOS, exec.LookPath)
}

// probe is Probe with the OS and the binary lookup passed in, so tests can
// take the paths a real machine does not.
func probe(ctx context.Context, goos string, lookPath func(string) (string, error)) Report {
	switch goos {
	case "linux":
		return probeBwrap(ctx, lookPath)
	case "darwin":
		return probeSandboxExec(ctx, lookPath)
	}
	return Report{Backend: BackendNone, Reason: "no OS sandbox is supported on " + goos}
}

func probeBwrap(ctx context.Context, lookPath func(string) (string, error)) Report {
	r := Report{Backend: BackendBwrap}
	path, err := lookPath("bwrap")
	if err != nil {
		r.Reason = "bwrap not found: install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)"
		return r
	}
	r.Path = path

	// Try the full sandbox first; only if that fails, try without the
	// network namespace, to tell "no sandbox" from "no network isolation".
	full := trial(ctx, path, bwrapTrialArgs(false))
	if full == nil {
		r.Works, r.NetworkIsolation = true, true
		return r
	}
	if trial(ctx, path, bwrapTrialArgs(true)) == nil {
		r.Works = true
		r.Reason = "network namespaces unavailable: " + bwrapReason(full)
		return r
	}
	r.Reason = bwrapReason(full)
	return r
}

func probeSandboxExec(ctx context.Context, lookPath func(string) (string, error)) Report {
	r := Report{Backend: BackendSandboxExec}
	path, err := lookPath("sandbox-exec")
	if err != nil {
		r.Reason = "sandbox-exec not found: it ships with macOS in /usr/bin; check PATH"
		return r
	}
	r.Path = path
	// The generated profile is tried for real: a profile the running macOS
	// rejects must show up here, not on the first command.
	full := trial(ctx, path, seatbeltTrialArgs(false))
	if full == nil {
		r.Works, r.NetworkIsolation = true, true
		return r
	}
	if trial(ctx, path, seatbeltTrialArgs(true)) == nil {
		r.Works = true
		r.Reason = "the no-network profile failed: " + full.Error()
		return r
	}
	r.Reason = "sandbox-exec trial run failed: " + full.Error()
	return r
}

// seatbeltTrialArgs is the command line Probe tries with sandbox-exec.
func seatbeltTrialArgs(network bool) []string {
	sb := darwinProfile(seatbeltInput{tempDirs: []string{"/private/tmp"}, network: network})
	args := []string{"-p", sb.profile}
	for _, p := range sb.params {
		args = append(args, "-D", p)
	}
	return append(args, "--", "/usr/bin/true")
}

// trialError is a failed trial run with what the backend said.
type trialError struct {
	stderr  string
	err     error
	timeout bool
}

func (e *trialError) Error() string {
	switch {
	case e.timeout:
		return fmt.Sprintf("trial run timed out after %s", trialTimeout)
	case e.stderr != "":
		return fmt.Sprintf("%s (%v)", e.stderr, e.err)
	}
	return e.err.Error()
}

func (e *trialError) Unwrap() error { return e.err }

// trial runs bin with args under trialTimeout and reports why it failed.
func trial(ctx context.Context, bin string, args []string) error {
	ctx, cancel := context.WithTimeout(ctx, trialTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// If the sandbox leaves a child holding stderr open, Wait must not
	// hang past the timeout.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return nil
	}
	return &trialError{
		stderr:  strings.TrimSpace(stderr.String()),
		err:     err,
		timeout: errors.Is(ctx.Err(), context.DeadlineExceeded),
	}
}

// bwrapReason turns a failed bwrap trial into a reason a person can act on.
// bwrap's own words are kept; the hint names the usual cause and the fix.
func bwrapReason(err error) string {
	msg := err.Error()
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "timed out"):
		return "bwrap " + msg
	case strings.Contains(low, "uid map"), strings.Contains(low, "new namespace"),
		strings.Contains(low, "unshare"), strings.Contains(low, "user namespace"):
		return "user namespaces disabled: " + msg + "; enable them (sysctl kernel.unprivileged_userns_clone=1 on Debian; " +
			"sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap on Ubuntu 24.04+; " +
			"in Docker, run with --security-opt seccomp=unconfined --security-opt apparmor=unconfined or --privileged)"
	case strings.Contains(low, "mount proc"), strings.Contains(low, "/proc"):
		return "cannot mount /proc in the sandbox: " + msg + "; in a container, /proc is partly masked: " +
			"run it with --security-opt systempaths=unconfined or --privileged"
	case strings.Contains(low, "operation not permitted"), strings.Contains(low, "permission denied"):
		return "bwrap is not permitted to sandbox here: " + msg + "; check user namespaces " +
			"(sysctl user.max_user_namespaces) and any seccomp or AppArmor policy around nova"
	}
	return "bwrap trial run failed: " + msg
}
