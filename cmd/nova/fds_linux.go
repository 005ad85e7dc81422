package main

import "golang.org/x/sys/unix"

// closeInheritedFDs marks every descriptor nova was started with, past the
// standard three, close-on-exec. Go opens its own that way, but one
// inherited from the parent (a connected socket, a terminal) would
// otherwise pass through bwrap into sandboxed commands, past the seccomp
// filter that keeps them from opening Unix sockets of their own.
func closeInheritedFDs() {
	_ = unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) // an old kernel without it keeps the old behaviour
}
