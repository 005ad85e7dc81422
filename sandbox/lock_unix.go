//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// oNoFollow makes an open fail on a symbolic link rather than follow it.
const oNoFollow = syscall.O_NOFOLLOW

// oDirectory makes an open fail on anything but a directory.
const oDirectory = syscall.O_DIRECTORY

// lockFile takes a shared, or with exclusive an exclusive, flock(2) on f
// without waiting.
func lockFile(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
