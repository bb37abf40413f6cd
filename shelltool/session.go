package shelltool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/skillsh/skillsh/jail"
	"github.com/skillsh/skillsh/policy"
)

// Session is a sequence of calls that share a working directory, shell
// variables and functions, as an interactive shell does. Its calls are
// serialised: a Session is safe for concurrent use, but runs one call at a
// time.
type Session struct {
	tool   *Tool
	mu     sync.Mutex
	runner *interp.Runner
	pipes  string // the session's own pipes directory, under the tool's
}

// NewSession starts a session in the workspace.
func (t *Tool) NewSession() *Session {
	return &Session{tool: t, pipes: filepath.Join(t.pipes, "s"+strconv.FormatUint(t.sessions.Add(1), 10))}
}

// openPipes creates the session's pipes directory for a call: each session
// has its own, so that one call's watcher never sees, counts or releases
// another session's pipes. The interpreter makes its pipes there for the
// session's whole life; closePipes removes it when a call leaves it empty.
func (s *Session) openPipes() error {
	if err := os.Mkdir(s.pipes, 0o711); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("shelltool: pipes directory: %w", err)
	}
	return os.Chmod(s.pipes, 0o711)
}

func (s *Session) closePipes() { os.Remove(s.pipes) }

// Dir returns the session's working directory.
func (s *Session) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runner == nil {
		return s.tool.roots.Workspace
	}
	return s.runner.Dir
}

// Run runs one command string and returns its result; it never returns
// nil. The exit status follows the command-line contract: the command's
// own, 124 on timeout, 126 when refused, 2 for input that does not parse,
// 125 when the jail could not be set up.
func (s *Session) Run(ctx context.Context, command string) *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newCall(command)
	c.run(ctx)
	return c.finish()
}

// call is the state of one tool call.
type call struct {
	s        *Session
	tool     *Tool
	command  string
	file     *syntax.File
	res      *Result
	stdout   *jail.Capture
	stderr   *jail.Capture
	start    time.Time
	approved map[string]bool // reason keys a person approved in this call
	running  sync.WaitGroup  // jailed programs still running
	programs int             // how many, for MaxPrograms
	cpu      time.Duration
	peak     int64
	protect  map[string]bool
	mu       sync.Mutex // guards programs, cpu, peak and protect
}

func (s *Session) newCall(command string) *call {
	t := s.tool
	return &call{
		s: s, tool: t, command: command,
		res:      &Result{Command: command, Workspace: t.roots.Workspace, Reasons: []policy.Reason{}},
		stdout:   jail.NewCapture(t.cfg.OutputLimit),
		stderr:   jail.NewCapture(t.cfg.OutputLimit),
		start:    time.Now(),
		approved: map[string]bool{},
		protect:  map[string]bool{},
	}
}

func (c *call) run(ctx context.Context) {
	file, err := parseCommand(c.command)
	if err != nil {
		c.inputError(err)
		return
	}
	c.file = file
	in := c.s.staticInput(c.command, file)
	dctx, cancel := context.WithTimeout(ctx, c.tool.cfg.Timeout) // the policy too answers within the call's time
	d, err := c.tool.cfg.Engine.Decide(dctx, in)
	cancel()
	c.tool.log(ctx, in, d, err)
	c.res.Decision, c.res.Reasons = d.Verdict, d.Reasons
	if !c.permit(ctx, d, &ApprovalRequest{Command: c.command, Phase: policy.PhaseStatic, Reasons: d.Reasons}) {
		c.refuse()
		return
	}
	c.execute(ctx, d.Profile)
}

// permit reports whether a decision lets the command go on, asking the
// approver when the policy asks.
func (c *call) permit(ctx context.Context, d policy.Decision, req *ApprovalRequest) bool {
	switch d.Verdict {
	case policy.Allow:
		return true
	case policy.Ask:
		return c.approve(ctx, req)
	}
	return false
}

func (c *call) approve(ctx context.Context, req *ApprovalRequest) bool {
	if c.allApproved(req.Reasons) {
		return true
	}
	ap := c.tool.cfg.Approver
	if ap == nil {
		c.res.Notes = append(c.res.Notes, "the policy asks a person to approve this command, and no one can be asked here")
		return false
	}
	ok, err := ap.Approve(ctx, req)
	if err != nil || !ok {
		c.res.Notes = append(c.res.Notes, "a person did not approve this command")
		return false
	}
	for _, r := range req.Reasons {
		c.approved[approvalKey(r)] = true
	}
	c.res.Approved = true
	return true
}

// allApproved reports whether every reason was already approved in this
// call, so the exec phase does not ask again about what the static phase
// asked.
func (c *call) allApproved(reasons []policy.Reason) bool {
	if len(reasons) == 0 {
		return false
	}
	for _, r := range reasons {
		if !c.approved[approvalKey(r)] {
			return false
		}
	}
	return true
}

func approvalKey(r policy.Reason) string { return r.Code }

func (c *call) refuse() {
	c.res.ExitCode = ExitRefused
	c.res.Refused = true
	if c.res.Decision == policy.Allow {
		c.res.Decision = policy.Deny
	}
}

func (c *call) inputError(err error) {
	c.res.ExitCode = ExitUsage
	c.res.Decision = policy.Deny
	c.res.Error = err.Error()
}

// execute runs the parsed command in the session's interpreter.
func (c *call) execute(ctx context.Context, profile *policy.Profile) {
	timeout := c.tool.cfg.Timeout
	if profile != nil && profile.TimeoutSeconds > 0 {
		timeout = time.Duration(profile.TimeoutSeconds * float64(time.Second))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go watchMemory(ctx, stop, c.tool.cfg.ShellMemory)
	if err := c.s.openPipes(); err != nil {
		c.setupError(err)
		return
	}
	defer c.s.closePipes()
	watched := make(chan struct{})
	go func() { watchPipes(ctx, stop, c.s.pipes); close(watched) }()
	r, err := c.s.runnerFor(c)
	if err != nil {
		cancel()
		<-watched
		c.setupError(err)
		return
	}
	err = r.Run(ctx, c.file)
	if cause := context.Cause(ctx); errors.Is(cause, errShellMemory) || errors.Is(cause, errPipesWrite) || errors.Is(cause, errTooManyPipes) {
		err = cause
	}
	cancel() // ends background programs with the call
	<-watched
	c.running.Wait()
	if strays, _ := scanPipes(c.s.pipes); strays {
		err = errPipesWrite
	}
	releasePipes(c.s.pipes) // also those made after the watcher's release, while the last statement ended
	c.exitStatus(ctx, err)
}

// errPipesWrite stops a call that wrote into the interpreter's pipes
// directory; errTooManyPipes one with too many process substitutions open.
var (
	errPipesWrite   = errors.New("a command wrote a file into the shell's pipes directory, which holds only the named pipes of process substitutions; the file was removed and the call stopped")
	errTooManyPipes = fmt.Errorf("more than %d process substitutions were waiting to be opened at once; the call was stopped", MaxProcessSubstitutions)
)

// watchPipes watches the interpreter's pipes directory while ctx lasts.
// The interpreter opens paths there itself, as root and without the open
// handler, so a redirection such as > "${f%/*}/sh-interp-x" (f from
// <(...)) is seen only here: such a file is removed and the call stopped.
// So is a call with more than MaxProcessSubstitutions pipes waiting (each
// holds a goroutine, and a thread, blocked in its open). When ctx ends,
// the pipes left are released (see releasePipes). It polls: a file may
// grow for one interval, or, written by a program, up to the program's
// file size limit.
func watchPipes(ctx context.Context, stop context.CancelCauseFunc, dir string) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			releasePipes(dir)
			return
		case <-tick.C:
			switch strays, pipes := scanPipes(dir); {
			case strays:
				stop(errPipesWrite)
			case pipes > MaxProcessSubstitutions:
				stop(errTooManyPipes)
			}
		}
	}
}

// releasePipes opens every named pipe left in dir at both ends and closes
// it, so that the process substitution blocked in opening its own end goes
// on and ends (it finds no reader, or nothing to read), and removes it.
// Without it, a pipe never opened (echo >(cat)) holds a goroutine and a
// thread for ever, and a wait for it never returns.
func releasePipes(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Type()&fs.ModeNamedPipe == 0 {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		os.Remove(p)
	}
}

// scanPipes removes every entry of dir that is not a named pipe, reports
// whether there was one, and counts the named pipes. A dir that cannot be
// read has neither.
func scanPipes(dir string) (strays bool, pipes int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, 0
	}
	for _, e := range entries {
		if e.Type()&fs.ModeNamedPipe == 0 {
			os.RemoveAll(filepath.Join(dir, e.Name()))
			strays = true
		} else {
			pipes++
		}
	}
	return strays, pipes
}

// errShellMemory stops a call whose shell values grew too large.
var errShellMemory = errors.New("the shell's own values (variables, $(...) output, function recursion) grew past their memory limit; the call was stopped")

// watchMemory stops the call through stop when the process's heap objects
// and goroutine stacks (deep function recursion) grow by more than limit
// bytes while ctx lasts. It polls, so it may overshoot by what the call
// allocates in one interval.
func watchMemory(ctx context.Context, stop context.CancelCauseFunc, limit int64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	heap := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64() + sample[1].Value.Uint64())
	}
	base := heap()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if heap()-base > limit {
				stop(errShellMemory)
				return
			}
		}
	}
}

func (c *call) exitStatus(ctx context.Context, err error) {
	var denied *refusal
	var setup *jail.SetupError
	switch {
	case errors.Is(err, errShellMemory):
		c.res.ExitCode = ExitShellMemory
		c.res.Error = err.Error()
	case errors.Is(err, errPipesWrite), errors.Is(err, errTooManyPipes):
		c.res.ExitCode = ExitRefused
		c.res.Error = err.Error()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		c.res.TimedOut = true
		c.res.ExitCode = ExitTimeout
	case errors.As(err, &denied):
		c.res.Decision, c.res.Reasons = denied.decision.Verdict, denied.decision.Reasons
		c.refuse()
	case errors.As(err, &setup):
		c.setupError(err)
	case err == nil:
		c.res.ExitCode = 0
	default:
		var st interp.ExitStatus
		if errors.As(err, &st) {
			c.res.ExitCode = int(st)
			return
		}
		c.res.ExitCode = 1
		c.res.Error = err.Error()
	}
}

func (c *call) setupError(err error) {
	c.res.ExitCode = ExitJailSetup
	c.res.Error = err.Error()
}

// runnerFor returns the session's interpreter, wired to this call.
func (s *Session) runnerFor(c *call) (*interp.Runner, error) {
	h := &handlers{c: c}
	opts := []interp.RunnerOption{
		interp.StdIO(devNull(), c.stdout, c.stderr),
		interp.CallHandler(h.call),
		interp.ExecHandlers(h.exec),
		interp.OpenHandler(h.open),
		interp.ReadDirHandler2(h.readDir),
		interp.StatHandler(h.stat),
		interp.AccessHandler(h.access),
	}
	if s.runner == nil {
		r, err := interp.New(append(opts,
			interp.Env(expand.ListEnviron(s.runnerEnv()...)),
			interp.Dir(s.tool.roots.Workspace),
		)...)
		if err != nil {
			return nil, err
		}
		s.runner = r
		return r, nil
	}
	for _, o := range opts {
		if err := o(s.runner); err != nil {
			return nil, err
		}
	}
	return s.runner, nil
}

// staticInput builds the static-phase policy input in the session's
// current directory.
func (s *Session) staticInput(command string, file *syntax.File) *policy.Input {
	return policy.Build(command, file, s.facts(s.currentDir(), nil))
}

func (s *Session) currentDir() string {
	if s.runner == nil {
		return s.tool.roots.Workspace
	}
	return s.runner.Dir
}

// facts describes the session to the policy input builder.
func (s *Session) facts(dir string, funcs func(string) bool) *policy.Facts {
	t := s.tool
	return &policy.Facts{
		Cwd:       dir,
		Pipes:     s.pipes,
		Roots:     t.roots,
		Session:   t.sessionFacts(),
		Functions: funcs,
	}
}

func (t *Tool) sessionFacts() policy.Session {
	facts := make([]policy.SkillFact, len(t.catalog))
	for i, sk := range t.catalog {
		facts[i] = policy.SkillFact{Name: sk.Name, Dir: sk.Dir, Location: sk.Location, AllowedTools: nonNil(sk.AllowedTools)}
	}
	return policy.Session{Home: t.roots.Workspace, Skills: facts, Protections: nonNil(t.Protections())}
}

// runnerEnv is the interpreter's environment: the programs' one, except
// TMPDIR, which is the session's pipes directory, where the interpreter
// makes its named pipes. Programs get the workspace's TMPDIR back
// (programEnv).
func (s *Session) runnerEnv() []string {
	env := make([]string, 0, len(s.tool.env)+1)
	for _, kv := range s.tool.env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return append(env, "TMPDIR="+s.pipes)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// parseCommand refuses input a model should never send and parses the
// rest as bash.
func parseCommand(command string) (*syntax.File, error) {
	switch {
	case strings.IndexByte(command, 0) >= 0:
		return nil, &InputError{Msg: "the command contains a NUL byte"}
	case len(command) > MaxCommandSize:
		return nil, &InputError{Msg: "the command is longer than " + sizeString(MaxCommandSize)}
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return nil, &InputError{Msg: pe.Text, Line: int(pe.Pos.Line()), Col: int(pe.Pos.Col())}
		}
		return nil, &InputError{Msg: err.Error()}
	}
	if len(file.Stmts) == 0 {
		return nil, &InputError{Msg: "the command is empty (only blanks or comments)"}
	}
	if depth, procs := substitutions(file); depth > MaxSubstitutionDepth {
		return nil, &InputError{Msg: fmt.Sprintf("substitutions are nested %d deep; at most %d", depth, MaxSubstitutionDepth)}
	} else if procs > MaxProcessSubstitutions {
		return nil, &InputError{Msg: fmt.Sprintf("the command has %d process substitutions; at most %d", procs, MaxProcessSubstitutions)}
	}
	return file, nil
}

// Bounds on a command's shape, checked before anything is decided: deeper
// nesting makes the policy input grow with its square, and every process
// substitution is a named pipe and a goroutine blocked until it is opened.
const (
	MaxSubstitutionDepth    = 32
	MaxProcessSubstitutions = 64
)

// substitutions returns how deep command and process substitutions nest
// in node, and how many process substitutions it has.
func substitutions(node syntax.Node) (depth, procs int) {
	syntax.Walk(node, func(n syntax.Node) bool {
		var stmts []*syntax.Stmt
		switch n := n.(type) {
		case *syntax.CmdSubst:
			stmts = n.Stmts
		case *syntax.ProcSubst:
			stmts, procs = n.Stmts, procs+1
		default:
			return true
		}
		inner := 0
		for _, s := range stmts {
			d, p := substitutions(s)
			inner, procs = max(inner, d), procs+p
		}
		depth = max(depth, inner+1)
		return false
	})
	return depth, procs
}

// devNull is opened once; programs without input read from it.
var devNull = sync.OnceValue(func() *os.File {
	f, _ := os.Open(os.DevNull)
	return f
})
