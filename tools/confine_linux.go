package tools

import (
	"os"
	"strconv"
)

// fdPath is the path of the file f holds, as the kernel knows it: where
// the open really landed, whatever links led there.
func fdPath(f *os.File) string {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return ""
	}
	return p
}

// fdNumPath is fdPath for a raw descriptor.
func fdNumPath(fd int) string {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return ""
	}
	return p
}

// dirOfFD is a path that names the directory f holds for a child process
// started before f is closed (it inherits the descriptor across fork):
// the child's working directory is then that directory, whatever the path
// that led to it has become.
func dirOfFD(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }
