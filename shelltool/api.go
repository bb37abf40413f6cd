// Package shelltool is the `shell` tool an LLM agent uses for Agent Skills:
// one command string in, one result shaped for a model out.
//
// A call is parsed with mvdan.cc/sh/v3, checked as a whole against the
// Rego policy (the static phase), run by the shell interpreter whose
// handlers check every command again after expansion (the exec phase) and
// confine the files the interpreter opens itself, and each external
// program runs in the jail. A [Tool] is shared and safe for concurrent
// use; each call gets its own interpreter, so no state bleeds between
// calls. A [Session] keeps the working directory and shell variables
// between its calls, as an interactive shell does.
package shelltool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/skillsh/skillsh/jail"
	"github.com/skillsh/skillsh/policy"
	"github.com/skillsh/skillsh/shelltool/skills"
)

// Defaults for a Config's zero fields.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultOutputLimit = 64 << 10  // bytes kept of each stream, head and tail
	DefaultShellMemory = 512 << 20 // bytes the interpreter's own values may grow by in one call
	MaxCommandSize     = 64 << 10  // bytes of command text accepted
)

// Config configures a Tool. The zero value of each field means its
// default; Engine is required.
type Config struct {
	// Skills are the skills roots, read-only to commands.
	Skills []string
	// Workspace is the one writable directory and the starting working
	// directory. Empty means a fresh temporary directory, removed by
	// Tool.Close.
	Workspace string
	// Timeout bounds the wall-clock time of one call; default 30s.
	Timeout time.Duration
	// OutputLimit is how many bytes of each of stdout and stderr a result
	// keeps (half from the head, half from the tail); default 64 KiB.
	OutputLimit int
	// Engine decides commands. Required.
	Engine *policy.Engine
	// Jail configures the jail; its roots are filled in from Skills and
	// Workspace.
	Jail jail.Config
	// Approver is asked when the policy's decision is "ask"; nil means
	// nobody can approve and "ask" is a denial.
	Approver Approver
	// ShellMemory bounds how much the interpreter's own heap may grow
	// during one call (shell variables, $(...) output, which live in
	// skillsh, not in the jail); past it the call is stopped. Default 512
	// MiB. The heap is the process's, so concurrent calls share the bound.
	ShellMemory int64
	// HostEnv is the environment allowlisted variables are taken from;
	// nil means os.Environ().
	HostEnv []string
	// Log, when not nil, receives one record for every decision.
	Log DecisionLogger
}

// Approver is asked to approve a command the policy wants a person to
// confirm. It must be safe for concurrent use if the Tool is.
type Approver interface {
	Approve(ctx context.Context, req *ApprovalRequest) (bool, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req *ApprovalRequest) (bool, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req *ApprovalRequest) (bool, error) {
	return f(ctx, req)
}

// ApprovalRequest is what a person is asked to confirm.
type ApprovalRequest struct {
	Command string          // the whole command string
	Phase   policy.Phase    // static, or exec for one expanded command
	Argv    []string        // the expanded command, in the exec phase
	Reasons []policy.Reason // why the policy asks
}

// Tool is the shell tool: skills catalog, policy engine and jail. It is safe
// for concurrent use by multiple goroutines.
type Tool struct {
	cfg       Config
	jail      *jail.Jail
	catalog   []skills.Skill
	problems  []skills.Problem
	roots     policy.Roots
	pipes     string            // holds each session's pipes directory (the interpreter's TMPDIR, for its named pipes)
	sessions  atomic.Uint64     // sessions started, naming their pipes directories
	fileSize  int64             // the largest file the interpreter itself writes, as for programs
	env       []string          // the environment commands start with
	base      map[string]string // env as a map
	withheld  []string          // host variables left out, by name
	tempSpace bool              // the workspace was created by New
}

// New loads the skills, prepares the workspace and the jail. It fails when
// the Engine is missing, a skills root cannot be read, or a protection the
// jail config requires is missing.
func New(cfg Config) (*Tool, error) {
	if cfg.Engine == nil {
		return nil, errors.New("shelltool: no policy engine")
	}
	t := &Tool{cfg: cfg}
	t.applyDefaults()
	if err := t.prepareWorkspace(); err != nil {
		return nil, err
	}
	if err := t.loadSkills(); err != nil {
		t.Close()
		return nil, err
	}
	if err := t.startJail(); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

func (t *Tool) applyDefaults() {
	if t.cfg.Timeout <= 0 {
		t.cfg.Timeout = DefaultTimeout
	}
	if t.cfg.OutputLimit <= 0 {
		t.cfg.OutputLimit = DefaultOutputLimit
	}
	if t.cfg.ShellMemory <= 0 {
		t.cfg.ShellMemory = DefaultShellMemory
	}
	if t.cfg.HostEnv == nil {
		t.cfg.HostEnv = os.Environ()
	}
}

func (t *Tool) prepareWorkspace() error {
	ws := t.cfg.Workspace
	if ws == "" {
		dir, err := os.MkdirTemp("", "skillsh-workspace-")
		if err != nil {
			return fmt.Errorf("shelltool: create workspace: %w", err)
		}
		ws, t.tempSpace = dir, true
		t.cfg.Jail.ChownWorkspace = true
	}
	real, err := realDir(ws)
	if err != nil {
		return fmt.Errorf("shelltool: workspace: %w", err)
	}
	t.roots.Workspace = real
	return nil
}

// realDir makes dir absolute and resolves its symlinks; it must be an
// existing directory.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return real, nil
}

func (t *Tool) loadSkills() error {
	for _, root := range t.cfg.Skills {
		real, err := realDir(root)
		if err != nil {
			return fmt.Errorf("shelltool: skills root: %w", err)
		}
		t.roots.Skills = append(t.roots.Skills, real)
	}
	if len(t.roots.Skills) == 0 {
		return nil
	}
	catalog, problems, err := skills.Discover(t.roots.Skills...)
	if err != nil {
		return fmt.Errorf("shelltool: %w", err)
	}
	t.catalog, t.problems = catalog, problems
	return nil
}

func (t *Tool) startJail() error {
	if err := t.makePipes(); err != nil {
		return err
	}
	jc := t.cfg.Jail
	jc.Pipes = t.pipes
	jc.ReadOnly = append(append([]string{}, t.roots.Skills...), jc.ReadOnly...)
	jc.ReadWrite = append([]string{t.roots.Workspace}, jc.ReadWrite...)
	if len(jc.Executables) == 0 {
		jc.Executables = resolvePrograms(t.cfg.Engine.Executables())
	}
	j, err := jail.New(jc)
	if err != nil {
		return fmt.Errorf("shelltool: %w", err)
	}
	t.jail = j
	t.fileSize = jc.Limits.Or(jail.DefaultProfile()).FileSize
	t.env, t.withheld = jail.Environment(t.cfg.HostEnv, t.roots.Workspace)
	t.base = map[string]string{}
	for _, kv := range t.env {
		name, value, _ := strings.Cut(kv, "=")
		t.base[name] = value
	}
	return nil
}

// makePipes creates the interpreter's own temporary directory, where it
// makes the named pipes of process substitutions. The interpreter opens
// those pipes without its open handler, so no program may create anything
// there: the directory is the caller's, mode 0711, and the jail's Landlock
// rule for it grants opening files only, not creating or removing them.
func (t *Tool) makePipes() error {
	dir, err := os.MkdirTemp("", "skillsh-pipes-")
	if err == nil {
		err = os.Chmod(dir, 0o711)
	}
	if err == nil {
		t.pipes, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return fmt.Errorf("shelltool: pipes directory: %w", err)
	}
	return nil
}

// resolvePrograms turns the policy's program names into absolute paths
// through the jail's PATH; names not installed are left out. Absolute
// paths are kept as they are.
func resolvePrograms(names []string) []string {
	var out []string
	for _, name := range names {
		if filepath.IsAbs(name) {
			out = append(out, name)
			continue
		}
		for _, dir := range filepath.SplitList(policy.DefaultPath) {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// Close removes the interpreter's pipes directory and a workspace that New
// created. It is safe to call more than once.
func (t *Tool) Close() error {
	if t.pipes != "" {
		os.RemoveAll(t.pipes)
		t.pipes = ""
	}
	if !t.tempSpace {
		return nil
	}
	t.tempSpace = false
	return os.RemoveAll(t.roots.Workspace)
}

// Workspace returns the absolute path of the workspace.
func (t *Tool) Workspace() string { return t.roots.Workspace }

// Roots returns the skills roots and the workspace, resolved.
func (t *Tool) Roots() policy.Roots { return t.roots }

// Skills returns the loaded skills catalog and the problems found loading
// it (warnings about skills loaded leniently or skipped).
func (t *Tool) Skills() ([]skills.Skill, []skills.Problem) { return t.catalog, t.problems }

// Withheld returns the names of the host variables commands do not see.
func (t *Tool) Withheld() []string { return t.withheld }

// Protections returns the jail protections in force on this host.
func (t *Tool) Protections() []string {
	var out []string
	for _, s := range jail.Probe() {
		if s.Active {
			out = append(out, string(s.Protection))
		}
	}
	return out
}

// Run runs one tool call in a fresh session: the working directory starts
// in the workspace and nothing is kept afterwards. See Session.Run.
func (t *Tool) Run(ctx context.Context, command string) *Result {
	return t.NewSession().Run(ctx, command)
}
