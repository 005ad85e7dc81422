package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"

	"github.com/nova-dev/nova/atomicfile"
)

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
	// Probe is what the probe tests (ProbeVersion): a report of an
	// older probe lacks what a newer one checks.
	Probe int `json:"probe"`
}

type probeCache struct {
	Key    probeKey `json:"key"`
	Report Report   `json:"report"`
}

// ProbeCached returns what Probe says of this machine. A probe runs the
// backend for real (a few milliseconds on every start), so one that
// worked is kept in cacheFile and reused while its key (the backend
// binary, the kernel, the uid, the user-namespace switches, ProbeVersion)
// holds. A failure is never kept: fixing the machine takes effect at the
// next start. fresh probes whatever the cache holds (nova doctor).
func ProbeCached(ctx context.Context, cacheFile string, fresh bool) Report {
	key, keyed := currentProbeKey()
	path := cacheFile
	if keyed && !fresh {
		if data, err := os.ReadFile(path); err == nil {
			var c probeCache
			if json.Unmarshal(data, &c) == nil && c.Key == key && c.Report.Works {
				return c.Report
			}
		}
	}
	r := Probe(ctx)
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
	k := probeKey{OS: goruntime.GOOS, Path: path, Size: st.Size(), ModTime: st.ModTime().UnixNano(), Kernel: kernelRelease(), UID: os.Getuid(), Probe: ProbeVersion}
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
