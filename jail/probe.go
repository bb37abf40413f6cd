package jail

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
)

var probeOnce = sync.OnceValue(probeHost)

// Probe reports which protections this host can enforce and why the
// missing ones are missing. It probes the kernel once per process (one
// short-lived child to test namespaces, one cgroup directory); later calls
// return a copy of the cached answer. Whether a particular Jail applies a
// protection also depends on its Config (for example KeepUID); each
// Result lists what applied.
func Probe() []Status {
	return append([]Status(nil), probeOnce()...)
}

func probeHost() []Status {
	abi := landlockABI()
	ns := probeNamespaces()
	cg := probeCgroup()
	return []Status{
		{Rlimits, true, "CPU, address space, file size, open files, core size 0, set on the program before its first instruction"},
		{NoNewPrivs, true, "prctl(PR_SET_NO_NEW_PRIVS) before exec: setuid bits and file capabilities grant nothing"},
		probeUIDDrop(),
		landlockStatus(Landlock, abi, 1, "filesystem limited to system directories, the read roots and the workspace"),
		landlockStatus(LandlockExec, abi, 1, "execve limited to the programs the policy names, scripts in the read roots and the ELF interpreter"),
		landlockStatus(LandlockNet, abi, 4, "TCP bind and connect denied"),
		landlockStatus(LandlockScope, abi, 6, "abstract Unix sockets and signals scoped to the program's own domain"),
		probeSeccomp(),
		nsStatus(NetNS, ns, "own network namespace, only lo (up); UDP and raw sockets reach nothing"),
		nsStatus(PIDNS, ns, "own PID namespace under a minimal init: when the program exits or is killed, the kernel kills every descendant (setsid, double fork and nohup included)"),
		cg,
		{ProcessGroup, true, "own process group, SIGKILL to the group on timeout and at exit (a setsid child leaves the group)"},
	}
}

func probeUIDDrop() Status {
	if os.Geteuid() == 0 {
		return Status{UIDDrop, true, "started as root: programs run as an unprivileged uid/gid with no supplementary groups"}
	}
	return Status{UIDDrop, false, fmt.Sprintf("not root (euid %d): programs keep the caller's uid, which is already unprivileged", os.Geteuid())}
}

// probeSeccomp reports whether the kernel has seccomp filters that can
// return an errno and kill a process, for UnixSockets.
func probeSeccomp() Status {
	b, err := os.ReadFile("/proc/sys/kernel/seccomp/actions_avail")
	if err != nil {
		return Status{UnixSockets, false, "no seccomp filters in this kernel: " + err.Error()}
	}
	if acts := strings.Fields(string(b)); !slices.Contains(acts, "errno") || !slices.Contains(acts, "kill_process") {
		return Status{UnixSockets, false, "seccomp lacks the errno or kill_process action: " + strings.TrimSpace(string(b))}
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		return Status{UnixSockets, false, "the seccomp filter is written for amd64 and arm64, not " + runtime.GOARCH}
	}
	return Status{UnixSockets, true, "socket(AF_UNIX) refused by a seccomp filter: no named Unix socket outside the jail (a daemon's control socket) can be reached"}
}

// landlockABI returns the kernel's Landlock ABI version, 0 if none.
func landlockABI() int {
	v, _, e := syscall.RawSyscall(sysLandlockCreateRuleset, 0, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */)
	if e != 0 {
		return 0
	}
	return int(v)
}

const sysLandlockCreateRuleset = 444

func landlockStatus(p Protection, abi, need int, covers string) Status {
	switch {
	case abi == 0:
		return Status{p, false, "Landlock is not enabled in this kernel (landlock_create_ruleset failed)"}
	case abi < need:
		return Status{p, false, fmt.Sprintf("needs Landlock ABI %d, kernel has %d", need, abi)}
	}
	return Status{p, true, fmt.Sprintf("%s (Landlock ABI %d)", covers, abi)}
}

// probeNamespaces starts /bin/true in new PID and network namespaces.
func probeNamespaces() error {
	attr := &os.ProcAttr{Sys: &syscall.SysProcAttr{Cloneflags: nsFlags}}
	p, err := os.StartProcess("/bin/true", []string{"true"}, attr)
	if err != nil {
		return err
	}
	_, err = p.Wait()
	return err
}

const nsFlags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNET

func nsStatus(p Protection, err error, covers string) Status {
	if err != nil {
		return Status{p, false, fmt.Sprintf("cannot create namespaces (%v): needs root or CAP_SYS_ADMIN", err)}
	}
	return Status{p, true, covers}
}

func probeCgroup() Status {
	root, err := pidsCgroupRoot()
	if err != nil {
		return Status{CgroupPIDs, false, err.Error()}
	}
	return Status{CgroupPIDs, true, "a pids cgroup per program under " + root + ": pids.max bounds the process count, the tree is killed from it"}
}
