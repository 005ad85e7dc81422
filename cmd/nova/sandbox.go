package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/sandbox"
)

// sandboxChoice is how the sandbox of a run was decided.
type sandboxChoice int

const (
	sandboxByDefault    sandboxChoice = iota // sandbox.enabled unset: on where it works
	sandboxBySetting                         // "enabled": true
	sandboxByFlag                            // --sandbox
	sandboxOffBySetting                      // "enabled": false
	sandboxOffByFlag                         // --no-sandbox
)

// chooseSandbox applies the flags over the settings.
func chooseSandbox(st *config.Settings, o buildOptions) sandboxChoice {
	switch e := st.Sandbox.Enabled; {
	case o.noSandbox:
		return sandboxOffByFlag
	case o.sandbox:
		return sandboxByFlag
	case e == nil:
		return sandboxByDefault
	case *e:
		return sandboxBySetting
	}
	return sandboxOffBySetting
}

// on reports whether the sandbox is wanted.
func (c sandboxChoice) on() bool { return c <= sandboxByFlag }

// explicit reports whether the person asked for the sandbox: then, where
// it cannot run, Bash asks rather than running without it.
func (c sandboxChoice) explicit() bool { return c == sandboxBySetting || c == sandboxByFlag }

// probeCacheFile is where a probe that worked is remembered.
func probeCacheFile(novaHome string) string {
	return filepath.Join(novaHome, "cache", "sandbox-probe.json")
}

// probeKey is what decides a probe's outcome: when none of it changed,
// the sandbox that worked before works now.
type probeKey struct {
	OS      string `json:"os"`
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Kernel  string `json:"kernel"`
	UID     int    `json:"uid"`
	// Sysctls are the kernel switches for unprivileged user namespaces.
	Sysctls string `json:"sysctls,omitempty"`
	// Probe is what the probe tests (sandbox.ProbeVersion): a report of an
	// older probe lacks what a newer one checks.
	Probe int `json:"probe"`
}

type probeCache struct {
	Key    probeKey       `json:"key"`
	Report sandbox.Report `json:"report"`
}

// probeSandbox returns what sandbox.Probe says of this machine. A probe
// runs the backend for real (a few milliseconds on every start), so one
// that worked is kept in NOVA_HOME and reused while its key holds. A
// failure is never kept: fixing the machine takes effect at the next
// start. fresh probes whatever the cache holds (nova doctor).
func probeSandbox(ctx context.Context, novaHome string, fresh bool) sandbox.Report {
	key, keyed := currentProbeKey()
	path := probeCacheFile(novaHome)
	if keyed && !fresh {
		if data, err := os.ReadFile(path); err == nil {
			var c probeCache
			if json.Unmarshal(data, &c) == nil && c.Key == key && c.Report.Works {
				return c.Report
			}
		}
	}
	r := sandbox.Probe(ctx)
	switch {
	case !keyed:
	case r.Works && r.Path == key.Path:
		if data, err := json.Marshal(probeCache{Key: key, Report: r}); err == nil && os.MkdirAll(filepath.Dir(path), 0o700) == nil {
			_ = atomicfile.Write(path, data, 0o600)
		}
	default:
		_ = os.Remove(path)
	}
	return r
}

// currentProbeKey finds the backend the way sandbox.Probe does; false
// when there is none to key on (nothing then is cached).
func currentProbeKey() (probeKey, bool) {
	var bin string
	switch goruntime.GOOS {
	case "linux":
		bin = "bwrap"
	case "darwin":
		bin = "sandbox-exec"
	default:
		return probeKey{}, false
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return probeKey{}, false
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	st, err := os.Stat(path)
	if err != nil {
		return probeKey{}, false
	}
	k := probeKey{OS: goruntime.GOOS, Path: path, Size: st.Size(), ModTime: st.ModTime().UnixNano(), Kernel: kernelRelease(), UID: os.Getuid(), Probe: sandbox.ProbeVersion}
	var sys []string
	for _, f := range []string{"/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns"} {
		if b, err := os.ReadFile(f); err == nil {
			sys = append(sys, filepath.Base(f)+"="+strings.TrimSpace(string(b)))
		}
	}
	k.Sysctls = strings.Join(sys, " ")
	return k, true
}
