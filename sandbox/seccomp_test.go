//go:build linux

package sandbox

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/net/bpf"
)

// seccompData is a synthetic struct seccomp_data for the BPF VM. The VM
// loads words big-endian (it was made for packets) while the kernel loads
// them in native order, so each 32-bit word is stored big-endian here: the
// filter then sees the values the kernel would show it.
func seccompData(nr, arch uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[seccompDataNr:], nr)
	binary.BigEndian.PutUint32(b[seccompDataArch:], arch)
	for i, a := range args {
		off := seccompDataArg0 + 8*i
		binary.BigEndian.PutUint32(b[off:], uint32(a))       // low half first, as on a little-endian machine
		binary.BigEndian.PutUint32(b[off+4:], uint32(a>>32)) // then the high half
	}
	return b
}

func TestSeccompFilterVM(t *testing.T) {
	t.Parallel()
	const (
		allow  = seccompRetAllow
		eperm  = seccompRetErrno | errnoEPERM
		enosys = seccompRetErrno | errnoENOSYS
	)
	for _, goarch := range []string{"amd64", "arm64"} {
		t.Run(goarch, func(t *testing.T) {
			abi, ok := seccompABIFor(goarch)
			if !ok {
				t.Fatal("no ABI")
			}
			ins, err := seccompInstructions(abi)
			if err != nil {
				t.Fatal(err)
			}
			vm, err := bpf.NewVM(ins)
			if err != nil {
				t.Fatal(err)
			}
			native := abi.auditArch
			tests := []struct {
				name string
				data []byte
				want uint32
			}{
				{"socket AF_UNIX", seccompData(abi.socket, native, afUnix, syscall.SOCK_STREAM), eperm},
				{"socket AF_UNIX dgram with flags", seccompData(abi.socket, native, afUnix, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK), eperm},
				{"socket AF_UNIX with high bits", seccompData(abi.socket, native, 1<<32|afUnix, syscall.SOCK_STREAM), eperm},
				{"socket AF_INET", seccompData(abi.socket, native, syscall.AF_INET, syscall.SOCK_STREAM), allow},
				{"socket AF_INET6", seccompData(abi.socket, native, syscall.AF_INET6, syscall.SOCK_DGRAM), allow},
				{"socket AF_NETLINK", seccompData(abi.socket, native, syscall.AF_NETLINK, syscall.SOCK_RAW), allow},
				{"socketpair stream", seccompData(abi.socketpair, native, afUnix, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC), allow},
				{"socketpair seqpacket", seccompData(abi.socketpair, native, afUnix, syscall.SOCK_SEQPACKET), allow},
				{"socketpair dgram", seccompData(abi.socketpair, native, afUnix, syscall.SOCK_DGRAM), eperm},
				{"socketpair raw (a datagram pair)", seccompData(abi.socketpair, native, afUnix, syscall.SOCK_RAW), eperm},
				{"io_uring_setup", seccompData(abi.ioURing[0], native, 1), enosys},
				{"io_uring_enter", seccompData(abi.ioURing[1], native), enosys},
				{"io_uring_register", seccompData(abi.ioURing[2], native), enosys},
				{"connect", seccompData(abi.socket+1, native, 3), allow},
				{"read", seccompData(0, native, 0), allow},
				{"i386 socketcall", seccompData(102, 0x40000003, 1), enosys},
				{"i386 socket", seccompData(359, 0x40000003, afUnix), enosys},
				{"AArch32", seccompData(281, 0x40000028, afUnix), enosys},
				{"unknown arch", seccompData(abi.socket, 0, afUnix), enosys},
			}
			if abi.x32Bit != 0 {
				tests = append(tests,
					struct {
						name string
						data []byte
						want uint32
					}{"x32 socket", seccompData(abi.x32Bit|abi.socket, native, afUnix), enosys},
					struct {
						name string
						data []byte
						want uint32
					}{"x32 read", seccompData(abi.x32Bit, native), enosys})
			}
			for _, tt := range tests {
				got, err := vm.Run(tt.data)
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				if uint32(got) != tt.want {
					t.Errorf("%s: filter returns %#x, want %#x", tt.name, got, tt.want)
				}
			}
		})
	}
}

func TestSeccompFilterBytes(t *testing.T) {
	t.Parallel()
	if _, err := seccompFilter("riscv64"); err == nil || !strings.Contains(err.Error(), "not available on riscv64") {
		t.Errorf("riscv64: err = %v, want the filter to be unavailable", err)
	}
	b, err := seccompFilter("amd64")
	if err != nil {
		t.Fatal(err)
	}
	// struct sock_filter is 8 bytes; the program ends with a return.
	if len(b)%8 != 0 || len(b) == 0 || len(b)/8 > 64 {
		t.Fatalf("filter is %d bytes", len(b))
	}
	last := binary.NativeEndian.Uint16(b[len(b)-8:])
	if last&0x07 != 0x06 { // BPF_RET
		t.Errorf("last instruction %#x is not a return", last)
	}
}

// TestSeccompNumbers checks the table against the running platform's own
// numbers where the syscall package has them.
func TestSeccompNumbers(t *testing.T) {
	t.Parallel()
	abi, ok := seccompABIFor(runtime.GOARCH)
	if !ok {
		t.Skipf("no filter on %s", runtime.GOARCH)
	}
	if abi.socket != syscall.SYS_SOCKET || abi.socketpair != syscall.SYS_SOCKETPAIR {
		t.Errorf("socket %d socketpair %d, syscall package says %d %d", abi.socket, abi.socketpair, syscall.SYS_SOCKET, syscall.SYS_SOCKETPAIR)
	}
}

// listenUnix listens on a pathname Unix stream socket and returns a
// function that, once the client is done, collects everything sent to it.
// No sleeping: the collector connects last with a marker, and the listener
// accepts in order, so whatever the client managed to queue comes first.
func listenUnix(t *testing.T, path string) func() string {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	const end = "END-OF-TEST"
	got := make(chan string, 1)
	go func() {
		var all strings.Builder
		defer func() { got <- all.String() }()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b, _ := io.ReadAll(c)
			c.Close()
			if string(b) == end {
				return
			}
			all.Write(b)
		}
	}()
	return func() string {
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, end)
		c.Close()
		return <-got
	}
}

// listenUnixgram is listenUnix for a datagram socket.
func listenUnixgram(t *testing.T, path string) func() string {
	t.Helper()
	pc, err := net.ListenPacket("unixgram", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	const end = "END-OF-TEST"
	return func() string {
		c, err := net.Dial("unixgram", path)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(end))
		c.Close()
		var all strings.Builder
		buf := make([]byte, 4096)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil || string(buf[:n]) == end {
				return all.String()
			}
			all.Write(buf[:n])
		}
	}
}

// TestBwrapUnixSockets sends a secret to a listener on a pathname Unix
// socket in the home, the way a command would reach docker.sock or an ssh
// agent. With the filter nothing arrives; with AllowUnixSockets it does.
func TestBwrapUnixSockets(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"stream", "dgram"} {
		for _, allowed := range []bool{false, true} {
			name := kind + "/denied"
			if allowed {
				name = kind + "/allowed"
			}
			t.Run(name, func(t *testing.T) {
				root := realTempDir(t)
				home := mkdir(t, root, "home")
				ws := mkdir(t, root, "ws")
				sb := realSandbox(t, Config{Workspace: ws, Home: home, AllowUnixSockets: allowed})
				sock := filepath.Join(home, "agent.sock")
				token := uniqueName()
				collect, mode := listenUnix, "connect"
				if kind == "dgram" {
					collect, mode = listenUnixgram, "dgram"
				}
				received := collect(t, sock)
				bin, env := helperBinary(t, ws, mode)
				out, err := runEnv(t, sb, "", env, bin, sock, token)
				got := received()
				if delivered := strings.Contains(got, token); delivered != allowed {
					t.Errorf("AllowUnixSockets=%v: token delivered=%v (client: %v: %s)", allowed, delivered, err, out)
				}
				if !allowed && !strings.Contains(out, "operation not permitted") {
					t.Errorf("client failed for another reason than the filter: %v: %s", err, out)
				}
			})
		}
	}
}

// TestBwrapSeccompSyscalls runs the system calls the filter looks at for
// real inside the sandbox, with the filter and without it.
func TestBwrapSeccompSyscalls(t *testing.T) {
	t.Parallel()
	results := func(t *testing.T, allow bool) map[string]string {
		ws := realTempDir(t)
		sb := realSandbox(t, Config{Workspace: ws, Home: realTempDir(t), AllowUnixSockets: allow})
		bin, env := helperBinary(t, ws, "syscalls")
		out, err := runEnv(t, sb, "", env, bin)
		if err != nil {
			t.Fatalf("helper: %v: %s", err, out)
		}
		m := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), "="); ok {
				m[k] = v
			}
		}
		return m
	}
	filtered := results(t, false)
	want := map[string]string{
		"socket_unix":               "EPERM",
		"socket_unix_dgram_cloexec": "EPERM",
		"socket_unix_high_bits":     "EPERM",
		"socket_inet":               "ok", // the network namespace, not the filter, cuts the network
		"socketpair_stream":         "ok",
		"socketpair_seqpacket":      "ok",
		"socketpair_dgram":          "EPERM",
		"io_uring_setup":            "ENOSYS",
	}
	if _, ok := filtered["x32_socket_inet"]; ok {
		want["x32_socket_inet"] = "ENOSYS"
	}
	for k, v := range want {
		if filtered[k] != v {
			t.Errorf("with the filter, %s = %q, want %s", k, filtered[k], v)
		}
	}
	// Positive control: without the filter, the same calls succeed.
	open := results(t, true)
	for _, k := range []string{"socket_unix", "socket_unix_high_bits", "socketpair_dgram"} {
		if open[k] != "ok" {
			t.Errorf("without the filter, %s = %q, want ok", k, open[k])
		}
	}
}

// TestProbeReportsFilter checks the probe's verdict on the filter against
// what the architecture allows.
func TestProbeReportsFilter(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("bwrap runs on Linux")
	}
	r := probeOnce()
	if !r.Works {
		t.Skip("bwrap cannot run here: " + r.Reason)
	}
	_, supported := seccompABIFor(runtime.GOARCH)
	if supported && !r.UnixSocketFilter {
		t.Errorf("filter not applied on %s: %s", runtime.GOARCH, r.Reason)
	}
	if !supported && (r.UnixSocketFilter || !strings.Contains(r.Reason, "not available")) {
		t.Errorf("report = %+v on an unsupported architecture", r)
	}
	if !strings.Contains(r.String(), "unix socket filter: ") {
		t.Errorf("String() lacks the filter: %s", r)
	}
	var te *trialError
	if err := trialBwrap(t.Context(), r.Path, true, []byte{1, 2, 3}); !errors.As(err, &te) {
		t.Errorf("a malformed filter ran: %v", err)
	}
}
