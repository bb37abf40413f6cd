package jail

import (
	"context"
	"errors"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// run is one program's life: start, watch the clock, reap, clean up.
func (j *Jail) run(ctx context.Context, c *Command) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, &SetupError{Stage: "start", Err: err}
	}
	if c == nil || c.Path == "" {
		return nil, &SetupError{Stage: "command", Err: errors.New("no program path")}
	}
	prof := c.Profile.Or(j.plan.limits)
	io, err := openStdio(c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		return nil, &SetupError{Stage: "stdio", Err: err}
	}
	start := time.Now()
	p, err := j.start(c, io, prof)
	io.started()
	if err != nil {
		io.closeAll()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, prof.Timeout)
	defer cancel()
	res := j.wait(ctx, p)
	res.Duration = time.Since(start)
	io.wait()
	return res, nil
}

func (j *Jail) dir(c *Command) string {
	if c.Dir != "" {
		return c.Dir
	}
	return j.plan.workspace
}

// wait reaps the program, killing its process group when ctx ends, and
// kills whatever is left of the group once the program has exited.
func (j *Jail) wait(ctx context.Context, p *process) *Result {
	done := make(chan struct{})
	killed := make(chan bool, 1)
	go func() {
		select {
		case <-ctx.Done():
			killTree(p)
			killed <- errors.Is(ctx.Err(), context.DeadlineExceeded)
		case <-done:
			killed <- false
		}
	}()
	waitExit(p.pid)
	close(done)
	timedOut := <-killed
	killTree(p) // before reaping, so the group id cannot have been reused
	ws, ru := reap(p.pid)
	ws = p.programStatus(ws)
	p.cleanup()
	return result(ws, ru, timedOut, p.protections)
}

// killTree kills the program's process group and, through its cgroup,
// whatever left the group. In a PID namespace, killing the helper (the
// namespace's init) already ends every descendant.
func killTree(p *process) {
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	if p.cg != nil {
		p.cg.kill()
	}
}

// waitExit returns once pid has exited, leaving it a zombie.
func waitExit(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

func reap(pid int) (syscall.WaitStatus, syscall.Rusage) {
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err := syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			return ws, ru
		}
	}
}

func result(ws syscall.WaitStatus, ru syscall.Rusage, timedOut bool, prot []Protection) *Result {
	r := &Result{
		TimedOut:    timedOut,
		CPUTime:     time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		PeakMemory:  ru.Maxrss * 1024,
		Protections: prot,
	}
	switch {
	case ws.Signaled():
		r.Signal = ws.Signal()
		r.ExitCode = 128 + int(r.Signal)
	default:
		r.ExitCode = ws.ExitStatus()
	}
	return r
}
