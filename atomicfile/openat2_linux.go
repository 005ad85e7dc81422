package atomicfile

import "golang.org/x/sys/unix"

// dirFlags open a directory only to name things in it: O_PATH needs no
// read permission on it, as a lookup by path needs none.
const dirFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// How openat2 may resolve a path: staying below the directory it starts
// from, or crossing no link at all; /proc's magic links never.
const (
	resolveBeneath    = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS
	resolveNoSymlinks = unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS
)

// openat2 opens the directory rel under dirfd, resolving it as resolve
// says. It fails with ENOSYS before Linux 5.6 (or where a seccomp filter
// hides the call); callers then walk the path themselves.
func openat2(dirfd int, rel string, resolve uint64) (int, error) {
	return unix.Openat2(dirfd, rel, &unix.OpenHow{Flags: uint64(dirFlags), Resolve: resolve})
}
