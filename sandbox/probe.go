package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
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

// ProbeVersion changes whenever Probe starts testing something new (2: the
// Unix socket filter and the empty-file binds). A Report kept from a
// Probe of another version must not be trusted: it lacks the new verdicts.
const ProbeVersion = 2

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
	// UnixSocketFilter says Unix sockets can be closed: on Linux a trial
	// run with the seccomp filter loaded succeeded; on macOS it is part of
	// the profile the trial ran.
	UnixSocketFilter bool `json:"unix_socket_filter"`
	// Reason says, for a person, why Works, NetworkIsolation or
	// UnixSocketFilter is false and what to do about it; empty when all
	// are true.
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
	b.WriteString("\n  unix socket filter: " + okOr(r.UnixSocketFilter, "unavailable"))
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
	filter, filterErr := seccompFilter(runtime.GOARCH)

	// Try the full sandbox first; only if that fails, take away the filter
	// and the network namespace in turn, to tell "no sandbox" from the
	// pieces that are missing.
	full := trialBwrap(ctx, path, false, filter)
	if full == nil {
		r.Works, r.NetworkIsolation, r.UnixSocketFilter = true, true, filter != nil
		if filter == nil {
			r.Reason = filterErr.Error()
		}
		return r
	}
	if filter != nil && trialBwrap(ctx, path, false, nil) == nil {
		r.Works, r.NetworkIsolation = true, true
		r.Reason = "the Unix socket filter cannot be applied: " + bwrapReason(full)
		return r
	}
	netReason := "network namespaces unavailable: " + bwrapReason(full)
	if trialBwrap(ctx, path, true, filter) == nil {
		r.Works, r.UnixSocketFilter = true, filter != nil
		r.Reason = netReason
		if filter == nil {
			r.Reason += "; " + filterErr.Error()
		}
		return r
	}
	if filter != nil && trialBwrap(ctx, path, true, nil) == nil {
		r.Works = true
		r.Reason = netReason + "; the Unix socket filter cannot be applied either"
		return r
	}
	r.Reason = bwrapReason(full)
	return r
}

// trialBwrap runs `true` in bwrap the way a command runs, with the filter
// when it is not nil.
func trialBwrap(ctx context.Context, path string, network bool, filter []byte) error {
	empty, err := pipeWith(nil)
	if err != nil {
		return err
	}
	defer empty.Close()
	files := []*os.File{empty}
	seccompFD := -1
	if filter != nil {
		f, err := pipeWith(filter)
		if err != nil {
			return err
		}
		defer f.Close()
		files = append(files, f)
		seccompFD = 4
	}
	return trial(ctx, path, bwrapTrialArgs(network, 3, seccompFD), files...)
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
	// rejects must show up here, not on the first command. Both trial
	// profiles close Unix sockets (the one with the network allowed by its
	// own rule), so a profile that runs has the filter.
	full := trial(ctx, path, seatbeltTrialArgs(false))
	if full == nil {
		r.Works, r.NetworkIsolation, r.UnixSocketFilter = true, true, true
		return r
	}
	if trial(ctx, path, seatbeltTrialArgs(true)) == nil {
		r.Works, r.UnixSocketFilter = true, true
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

// trial runs bin with args (and extra as descriptors 3, 4, ...) under
// trialTimeout and reports why it failed.
func trial(ctx context.Context, bin string, args []string, extra ...*os.File) error {
	ctx, cancel := context.WithTimeout(ctx, trialTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.ExtraFiles = extra
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
	case strings.Contains(low, "unknown option"):
		return "this bwrap is too old for nova: " + msg + "; install bubblewrap 0.5 or later"
	case strings.Contains(low, "seccomp"):
		return "the kernel refused the seccomp filter: " + msg + "; a kernel without CONFIG_SECCOMP_FILTER, " +
			"or a container policy that forbids seccomp, cannot close Unix sockets"
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
