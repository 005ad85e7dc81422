//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// helperEnv selects a helper mode: the test binary, copied into a
// workspace (the private /tmp hides the go build cache), plays a client
// inside the sandbox.
const helperEnv = "NOVA_SANDBOX_TEST_HELPER"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == BridgeArg {
		os.Exit(BridgeMain(os.Args[2:]))
	}
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// helper runs one helper mode and returns the exit code.
func helper(mode string, args []string) int {
	switch mode {
	case "connect": // connect PATH TOKEN: send TOKEN over a Unix stream socket
		c, err := net.Dial("unix", args[0])
		if err != nil {
			fmt.Println("connect:", err)
			return 1
		}
		defer c.Close()
		if _, err := io.WriteString(c, args[1]); err != nil {
			fmt.Println("write:", err)
			return 1
		}
		fmt.Println("sent")
		return 0
	case "dgram": // dgram PATH TOKEN: send TOKEN from one end of a datagram socketpair
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM, 0)
		if err != nil {
			fmt.Println("socketpair:", err)
			return 1
		}
		if err := syscall.Sendto(fds[0], []byte(args[1]), 0, &syscall.SockaddrUnix{Name: args[0]}); err != nil {
			fmt.Println("sendto:", err)
			return 1
		}
		fmt.Println("sent")
		return 0
	case "syscalls": // the outcome of each system call the filter looks at
		for _, c := range helperCalls() {
			fmt.Printf("%s=%s\n", c.name, errnoName(c.call()))
		}
		return 0
	}
	fmt.Println("unknown helper mode", mode)
	return 2
}

type helperCall struct {
	name string
	call func() syscall.Errno
}

func helperCalls() []helperCall {
	abi, _ := seccompABIFor(runtime.GOARCH)
	raw := func(nr uint32, a ...uintptr) func() syscall.Errno {
		return func() syscall.Errno {
			args := append(a, 0, 0, 0)
			r, _, e := syscall.RawSyscall(uintptr(nr), args[0], args[1], args[2])
			if e == 0 {
				syscall.Close(int(r))
			}
			return e
		}
	}
	pair := func(typ int) func() syscall.Errno {
		return func() syscall.Errno {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, typ, 0)
			if err != nil {
				return err.(syscall.Errno)
			}
			syscall.Close(fds[0])
			syscall.Close(fds[1])
			return 0
		}
	}
	var params [120]byte // struct io_uring_params
	calls := []helperCall{
		{"socket_unix", raw(abi.socket, syscall.AF_UNIX, syscall.SOCK_STREAM)},
		{"socket_unix_dgram_cloexec", raw(abi.socket, syscall.AF_UNIX, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC)},
		// High bits set: the kernel reads an int, so must the filter.
		{"socket_unix_high_bits", raw(abi.socket, 1<<32|syscall.AF_UNIX, syscall.SOCK_STREAM)},
		{"socket_inet", raw(abi.socket, syscall.AF_INET, syscall.SOCK_STREAM)},
		{"socketpair_stream", pair(syscall.SOCK_STREAM)},
		{"socketpair_seqpacket", pair(syscall.SOCK_SEQPACKET)},
		{"socketpair_dgram", pair(syscall.SOCK_DGRAM)},
		{"io_uring_setup", raw(abi.ioURing[0], 1, uintptr(unsafe.Pointer(&params)))},
	}
	if abi.x32Bit != 0 {
		calls = append(calls, helperCall{"x32_socket_inet", raw(abi.x32Bit|abi.socket, syscall.AF_INET, syscall.SOCK_STREAM)})
	}
	return calls
}

func errnoName(e syscall.Errno) string {
	switch e {
	case 0:
		return "ok"
	case syscall.EPERM:
		return "EPERM"
	case syscall.ENOSYS:
		return "ENOSYS"
	}
	return fmt.Sprintf("errno%d", int(e))
}

// helperBinary copies the test binary into dir and returns its path and
// the environment that selects mode.
func helperBinary(t *testing.T, dir, mode string) (string, []string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "nova-sandbox-helper")
	// GORACE: a race-enabled binary otherwise sleeps a second at exit.
	env := append(os.Environ(), helperEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	if os.Link(self, path) == nil {
		return path, env // the race-enabled binary is large: link it when the filesystem allows
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path, env
}
