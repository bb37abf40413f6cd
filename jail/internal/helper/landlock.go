//go:build linux

package helper

import (
	"syscall"
	"unsafe"
)

// Landlock system calls and constants (include/uapi/linux/landlock.h).
const (
	sysCreateRuleset = 444
	sysAddRule       = 445
	sysRestrictSelf  = 446

	rulePathBeneath = 1
	oPath           = 0x200000 // O_PATH

	// AccessFileRights are the rights that apply to a file (as opposed to
	// a directory): execute, write, read, truncate, ioctl_dev.
	AccessFileRights = 1<<0 | 1<<1 | 1<<2 | 1<<14 | 1<<15
)

type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

type pathBeneathAttr struct {
	allowed  uint64
	parentFD int32
}

// buildRuleset creates the ruleset and adds the rules. Paths that do not
// exist are skipped.
func buildRuleset(l *Landlock) (int, string, error) {
	attr := rulesetAttr{l.HandledFS, l.HandledNet, l.Scoped}
	size := unsafe.Sizeof(attr)
	if l.ABI < 6 {
		size = 16 // scoped is ABI 6
	}
	fd, _, e := syscall.RawSyscall(sysCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return -1, "landlock_create_ruleset", e
	}
	for _, r := range l.Rules {
		if err := addRule(int(fd), r); err != nil {
			return -1, "landlock_add_rule " + r.Path, err
		}
	}
	return int(fd), "", nil
}

func addRule(ruleset int, r Rule) error {
	fd, err := syscall.Open(r.Path, oPath|syscall.O_CLOEXEC, 0)
	if err == syscall.ENOENT {
		return nil
	}
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	access := r.Access
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= AccessFileRights
	}
	attr := pathBeneathAttr{allowed: access, parentFD: int32(fd)}
	_, _, e := syscall.RawSyscall6(sysAddRule, uintptr(ruleset), rulePathBeneath,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	return errno(e)
}

// restrictSelf enforces the ruleset on the calling thread only (no
// LANDLOCK_RESTRICT_SELF_TSYNC): that thread executes the program.
func restrictSelf(ruleset int) error {
	_, _, e := syscall.RawSyscall(sysRestrictSelf, uintptr(ruleset), 0, 0)
	_ = syscall.Close(ruleset)
	return errno(e)
}
