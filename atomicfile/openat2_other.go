//go:build unix && !linux

package atomicfile

import "golang.org/x/sys/unix"

// dirFlags open a directory to name things in it.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// Resolve flags, unused where there is no openat2.
const (
	resolveBeneath    = 0
	resolveNoSymlinks = 0
)

// openat2 is Linux's; elsewhere callers walk the path themselves.
func openat2(dirfd int, rel string, resolve uint64) (int, error) {
	return -1, unix.ENOSYS
}
