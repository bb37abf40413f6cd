package jail

import (
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/skillsh/skillsh/jail/internal/helper"
)

// process is a started program.
type process struct {
	pid         int
	status      *os.File // read end of the helper's StatusFD pipe
	cg          *cgroup  // nil without a pids cgroup
	protections []Protection
}

// start runs the helper, places it in the program's cgroup, hands it the
// spec and waits until it has executed the program or reported why not.
func (j *Jail) start(c *Command, s *stdio, prof Profile) (_ *process, err error) {
	p := &process{protections: clone(j.plan.protections)}
	if j.plan.cgroupRoot != "" {
		if p.cg, err = newCgroup(j.plan.cgroupRoot, prof.Processes); err != nil {
			return nil, &SetupError{Stage: "cgroup", Err: err}
		}
	}
	specR, specW, err := os.Pipe()
	if err != nil {
		p.cleanup()
		return nil, &SetupError{Stage: "pipe", Err: err}
	}
	defer specW.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		specR.Close()
		p.cleanup()
		return nil, &SetupError{Stage: "pipe", Err: err}
	}
	defer errR.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		specR.Close()
		errW.Close()
		p.cleanup()
		return nil, &SetupError{Stage: "pipe", Err: err}
	}
	p.status = statusR
	err = j.spawn(p, c, s, []*os.File{specR, errW, statusW})
	specR.Close()
	errW.Close()
	statusW.Close()
	if err != nil {
		p.cleanup()
		return nil, err
	}
	if err := p.handOver(j.spec(c, prof, p.cg != nil), specW, errR); err != nil {
		p.abort()
		return nil, err
	}
	return p, nil
}

// spawn starts the helper with the program's stdio and, as descriptors
// 3, 4 and 5, the helper's pipes.
func (j *Jail) spawn(p *process, c *Command, s *stdio, pipes []*os.File) error {
	attr := &os.ProcAttr{
		Dir:   j.dir(c),
		Env:   []string{helper.EnvVar + "=1"},
		Files: append([]*os.File{s.files[0], s.files[1], s.files[2]}, pipes...),
		Sys: &syscall.SysProcAttr{
			Setpgid:    true,
			Pdeathsig:  syscall.SIGKILL,
			Cloneflags: j.plan.cloneflags,
		},
	}
	proc, err := os.StartProcess(j.plan.exe, []string{helper.Name}, attr)
	if err != nil {
		return &SetupError{Stage: "start_helper", Err: err}
	}
	p.pid = proc.Pid
	_ = proc.Release()
	return nil
}

// handOver moves the helper into its cgroup before it can fork, sends the
// spec and reads the helper's verdict: EOF means the program was executed.
func (p *process) handOver(spec []byte, specW, errR *os.File) error {
	if p.cg != nil {
		if err := p.cg.add(p.pid); err != nil {
			return &SetupError{Stage: "cgroup", Err: err}
		}
	}
	if _, err := specW.Write(spec); err != nil {
		return &SetupError{Stage: "write_spec", Err: err}
	}
	specW.Close()
	msg, err := io.ReadAll(errR)
	if err != nil {
		return &SetupError{Stage: "read_status", Err: err}
	}
	if len(msg) > 0 {
		return helperError(msg)
	}
	return nil
}

// helperError decodes "stage\x00errno" from the helper.
func helperError(msg []byte) error {
	stage, num, _ := strings.Cut(string(msg), "\x00")
	n, err := strconv.Atoi(num)
	if err != nil {
		return &SetupError{Stage: stage, Err: errors.New("malformed helper report")}
	}
	return &SetupError{Stage: stage, Err: syscall.Errno(n)}
}

// abort kills and reaps a helper that failed, and removes its cgroup.
func (p *process) abort() {
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
	reap(p.pid)
	p.cleanup()
}

func (p *process) cleanup() {
	if p.cg != nil {
		p.cg.remove()
	}
	if p.status != nil {
		p.status.Close()
	}
}

// programStatus returns the program's wait status as its init reported it,
// or ws, the helper's own, when the helper executed the program itself or
// was killed before it could report.
func (p *process) programStatus(ws syscall.WaitStatus) syscall.WaitStatus {
	if p.status == nil {
		return ws
	}
	b, err := io.ReadAll(p.status)
	if err != nil || len(b) != 4 {
		return ws
	}
	return syscall.WaitStatus(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}

// spec is what the helper does for c.
func (j *Jail) spec(c *Command, prof Profile, haveCgroup bool) []byte {
	args := c.Args
	if len(args) == 0 {
		args = []string{c.Path}
	}
	env := c.Env
	if env == nil {
		env = []string{}
	}
	s := &helper.Spec{
		Path: c.Path, Args: args, Env: env,
		Rlimits:    rlimits(prof, haveCgroup),
		DropUID:    j.plan.dropUID,
		UID:        j.plan.uid,
		GID:        j.plan.gid,
		LoopbackUp: j.plan.cloneflags&syscall.CLONE_NEWNET != 0,
		Init:       j.plan.cloneflags&syscall.CLONE_NEWPID != 0,
		Landlock:   j.plan.landlock,
		// Applied last, after Landlock: the filter refuses nothing the
		// helper still needs.
		DenyUnixSockets: j.plan.denyUnix,
	}
	return s.Marshal()
}

const rlimitNproc = 6 // RLIMIT_NPROC

// rlimits turns prof into resource limits. The CPU hard limit is one
// second above the soft one: SIGXCPU first, SIGKILL a second later.
// RLIMIT_NPROC counts every process of the uid on the host, so it is used
// only when there is no pids cgroup.
func rlimits(prof Profile, haveCgroup bool) []helper.Rlimit {
	cpu := uint64(math.Ceil(prof.CPU.Seconds()))
	out := []helper.Rlimit{
		{Resource: syscall.RLIMIT_CPU, Cur: cpu, Max: cpu + 1},
		{Resource: syscall.RLIMIT_AS, Cur: uint64(prof.Memory), Max: uint64(prof.Memory)},
		{Resource: syscall.RLIMIT_FSIZE, Cur: uint64(prof.FileSize), Max: uint64(prof.FileSize)},
		{Resource: syscall.RLIMIT_NOFILE, Cur: prof.OpenFiles, Max: prof.OpenFiles},
		{Resource: syscall.RLIMIT_CORE},
	}
	if !haveCgroup {
		out = append(out, helper.Rlimit{Resource: rlimitNproc, Cur: prof.Processes, Max: prof.Processes})
	}
	return out
}
