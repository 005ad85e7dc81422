//go:build unix

package tools

import (
	"io"
	"os"
	"syscall"
)

// grepOpen opens path for the built-in search with plain system calls: an
// *os.File would also register the descriptor with the poller, query its
// flags and set a finalizer, which cost a fifth of a search over many small
// files. O_NONBLOCK keeps a FIFO from blocking the open; only regular files
// are read.
func grepOpen(path string) (f grepHandle, size int64, regular bool, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, 0, false, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return 0, 0, false, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return grepHandle(fd), st.Size, st.Mode&syscall.S_IFMT == syscall.S_IFREG, nil
}

// grepHandle is a file descriptor open for the built-in search.
type grepHandle int

func (fd grepHandle) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (fd grepHandle) Close() error { return syscall.Close(int(fd)) }
