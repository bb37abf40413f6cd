//go:build linux

package helper

import (
	"runtime"
	"syscall"
	"unsafe"
)

// The seccomp filter refuses socket(AF_UNIX, ...): a program could
// otherwise connect to a named Unix socket outside its roots (a daemon's
// control socket), which neither Landlock nor the network namespace
// govern. It refuses io_uring too (ENOSYS), which can create and connect
// a socket without socket(2), and socketpair(AF_UNIX) of any type but
// SOCK_STREAM and SOCK_SEQPACKET: a datagram socket (SOCK_DGRAM, or
// SOCK_RAW, which the kernel makes one) can be sent to any named socket.
// Stream and seqpacket pairs stay allowed (python's subprocess and asyncio
// use them): they cannot be connected anew.

// sockFilter is struct sock_filter.
type sockFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// sockFprog is struct sock_fprog.
type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// BPF instruction classes and modes (linux/bpf_common.h): BPF_LD|BPF_W|
// BPF_ABS is 0x00|0x00|0x20, BPF_JMP|BPF_JEQ|BPF_K 0x05|0x10|0x00,
// BPF_JMP|BPF_JGE|BPF_K 0x05|0x30|0x00, BPF_RET|BPF_K 0x06|0x00.
const (
	bpfLdW  = 0x20
	bpfJeqK = 0x15
	bpfJgeK = 0x35
	bpfJgtK = 0x25 // BPF_JMP|BPF_JGT|BPF_K
	bpfAndK = 0x54 // BPF_ALU|BPF_AND|BPF_K
	bpfRetK = 0x06
	afUnix  = 1
	x32Bit  = 0x40000000
	offNr   = 0  // seccomp_data.nr
	offArch = 4  // seccomp_data.arch
	offArg0 = 16 // seccomp_data.args[0], low 32 bits (little endian)
	offArg1 = 24 // seccomp_data.args[1]

	sockTypeMask  = 0xf // the type without SOCK_NONBLOCK, SOCK_CLOEXEC
	sockStream    = 1
	sockSeqpacket = 5
	retAllow      = 0x7fff0000
	retKill       = 0x80000000 // SECCOMP_RET_KILL_PROCESS
	retErrno      = 0x00050000 // SECCOMP_RET_ERRNO | errno

	seccompSetModeFilter = 1

	// io_uring_setup, _enter and _register (the same numbers on amd64 and
	// arm64): io_uring creates and connects sockets without socket(2).
	ioUringSetup    = 425
	ioUringRegister = 427
)

// nativeArch returns the AUDIT_ARCH_* value and the socket, socketpair and
// seccomp syscall numbers of this build; ok is false on other
// architectures.
func nativeArch() (arch, socket, socketpair, seccomp uint32, ok bool) {
	switch runtime.GOARCH {
	case "amd64":
		return 0xc000003e, 41, 53, 317, true
	case "arm64":
		return 0xc00000b7, 198, 199, 277, true
	}
	return 0, 0, 0, 0, false
}

// denyUnixSockets installs the filter on this thread (and the program it
// executes). A syscall of another architecture (32-bit or x32 entry
// points) kills the process: through them socket has other numbers.
// no_new_privs must already be set.
func denyUnixSockets() error {
	arch, socket, socketpair, seccomp, ok := nativeArch()
	if !ok {
		return syscall.ENOSYS
	}
	// A jump skips that many instructions: 19 is RET EACCES, 20 RET ALLOW.
	filter := []sockFilter{
		/* 0 */ {bpfLdW, 0, 0, offArch},
		/* 1 */ {bpfJeqK, 1, 0, arch},
		/* 2 */ {bpfRetK, 0, 0, retKill},
		/* 3 */ {bpfLdW, 0, 0, offNr},
		/* 4 */ {bpfJgeK, 0, 1, x32Bit},
		/* 5 */ {bpfRetK, 0, 0, retKill},
		/* 6 */ {bpfJgeK, 0, 2, ioUringSetup},
		/* 7 */ {bpfJgtK, 1, 0, ioUringRegister},
		/* 8 */ {bpfRetK, 0, 0, retErrno | uint32(syscall.ENOSYS)},
		/* 9 */ {bpfJeqK, 0, 2, socket},
		/* 10 */ {bpfLdW, 0, 0, offArg0},
		/* 11 */ {bpfJeqK, 7, 8, afUnix},
		/* 12 */ {bpfJeqK, 0, 7, socketpair},
		/* 13 */ {bpfLdW, 0, 0, offArg0},
		/* 14 */ {bpfJeqK, 0, 5, afUnix},
		/* 15 */ {bpfLdW, 0, 0, offArg1},
		/* 16 */ {bpfAndK, 0, 0, sockTypeMask},
		/* 17 */ {bpfJeqK, 2, 0, sockStream},
		/* 18 */ {bpfJeqK, 1, 0, sockSeqpacket},
		/* 19 */ {bpfRetK, 0, 0, retErrno | uint32(syscall.EACCES)},
		/* 20 */ {bpfRetK, 0, 0, retAllow},
	}
	prog := sockFprog{len: uint16(len(filter)), filter: &filter[0]}
	_, _, e := syscall.RawSyscall(uintptr(seccomp), seccompSetModeFilter, 0, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	return errno(e)
}
