package jail

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"time"
)

// Profile holds the resource limits for one program. A zero field means
// "use the jail's default" (Config.Limits, whose own zero fields mean
// DefaultProfile's value). A Profile is a plain value: copy and share it freely.
type Profile struct {
	Timeout   time.Duration // wall clock per program; the caller's context deadline also applies
	CPU       time.Duration // RLIMIT_CPU, rounded up to whole seconds
	Memory    int64         // bytes of address space (RLIMIT_AS)
	FileSize  int64         // bytes, the largest file the program may write (RLIMIT_FSIZE)
	OpenFiles uint64        // RLIMIT_NOFILE
	Processes uint64        // pids.max of the program's pids cgroup where available, else RLIMIT_NPROC
}

// DefaultProfile returns the limits used when neither the Command nor the
// Config sets one: 30s wall clock, 30s CPU, 2 GiB address space, 256 MiB
// file size, 1024 open files and 256 processes.
func DefaultProfile() Profile {
	return Profile{
		Timeout:   30 * time.Second,
		CPU:       30 * time.Second,
		Memory:    2 << 30,
		FileSize:  256 << 20,
		OpenFiles: 1024,
		Processes: 256,
	}
}

// Or returns p with each zero field replaced by the field of def.
func (p Profile) Or(def Profile) Profile {
	if p.Timeout == 0 {
		p.Timeout = def.Timeout
	}
	if p.CPU == 0 {
		p.CPU = def.CPU
	}
	if p.Memory == 0 {
		p.Memory = def.Memory
	}
	if p.FileSize == 0 {
		p.FileSize = def.FileSize
	}
	if p.OpenFiles == 0 {
		p.OpenFiles = def.OpenFiles
	}
	if p.Processes == 0 {
		p.Processes = def.Processes
	}
	return p
}

// Config describes a jail. The zero Config is valid: nothing readable beyond
// the system directories, nothing writable, the system program directories
// executable, DefaultProfile limits, nothing required.
type Config struct {
	// ReadOnly lists directories the programs may read (the skills roots).
	// Scripts inside them may also be executed. System directories
	// (/usr, /etc's runtime files, /dev/null, ...) are added by the jail.
	ReadOnly []string
	// ReadWrite lists directories the programs may read and write (the
	// workspace). The first one is the workspace: HOME points at it and
	// its ".tmp" subdirectory, created by New, is TMPDIR.
	ReadWrite []string
	// Executables lists absolute paths of files (or directories of files)
	// that may be executed. Symbolic links are resolved and both names are
	// allowed. Empty means the system program directories
	// (/usr/local/bin, /usr/bin, /usr/sbin, /usr/libexec, /usr/lib).
	Executables []string
	// Limits are the defaults for every program; zero fields fall back to
	// DefaultProfile.
	Limits Profile
	// Require lists protections that must be in force; if one is missing
	// New fails with a *MissingError naming it and nothing runs.
	Require []Protection
	// Pipes, when set, is a directory of named pipes the caller creates
	// (the shell's process substitutions): programs may open what is in
	// it for reading and writing, but it is never handed to their uid. It
	// must be owned by the caller with mode 0711, so that programs can
	// open a pipe by its name but cannot create, list or replace entries;
	// Landlock grants only opening its files, which holds even for a
	// program running as the owner (KeepUID, or a caller that is not root).
	Pipes string
	// KeepUID keeps the caller's uid and gid when it is root. By default a
	// root caller's programs run as UID:GID.
	KeepUID bool
	// UID and GID are the credentials programs run under when the caller
	// is root and KeepUID is false. Zero means 65534 (nobody/nogroup).
	UID, GID int
	// ChownWorkspace makes New change the owner of the ReadWrite
	// directories (the directories themselves, not their contents) to
	// UID:GID when the uid is dropped, so that programs can create files
	// in them.
	ChownWorkspace bool
}

// Jail starts programs confined as its Config says. It is safe for
// concurrent use: each Run has its own process, cgroup and pipes.
type Jail struct {
	cfg    Config
	plan   plan
	probes []Status
}

// Command is one program to run.
type Command struct {
	Path string   // absolute path of the program to execute
	Args []string // argv; Args[0] is the name the program sees (empty: Path)
	Dir  string   // working directory; empty means the workspace
	// Env is the complete environment of the program; nothing else is
	// passed through. Build it with Environment.
	Env []string
	// Stdin is the program's input; nil means /dev/null. An *os.File is
	// passed straight through; any other reader is copied through a pipe
	// by a goroutine that ends at the reader's EOF or at the first write
	// after the program has exited (a reader that blocks forever keeps it).
	Stdin io.Reader
	// Stdout and Stderr receive the program's output; nil discards it.
	// An *os.File is passed straight through; other writers (a Capture)
	// are fed from a pipe and have received everything once Run returns.
	Stdout, Stderr io.Writer
	// Profile overrides the jail's limits for this program; zero fields
	// fall back to Config.Limits.
	Profile Profile
}

// Result describes how a program ended.
type Result struct {
	ExitCode    int            // the program's exit status; 128+N when killed by signal N
	Signal      syscall.Signal // the signal that killed it, or 0
	TimedOut    bool           // killed because the context deadline or Profile.Timeout passed
	CPUTime     time.Duration  // user+system time of the program and the descendants it waited for
	PeakMemory  int64          // largest resident set size in bytes
	Duration    time.Duration  // wall clock from start to exit
	Protections []Protection   // the protections applied to this program
}

// SetupError reports that the jail could not be set up or the program could
// not be started; the program's own code never ran (or was killed before
// its first instruction). Stage names the failing step (for example
// "landlock_restrict_self", "exec", "cgroup").
type SetupError struct {
	Stage string
	Err   error
}

func (e *SetupError) Error() string { return fmt.Sprintf("jail: %s: %v", e.Stage, e.Err) }

// Unwrap returns the underlying error.
func (e *SetupError) Unwrap() error { return e.Err }

// MissingError is returned by New when a protection in Config.Require is not
// available on this host.
type MissingError struct {
	Protection Protection
	Detail     string // why it is missing
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("jail: required protection %s is not available: %s", e.Protection, e.Detail)
}

// Protection names one mechanism of the jail.
type Protection string

// The protections a jail can apply. See Probe and docs/jail.md for what each
// one guarantees.
const (
	Rlimits       Protection = "rlimits"        // CPU, address space, file size, open files, core 0
	NoNewPrivs    Protection = "no_new_privs"   // no privilege gain through setuid/file capabilities
	UIDDrop       Protection = "uid_drop"       // runs as an unprivileged uid/gid
	Landlock      Protection = "landlock"       // filesystem access limited to the roots
	LandlockExec  Protection = "landlock_exec"  // execution limited to the allowlisted programs
	LandlockNet   Protection = "landlock_net"   // TCP bind and connect denied
	LandlockScope Protection = "landlock_scope" // abstract Unix sockets and signals scoped to the jail
	UnixSockets   Protection = "unix_sockets"   // no Unix socket can be created: no daemon's socket is reachable
	NetNS         Protection = "netns"          // own network namespace with only loopback
	PIDNS         Protection = "pidns"          // own PID namespace: every descendant dies with the program
	CgroupPIDs    Protection = "cgroup_pids"    // per-program pids cgroup: process count bounded, tree enumerable
	ProcessGroup  Protection = "process_group"  // own process group, killed as a whole
	EnvScrub      Protection = "env_scrub"      // only the given environment, nothing inherited
)

// Status says whether a protection can be enforced on this host.
type Status struct {
	Protection Protection `json:"protection"`
	Active     bool       `json:"active"`
	Detail     string     `json:"detail"` // what it covers, or why it is missing
}

// Run starts c in the jail and waits for it and everything it started to
// end. The error is non-nil only when the jail could not be set up or the
// program could not be started, and is then a *SetupError; the program's
// own failure is reported in Result. Cancelling ctx or passing its deadline
// kills the whole tree (a deadline sets Result.TimedOut). Run is safe for
// concurrent use.
func (j *Jail) Run(ctx context.Context, c *Command) (*Result, error) {
	return j.run(ctx, c)
}

// Config returns a copy of the jail's configuration after defaults were
// applied.
func (j *Jail) Config() Config { return j.cfg }
