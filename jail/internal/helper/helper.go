//go:build linux

package helper

import (
	"runtime"
	"syscall"
	"unsafe"
)

func init() {
	if v, _ := syscall.Getenv(EnvVar); v == "1" {
		Main()
	}
}

// Main runs the helper: read the spec, set everything up, exec. It never
// returns; a failure is written to ErrorFD and the process exits with 127.
func Main() {
	runtime.LockOSThread() // Landlock and the credentials apply to this thread, which execs
	closeOnExec()
	b, err := readAll(SpecFD)
	_ = syscall.Close(SpecFD)
	if err != nil {
		fail("read_spec", err)
	}
	s, err := Unmarshal(b)
	if err != nil {
		fail("decode_spec", syscall.EINVAL)
	}
	stage, err := setup(s)
	if err != nil {
		fail(stage, err)
	}
	if s.Init {
		runInit(s)
	}
	execLimited(s)
}

// closeOnExec marks every descriptor from 3 up close-on-exec: the program
// gets only its standard streams, never what skillsh inherited from its
// own parent (a connected socket, say), nor the helper's spec, error and
// status pipes.
func closeOnExec() {
	const sysCloseRange, closeRangeCloexec = 436, 4 // the same on amd64 and arm64
	if _, _, e := syscall.RawSyscall(sysCloseRange, 3, ^uintptr(0)>>32, closeRangeCloexec); e == 0 {
		return
	}
	var lim syscall.Rlimit // before Linux 5.11: one at a time
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil || lim.Cur > 1<<20 {
		lim.Cur = 1 << 20
	}
	for fd := uintptr(3); fd < uintptr(lim.Cur); fd++ {
		_, _, _ = syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_SETFD, syscall.FD_CLOEXEC)
	}
}

// The resource limits apply to the program only, never to this helper: a
// Go runtime that reaches its address-space limit cannot fail an
// allocation, it aborts. So they are set where nothing allocates after
// them: just before a raw execve, or on the started program itself.

// execLimited executes the program in this process. Everything execve
// needs is converted first; then the limits are set and execve is called
// directly, with no allocation in between.
func execLimited(s *Spec) {
	path, err := syscall.BytePtrFromString(s.Path)
	if err != nil {
		fail("exec", err)
	}
	argv, err := syscall.SlicePtrFromStrings(s.Args)
	if err != nil {
		fail("exec", err)
	}
	envv, err := syscall.SlicePtrFromStrings(s.Env)
	if err != nil {
		fail("exec", err)
	}
	if err := setRlimits(0, s.Rlimits); err != nil {
		fail("setrlimit", err)
	}
	_, _, e := syscall.RawSyscall(syscall.SYS_EXECVE,
		uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	fail("exec", e)
}

// runInit starts the program as a child of this thread, which carries the
// credentials and Landlock domain the child inherits; sets the program's
// limits while it is stopped at its first instruction; reaps every child
// until the program exits; reports its wait status; and exits, which ends
// the namespace and everything left in it.
//
// The program is started traced (PTRACE_TRACEME): the kernel stops it
// with SIGTRAP right after execve, before it runs, and the helper sets
// its limits with prlimit and detaches. A program that cannot be stopped
// so is killed: it never runs without its limits.
func runInit(s *Spec) {
	pid, err := syscall.ForkExec(s.Path, s.Args, &syscall.ProcAttr{
		Env:   s.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Ptrace: true},
	})
	if err != nil {
		fail("exec", err)
	}
	if stage, err := limitStopped(pid, s.Rlimits); err != nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		fail(stage, err)
	}
	for fd := 0; fd <= ErrorFD; fd++ {
		_ = syscall.Close(fd) // ErrorFD's EOF tells the jail the program runs
	}
	ws := reapUntil(pid)
	st := uint32(ws)
	_, _ = syscall.Write(StatusFD, []byte{byte(st), byte(st >> 8), byte(st >> 16), byte(st >> 24)})
	syscall.Exit(0)
}

// limitStopped waits for the traced program pid to stop after its
// execve, sets its limits and lets it run untraced.
func limitStopped(pid int, limits []Rlimit) (string, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "ptrace_wait", err
		}
		break
	}
	if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP {
		return "ptrace_wait", syscall.ECHILD
	}
	if err := setRlimits(pid, limits); err != nil {
		return "setrlimit", err
	}
	if err := syscall.PtraceDetach(pid); err != nil {
		return "ptrace_detach", err
	}
	return "", nil
}

// setRlimits sets limits on process pid (0: this one) with prlimit64. It
// does not allocate.
func setRlimits(pid int, limits []Rlimit) error {
	for i := range limits {
		lim := syscall.Rlimit{Cur: limits[i].Cur, Max: limits[i].Max}
		_, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(limits[i].Resource),
			uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
		if e != 0 {
			return e
		}
	}
	return nil
}

// reapUntil waits for any child, as an init must, until pid has exited.
func reapUntil(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case got == pid:
			return ws
		case err != nil && err != syscall.EINTR:
			return ws
		}
	}
}

// setup applies s to this thread and process, in the order that keeps each
// step possible: root-only steps first, the Landlock domain and the
// seccomp filter last. The
// resource limits are left for the program (see execLimited).
func setup(s *Spec) (string, error) {
	if s.LoopbackUp {
		if err := loopbackUp(); err != nil {
			return "loopback_up", err
		}
	}
	ruleset := -1
	if s.Landlock.ABI > 0 {
		fd, stage, err := buildRuleset(&s.Landlock)
		if err != nil {
			return stage, err
		}
		ruleset = fd
	}
	if s.DropUID {
		if stage, err := dropUID(s.UID, s.GID); err != nil {
			return stage, err
		}
	}
	if err := prctl(syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL)); err != nil {
		return "pdeathsig", err
	}
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return "no_new_privs", err
	}
	if ruleset >= 0 {
		if err := restrictSelf(ruleset); err != nil {
			return "landlock_restrict_self", err
		}
	}
	if s.DenyUnixSockets {
		if err := denyUnixSockets(); err != nil {
			return "seccomp", err
		}
	}
	return "", nil
}

const prSetNoNewPrivs = 38

func prctl(option int, arg uintptr) error {
	_, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, uintptr(option), arg, 0, 0, 0, 0)
	return errno(e)
}

// dropUID changes the credentials of this thread only: it is the thread
// that executes the program, and execve ends every other thread.
func dropUID(uid, gid int) (string, error) {
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETGROUPS, 0, 0, 0); e != 0 {
		return "setgroups", e
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(gid)); e != 0 {
		return "setresgid", e
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
		return "setresuid", e
	}
	return "", nil
}

// loopbackUp sets IFF_UP on lo, the only interface of a new network
// namespace.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var req struct {
		name  [syscall.IFNAMSIZ]byte
		flags uint16
		_     [22]byte
	}
	copy(req.name[:], "lo")
	if err := ioctl(fd, syscall.SIOCGIFFLAGS, unsafe.Pointer(&req)); err != nil {
		return err
	}
	req.flags |= syscall.IFF_UP
	return ioctl(fd, syscall.SIOCSIFFLAGS, unsafe.Pointer(&req))
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
	return errno(e)
}

func readAll(fd int) ([]byte, error) {
	buf := make([]byte, 0, 4096)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// fail reports stage and err on ErrorFD and exits.
func fail(stage string, err error) {
	msg := []byte(stage + "\x00" + itoa(errnoOf(err)))
	_, _ = syscall.Write(ErrorFD, msg)
	syscall.Exit(127)
}

func errnoOf(err error) int {
	if e, ok := err.(syscall.Errno); ok {
		return int(e)
	}
	return int(syscall.EINVAL)
}

func errno(e syscall.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}
