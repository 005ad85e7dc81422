package sandbox

import "syscall"

// kernelRelease is the running kernel's release, part of the sandbox
// probe's cache key.
func kernelRelease() string {
	s, _ := syscall.Sysctl("kern.osrelease")
	return s
}
