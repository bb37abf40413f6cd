// Package helper is the first code to run in a jailed program's process:
// the jail starts its own executable with SKILLSH_JAIL_HELPER set, and this
// package's init sets the limits and confinement the spec on descriptor 3
// asks for, then executes the program. It imports only syscall and unsafe
// so that it runs before any heavy package initialisation.
package helper

import "errors"

// Descriptors the helper inherits from the jail.
const (
	SpecFD  = 3 // read end of a pipe carrying the encoded Spec, then EOF
	ErrorFD = 4 // write end of a pipe: closed once the program runs, else "stage\x00errno"
	// StatusFD is the write end of a pipe on which a helper that stays as
	// init (Spec.Init) writes the program's wait status, 4 bytes little
	// endian, before it exits. Otherwise it is closed by the exec.
	StatusFD = 5
)

// EnvVar selects helper mode; its value must be "1".
const EnvVar = "SKILLSH_JAIL_HELPER"

// Name is the argv[0] the helper runs under.
const Name = "skillsh-jail-helper"

// Spec is what the helper does before executing Path.
type Spec struct {
	Path       string
	Args, Env  []string
	Rlimits    []Rlimit
	DropUID    bool // switch to UID/GID with no supplementary groups
	UID, GID   int
	LoopbackUp bool // bring lo up (in a new network namespace)
	Landlock   Landlock
	// Init keeps the helper as pid 1 of the program's new PID namespace:
	// it starts the program as pid 2, so the program has the ordinary
	// signal semantics (pid 1 ignores the default action of every signal
	// sent from inside its namespace, SIGPIPE included), and it reaps the
	// orphans. When the program exits, the helper exits and the kernel
	// kills what is left in the namespace.
	Init bool
	// DenyUnixSockets installs a seccomp filter that refuses
	// socket(AF_UNIX, ...), after the Landlock domain.
	DenyUnixSockets bool
}

// Rlimit is one resource limit (a syscall.RLIMIT_* resource).
type Rlimit struct {
	Resource int
	Cur, Max uint64
}

// Landlock is a ruleset to enforce; ABI 0 means none.
type Landlock struct {
	ABI                           int
	HandledFS, HandledNet, Scoped uint64
	Rules                         []Rule
}

// Rule grants Access beneath Path (for a file, the file rights of Access).
type Rule struct {
	Path   string
	Access uint64
}

// Marshal encodes s: unsigned 64-bit little-endian integers, strings and
// lists prefixed by their length.
func (s *Spec) Marshal() []byte {
	var e encoder
	e.str(s.Path)
	e.strs(s.Args)
	e.strs(s.Env)
	e.u64(uint64(len(s.Rlimits)))
	for _, r := range s.Rlimits {
		e.u64(uint64(r.Resource))
		e.u64(r.Cur)
		e.u64(r.Max)
	}
	e.bool(s.DropUID)
	e.u64(uint64(s.UID))
	e.u64(uint64(s.GID))
	e.bool(s.LoopbackUp)
	e.bool(s.Init)
	e.bool(s.DenyUnixSockets)
	l := &s.Landlock
	e.u64(uint64(l.ABI))
	e.u64(l.HandledFS)
	e.u64(l.HandledNet)
	e.u64(l.Scoped)
	e.u64(uint64(len(l.Rules)))
	for _, r := range l.Rules {
		e.str(r.Path)
		e.u64(r.Access)
	}
	return e.buf
}

// Unmarshal decodes what Marshal encoded.
func Unmarshal(b []byte) (*Spec, error) {
	d := decoder{buf: b}
	s := &Spec{Path: d.str(), Args: d.strs(), Env: d.strs()}
	s.Rlimits = make([]Rlimit, d.count())
	for i := range s.Rlimits {
		s.Rlimits[i] = Rlimit{int(d.u64()), d.u64(), d.u64()}
	}
	s.DropUID = d.u64() != 0
	s.UID, s.GID = int(d.u64()), int(d.u64())
	s.LoopbackUp = d.u64() != 0
	s.Init = d.u64() != 0
	s.DenyUnixSockets = d.u64() != 0
	l := &s.Landlock
	l.ABI = int(d.u64())
	l.HandledFS, l.HandledNet, l.Scoped = d.u64(), d.u64(), d.u64()
	l.Rules = make([]Rule, d.count())
	for i := range l.Rules {
		l.Rules[i] = Rule{d.str(), d.u64()}
	}
	if d.bad || len(d.buf) != 0 {
		return nil, errors.New("malformed spec")
	}
	return s, nil
}

type encoder struct{ buf []byte }

func (e *encoder) u64(v uint64) {
	for i := 0; i < 8; i++ {
		e.buf = append(e.buf, byte(v>>(8*i)))
	}
}

func (e *encoder) bool(v bool) {
	if v {
		e.u64(1)
	} else {
		e.u64(0)
	}
}

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) strs(list []string) {
	e.u64(uint64(len(list)))
	for _, s := range list {
		e.str(s)
	}
}

type decoder struct {
	buf []byte
	bad bool
}

func (d *decoder) u64() uint64 {
	if len(d.buf) < 8 {
		d.bad, d.buf = true, nil
		return 0
	}
	var v uint64
	for i := 0; i < 8; i++ {
		v |= uint64(d.buf[i]) << (8 * i)
	}
	d.buf = d.buf[8:]
	return v
}

// count reads a list length, bounded by what is left to read.
func (d *decoder) count() int {
	n := d.u64()
	if n > uint64(len(d.buf)) {
		d.bad, d.buf = true, nil
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count()
	s := string(d.buf[:n])
	d.buf = d.buf[n:]
	return s
}

func (d *decoder) strs() []string {
	list := make([]string, d.count())
	for i := range list {
		list[i] = d.str()
	}
	return list
}
