package sandbox

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/net/bpf"
)

// Values from the kernel's UAPI headers (linux/seccomp.h, linux/audit.h,
// asm-generic/errno-base.h, linux/net.h); they are ABI and never change.
const (
	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000

	errnoEPERM  = 1
	errnoENOSYS = 38 // the same on amd64 and arm64

	afUnix        = 1
	sockStream    = 1
	sockSeqpacket = 5
	sockTypeMask  = 0xf // type without SOCK_NONBLOCK and SOCK_CLOEXEC

	// Offsets into struct seccomp_data. The arguments are 64 bits wide;
	// on the little-endian machines supported here, the low half (all an
	// int argument is made of) comes first.
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArg0 = 16
	seccompDataArg1 = 24
)

// seccompABI is what the filter needs to know about one architecture's
// native system-call ABI.
type seccompABI struct {
	auditArch  uint32 // AUDIT_ARCH_* of the native ABI
	x32Bit     uint32 // amd64's x32 ABI marks its call numbers with this bit; 0 elsewhere
	socket     uint32
	socketpair uint32
	ioURing    []uint32 // io_uring_setup, io_uring_enter, io_uring_register
}

// seccompABIFor returns the ABI of goarch, or false where the filter is not
// available. Neither ABI here has socketcall(2), whose arguments sit in
// memory a filter cannot read; the 32-bit ABIs that do are refused whole.
func seccompABIFor(goarch string) (seccompABI, bool) {
	switch goarch {
	case "amd64":
		return seccompABI{
			auditArch: 0xc000003e, // EM_X86_64 | 64-bit | little-endian
			x32Bit:    0x40000000,
			socket:    41, socketpair: 53,
			ioURing: []uint32{425, 426, 427},
		}, true
	case "arm64":
		return seccompABI{
			auditArch: 0xc00000b7, // EM_AARCH64 | 64-bit | little-endian
			socket:    198, socketpair: 199,
			ioURing: []uint32{425, 426, 427},
		}, true
	}
	return seccompABI{}, false
}

// seccompFilter returns the filter bwrap loads for goarch (see
// seccompInstructions) as the raw struct sock_filter array bwrap's
// --seccomp reads, or an error saying why there is none.
func seccompFilter(goarch string) ([]byte, error) {
	abi, ok := seccompABIFor(goarch)
	if !ok {
		return nil, fmt.Errorf("the Unix socket filter is not available on %s (only amd64 and arm64)", goarch)
	}
	ins, err := seccompInstructions(abi)
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(ins)
	if err != nil {
		return nil, fmt.Errorf("assemble the Unix socket filter: %w", err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, r := range raw {
		// struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; },
		// in the byte order of the kernel that loads it.
		out = binary.NativeEndian.AppendUint16(out, r.Op)
		out = append(out, r.Jt, r.Jf)
		out = binary.NativeEndian.AppendUint32(out, r.K)
	}
	return out, nil
}

// seccompInstructions is the policy, as BPF:
//
//   - A call made through another ABI than the native one fails with
//     ENOSYS: on amd64 that is int 0x80 (i386, whose socketcall multiplexes
//     socket(2) behind a pointer) and the x32 ABI, on arm64 AArch32.
//   - io_uring fails with ENOSYS: its IORING_OP_SOCKET and IORING_OP_CONNECT
//     make sockets without a system call a filter could see. ENOSYS is what
//     programs that try io_uring and fall back expect.
//   - socket(AF_UNIX, ...) fails with EPERM: a Unix socket reaches any
//     listener whose path the command can see (docker.sock, an ssh agent,
//     the session bus), network namespace or not.
//   - socketpair(AF_UNIX, ...) is allowed for SOCK_STREAM and SOCK_SEQPACKET,
//     which are born connected to each other and can never be re-aimed. A
//     datagram pair is refused: sendto(2) on one reaches any datagram
//     socket by path.
//   - Everything else is allowed; the filesystem and the network namespace
//     are bwrap's job.
func seccompInstructions(abi seccompABI) ([]bpf.Instruction, error) {
	const allow, eperm, enosys = "allow", "eperm", "enosys"
	prog := []any{
		bpf.LoadAbsolute{Off: seccompDataArch, Size: 4},
		jump{cond: bpf.JumpNotEqual, val: abi.auditArch, yes: enosys},
		bpf.LoadAbsolute{Off: seccompDataNr, Size: 4},
	}
	if abi.x32Bit != 0 {
		prog = append(prog, jump{cond: bpf.JumpBitsSet, val: abi.x32Bit, yes: enosys})
	}
	for _, nr := range abi.ioURing {
		prog = append(prog, jump{cond: bpf.JumpEqual, val: nr, yes: enosys})
	}
	prog = append(prog,
		jump{cond: bpf.JumpEqual, val: abi.socket, yes: "socket"},
		jump{cond: bpf.JumpEqual, val: abi.socketpair, yes: "socketpair"},
		bpf.RetConstant{Val: seccompRetAllow},

		label("socket"),
		bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4},
		jump{cond: bpf.JumpEqual, val: afUnix, yes: eperm, no: allow},

		label("socketpair"),
		bpf.LoadAbsolute{Off: seccompDataArg0, Size: 4},
		jump{cond: bpf.JumpNotEqual, val: afUnix, yes: allow},
		bpf.LoadAbsolute{Off: seccompDataArg1, Size: 4},
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockTypeMask},
		jump{cond: bpf.JumpEqual, val: sockStream, yes: allow},
		jump{cond: bpf.JumpEqual, val: sockSeqpacket, yes: allow, no: eperm},

		label(allow),
		bpf.RetConstant{Val: seccompRetAllow},
		label(eperm),
		bpf.RetConstant{Val: seccompRetErrno | errnoEPERM},
		label(enosys),
		bpf.RetConstant{Val: seccompRetErrno | errnoENOSYS},
	)
	return link(prog)
}

// label names the next instruction of a program given to link.
type label string

// jump is a conditional jump to labels; an empty label means the next
// instruction. link turns it into a bpf.JumpIf with the skips counted.
type jump struct {
	cond    bpf.JumpTest
	val     uint32
	yes, no label
}

// link resolves the labels and jumps of prog (bpf.Instruction, jump and
// label values) into instructions, so the policy reads as a program rather
// than as hand-counted skips.
func link(prog []any) ([]bpf.Instruction, error) {
	at := map[label]int{}
	n := 0
	for _, p := range prog {
		if l, ok := p.(label); ok {
			at[l] = n
			continue
		}
		n++
	}
	out := make([]bpf.Instruction, 0, n)
	for _, p := range prog {
		switch p := p.(type) {
		case label:
		case jump:
			here := len(out)
			skip := func(to label) (uint8, error) {
				if to == "" {
					return 0, nil
				}
				target, ok := at[to]
				if !ok {
					return 0, fmt.Errorf("seccomp filter: no label %q", to)
				}
				d := target - here - 1
				if d < 0 || d > 255 {
					return 0, fmt.Errorf("seccomp filter: jump to %q out of range", to)
				}
				return uint8(d), nil
			}
			yes, err := skip(p.yes)
			if err != nil {
				return nil, err
			}
			no, err := skip(p.no)
			if err != nil {
				return nil, err
			}
			out = append(out, bpf.JumpIf{Cond: p.cond, Val: p.val, SkipTrue: yes, SkipFalse: no})
		case bpf.Instruction:
			out = append(out, p)
		default:
			return nil, fmt.Errorf("seccomp filter: unexpected %T", p)
		}
	}
	return out, nil
}
