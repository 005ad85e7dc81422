//go:build !linux

package main

// closeInheritedFDs does nothing outside Linux: sandbox-exec has no seccomp
// filter for an inherited descriptor to slip past.
func closeInheritedFDs() {}
