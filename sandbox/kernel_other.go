//go:build !darwin

package sandbox

import (
	"os"
	"strings"
)

// kernelRelease is the running kernel's release, part of the sandbox
// probe's cache key; "" where /proc does not say.
func kernelRelease() string {
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(string(b))
}
