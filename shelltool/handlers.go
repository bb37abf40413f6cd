package shelltool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/skillsh/skillsh/jail"
	"github.com/skillsh/skillsh/policy"
)

// handlers are the interpreter's handlers for one call.
type handlers struct {
	c *call
}

// call is the exec-phase check of builtins and function calls: each,
// after expansion, is decided again by the same policy, and a refusal
// halts the run. External programs are decided by runJailed, right before
// they start, so that each command is decided once and its decision's jail
// profile reaches the jail.
func (h *handlers) call(ctx context.Context, args []string) ([]string, error) {
	if !h.c.s.isFunction(args[0]) && !interp.IsBuiltin(args[0]) {
		return args, nil
	}
	if _, err := h.decideExec(ctx, judged(args, interp.HandlerCtx(ctx).Env)); err != nil {
		return nil, err
	}
	return args, nil
}

// judged returns the argv the policy judges for args. `cd -` goes to
// $OLDPWD and a bare `cd` to $HOME, which a command can set to anything
// (${HOME:=...}), so those directories are what is decided on, also when
// reached through `builtin cd` or `command cd`; `pushd -` enters a
// directory named "-".
func judged(args []string, env expand.Environ) []string {
	i := 0
	for i < len(args)-1 && (args[i] == "builtin" || args[i] == "command") {
		i++
	}
	if args[i] == "pushd" && len(args) == i+2 && args[i+1] == "-" {
		return append(slices.Clone(args[:i+1]), "./-") // pushd has no "-": it is a directory
	}
	if args[i] != "cd" {
		return args
	}
	out := slices.Clone(args)
	switch rest := args[i+1:]; {
	case len(rest) == 0:
		out = append(out, env.Get("HOME").String())
	case len(rest) == 1 && rest[0] == "-":
		out[i+1] = env.Get("OLDPWD").String()
	}
	return out
}

// decideExec decides one expanded command; a refusal is a *refusal error.
func (h *handlers) decideExec(ctx context.Context, args []string) (policy.Decision, error) {
	c := h.c
	hc := interp.HandlerCtx(ctx)
	in := policy.BuildExec(c.command, args, hc.Pos, c.s.facts(hc.Dir, c.s.isFunction))
	in.Commands[0].Assigns = h.changedEnv(hc)
	d, err := c.tool.cfg.Engine.Decide(ctx, in)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return d, ctxErr // the call ended (its timeout): not the policy's failure
	}
	c.tool.log(ctx, in, d, err)
	req := &ApprovalRequest{Command: c.command, Phase: policy.PhaseExec, Argv: args, Reasons: d.Reasons}
	if !c.permit(ctx, d, req) {
		return d, &refusal{decision: d}
	}
	return d, nil
}

// changedEnv lists the variables in force for the command that differ
// from the environment the session started with: the exported ones,
// whether written in front of the command or exported before; and,
// exported or not, the ones the shell itself resolves names with: the
// fixed variables (PATH: the shell looks programs up in it, for type -P,
// command -v, source, as root) and PWD when it is not the working
// directory (pwd -P resolves it, as root). Programs get the fixed values
// whatever a command sets; the policy judges the assignment all the same.
func (h *handlers) changedEnv(hc interp.HandlerContext) []policy.Assign {
	base := h.c.tool.baseEnv()
	fixed := h.c.s.runnerFixed()
	out := []policy.Assign{}
	hc.Env.Each(func(name string, vr expand.Variable) bool {
		value, isFixed := fixed[name]
		// The shell's own lookups take an array's first element.
		switch str := vr.String(); {
		case name == "PWD":
			if str != hc.Dir {
				out = append(out, policy.Assign{Name: name, Value: str})
			}
		case isFixed:
			if str != value {
				out = append(out, policy.Assign{Name: name, Value: str})
			}
		case vr.Kind != expand.String:
		case vr.Exported && base[name] != vr.Str:
			out = append(out, policy.Assign{Name: name, Value: vr.Str})
		}
		return true
	})
	return out
}

func (s *Session) isFunction(name string) bool {
	return s.runner != nil && s.runner.Funcs[name] != nil
}

// exec is the last link of the interpreter's exec chain: it runs the
// program in the jail and never falls through to the interpreter's default
// handler, which would run a script without a #! line in a fresh
// interpreter that has none of these checks.
func (h *handlers) exec(_ interp.ExecHandlerFunc) interp.ExecHandlerFunc {
	return h.runJailed
}

func (h *handlers) runJailed(ctx context.Context, args []string) error {
	c := h.c
	hc := interp.HandlerCtx(ctx)
	d, err := h.decideExec(ctx, args)
	if err != nil {
		return err
	}
	path, err := interp.LookPathDir(hc.Dir, expand.ListEnviron("PATH="+c.tool.fixedEnv()["PATH"]), args[0])
	if err != nil {
		fmt.Fprintf(hc.Stderr, "%s: command not found\n", args[0])
		return interp.ExitStatus(127)
	}
	if within(policy.ResolvePath(path), c.tool.roots.Workspace) {
		// The jail executes only the allowlisted programs and the skills'
		// scripts: what a command wrote cannot run as a program.
		fmt.Fprintf(hc.Stderr, "%s: files in the workspace cannot be executed; run a script with its interpreter instead: bash %s, python3 %s\n", args[0], args[0], args[0])
		return interp.ExitStatus(126)
	}
	if !c.startProgram() {
		fmt.Fprintf(hc.Stderr, "%s: %d programs of this call are running already; wait for some to end (wait) before starting more\n", args[0], MaxPrograms)
		return interp.ExitStatus(ExitRefused)
	}
	defer c.endProgram()
	res, err := c.tool.jail.Run(ctx, &jail.Command{
		Path:    path,
		Args:    args,
		Dir:     hc.Dir,
		Env:     c.tool.programEnv(hc.Env),
		Stdin:   stdio(hc.Stdin),
		Stdout:  stdio(hc.Stdout),
		Stderr:  stdio(hc.Stderr),
		Profile: jailProfile(d.Profile),
	})
	if err != nil {
		return err // a *jail.SetupError halts the run
	}
	c.account(res)
	if res.TimedOut && ctx.Err() != nil {
		return ctx.Err()
	}
	if res.ExitCode == 0 {
		return nil // the interpreter wants no error for success
	}
	return interp.ExitStatus(uint8(res.ExitCode))
}

// jailProfile converts a policy's profile into the jail's; zero fields
// keep the jail's defaults.
func jailProfile(p *policy.Profile) jail.Profile {
	if p == nil {
		return jail.Profile{}
	}
	return jail.Profile{
		Timeout:   time.Duration(p.TimeoutSeconds * float64(time.Second)),
		CPU:       time.Duration(p.CPUSeconds * float64(time.Second)),
		Memory:    p.MemoryBytes,
		FileSize:  p.FileSizeBytes,
		Processes: uint64(max(p.Processes, 0)),
	}
}

// MaxPrograms bounds the jailed programs one call runs at once (in the
// background): each may have its own Profile.Processes, so without it a
// loop of background programs would multiply the process limit.
const MaxPrograms = 32

// startProgram counts a program the call starts; false when MaxPrograms
// are running already.
func (c *call) startProgram() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.programs >= MaxPrograms {
		return false
	}
	c.programs++
	c.running.Add(1)
	return true
}

func (c *call) endProgram() {
	c.mu.Lock()
	c.programs--
	c.mu.Unlock()
	c.running.Done()
}

// account adds a program's resource use to the call's.
func (c *call) account(res *jail.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cpu += res.CPUTime
	c.peak = max(c.peak, res.PeakMemory)
	for _, p := range res.Protections {
		c.protect[string(p)] = true
	}
}

// programEnv is the environment a program gets: the session's fixed
// environment, plus what the command exported, except for the variables
// the jail fixes.
func (t *Tool) programEnv(env expand.Environ) []string {
	vars := maps.Clone(t.baseEnv())
	env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.Kind == expand.String {
			vars[name] = vr.Str
		}
		return true
	})
	for name, value := range t.fixedEnv() {
		vars[name] = value
	}
	out := make([]string, 0, len(vars))
	for _, name := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, name+"="+vars[name])
	}
	return out
}

// fixedEnv are the variables no command may change for the programs it
// runs.
func (t *Tool) fixedEnv() map[string]string {
	fixed := map[string]string{}
	for name, value := range t.baseEnv() {
		switch name {
		case "PATH", "HOME", "TMPDIR", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL":
			fixed[name] = value
		}
	}
	return fixed
}

func (t *Tool) baseEnv() map[string]string { return t.base }

// runnerFixed are the fixed variables as the session's shell starts with
// them: TMPDIR is its pipes directory (see runnerEnv).
func (s *Session) runnerFixed() map[string]string {
	fixed := s.tool.fixedEnv()
	if _, ok := fixed["TMPDIR"]; ok {
		fixed["TMPDIR"] = s.pipes
	}
	return fixed
}

// open confines the files the interpreter opens itself (redirections):
// reads inside the skills roots, the workspace and harmless devices,
// writes inside the workspace. The open goes through an os.Root of the
// root that holds the resolved path, so a symlink swapped in later cannot
// lead outside it. /dev/stdout, /dev/stderr and /dev/stdin are the call's
// own streams, never skillsh's.
//
// Only regular files and directories are opened: a named pipe or socket a
// program left in the workspace would block the open, and with it the
// call, beyond its timeout. Files opened for writing are bounded like a
// program's writes (the jail's file size limit).
func (h *handlers) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	abs := absPath(hc.Dir, path)
	if dev := policy.DevicePathWith(abs, h.c.tool.resolve); dev != "" {
		return openDevice(ctx, hc, dev, flag, perm)
	}
	write := flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0
	root, rel, err := h.c.tool.confine(abs, write)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, flag|syscall.O_NONBLOCK, perm)
	if errors.Is(err, syscall.ENXIO) { // a named pipe opened for writing, with no reader
		return nil, &fs.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	if err != nil {
		return nil, err
	}
	if err := ordinary(f, path); err != nil {
		f.Close()
		return nil, err
	}
	if !write {
		return f, nil
	}
	h.c.tool.handOver(f)
	return &limitedFile{f: f, limit: h.c.tool.fileSize, append: flag&os.O_APPEND != 0}, nil
}

// ordinary checks that f is a regular file or a directory and puts it
// back in blocking mode; anything else is an error about path.
func ordinary(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() {
		return &fs.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	return syscall.SetNonblock(int(f.Fd()), false)
}

var errNotRegular = errors.New("not a regular file: the shell opens only files and directories (named pipes, sockets and devices other than /dev/null, /dev/zero and /dev/urandom are refused)")

// limitedFile is a file the interpreter writes itself, bounded as the
// jail bounds a program's writes (RLIMIT_FSIZE): no byte is written at or
// beyond offset limit; a write that reaches it writes what fits and fails
// with EFBIG. The offset is the file's own, so writes by a program handed
// the same file (see stdio) count too.
type limitedFile struct {
	f      *os.File
	limit  int64
	append bool
}

func (l *limitedFile) Read(p []byte) (int, error) { return l.f.Read(p) }

func (l *limitedFile) Write(p []byte) (int, error) {
	off, err := l.offset()
	if err != nil {
		return 0, err
	}
	fits := p[:min(int64(len(p)), max(l.limit-off, 0))]
	n, err := l.f.Write(fits)
	if err == nil && len(fits) < len(p) {
		err = &fs.PathError{Op: "write", Path: l.f.Name(), Err: syscall.EFBIG}
	}
	return n, err
}

// offset is where the next write lands: the end of the file when it is
// open for appending.
func (l *limitedFile) offset() (int64, error) {
	if l.append {
		fi, err := l.f.Stat()
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	return l.f.Seek(0, io.SeekCurrent)
}

func (l *limitedFile) Close() error { return l.f.Close() }

// stdio returns what a program gets for one of the interpreter's streams:
// the file itself for a file the interpreter opened, so that it is passed
// straight through.
func stdio[T any](s T) T {
	if l, ok := any(s).(*limitedFile); ok {
		if f, ok := any(l.f).(T); ok {
			return f
		}
	}
	return s
}

// openDevice opens a harmless device by its canonical path; the standard
// streams, by name or as /dev/fd/0-2, are the call's own.
func openDevice(ctx context.Context, hc interp.HandlerContext, dev string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	switch dev {
	case "/dev/stdin", "/dev/fd/0":
		return stream{r: hc.Stdin}, nil
	case "/dev/stdout", "/dev/fd/1":
		return stream{w: hc.Stdout}, nil
	case "/dev/stderr", "/dev/fd/2":
		return stream{w: hc.Stderr}, nil
	}
	if strings.HasPrefix(dev, "/dev/fd/") {
		return nil, &fs.PathError{Op: "open", Path: dev, Err: errors.New("only descriptors 0, 1 and 2 can be opened")}
	}
	f, err := os.OpenFile(dev, flag, perm)
	if err != nil || !endlessDevices[dev] || flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return f, err
	}
	return &boundedDevice{f: f, ctx: ctx, left: MaxDeviceRead, stderr: hc.Stderr}, nil
}

// endlessDevices never reach the end of the file.
var endlessDevices = map[string]bool{"/dev/zero": true, "/dev/urandom": true, "/dev/random": true, "/dev/full": true}

// MaxDeviceRead is how much the shell reads from a device that never ends
// (/dev/zero, /dev/urandom) that it opens for reading: $(< /dev/zero), read
// and mapfile would otherwise grow the shell's memory without end, and
// never look at the call's timeout. A redirection (prog < /dev/zero) goes
// through the shell too, so a program given one gets at most as much, and
// the call's stderr says so; a program that opens the device itself
// (head -c N /dev/zero) is not limited.
const MaxDeviceRead = 1 << 20

// boundedDevice reads at most left bytes from f, and nothing once ctx is
// done; at the bound it says so on stderr, once.
type boundedDevice struct {
	f      *os.File
	ctx    context.Context
	left   int64
	stderr io.Writer
	told   bool
}

func (d *boundedDevice) Read(p []byte) (int, error) {
	if err := d.ctx.Err(); err != nil {
		return 0, err
	}
	if d.left <= 0 {
		err := fmt.Errorf("skillsh: the shell passes at most %d MiB from %s; let the program open it (head -c N %s)", MaxDeviceRead>>20, d.f.Name(), d.f.Name())
		if !d.told && d.stderr != nil {
			fmt.Fprintln(d.stderr, err)
			d.told = true
		}
		return 0, err
	}
	if int64(len(p)) > d.left {
		p = p[:d.left]
	}
	n, err := d.f.Read(p)
	d.left -= int64(n)
	return n, err
}

func (d *boundedDevice) Write(p []byte) (int, error) { return d.f.Write(p) }

func (d *boundedDevice) Close() error { return d.f.Close() }

// stream is one of the call's standard streams opened by name; closing it
// leaves the stream open.
type stream struct {
	r io.Reader
	w io.Writer
}

func (s stream) Read(p []byte) (int, error) {
	if s.r == nil {
		return 0, errors.New("not open for reading")
	}
	return s.r.Read(p)
}

func (s stream) Write(p []byte) (int, error) {
	if s.w == nil {
		return 0, errors.New("not open for writing")
	}
	return s.w.Write(p)
}

func (stream) Close() error { return nil }

// handOver gives a file the interpreter created in the workspace to the
// uid programs run as, so that they can change it too. It does nothing
// when programs run as the caller's own uid.
func (t *Tool) handOver(f *os.File) {
	uid, gid, ok := t.jailOwner()
	if !ok {
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == uint32(os.Geteuid()) {
			f.Chown(uid, gid)
		}
	}
}

// jailOwner returns the uid and gid programs run as, when that differs
// from the caller's.
func (t *Tool) jailOwner() (uid, gid int, ok bool) {
	cfg := t.jail.Config()
	if os.Geteuid() != 0 || cfg.KeepUID {
		return 0, 0, false
	}
	return cfg.UID, cfg.GID, true
}

// confine finds the root that holds abs once its symlinks are followed and
// returns it with the path relative to it. Writes must land in the
// workspace.
func (t *Tool) confine(abs string, write bool) (root, rel string, err error) {
	return t.locate(abs, t.resolve(abs), write)
}

// resolve resolves abs's symlinks inside the roots and on the way to
// them; elsewhere it does not look (see policy.ResolvePathIn), so that a
// command learns nothing from the answers about what lies outside.
func (t *Tool) resolve(abs string) string { return policy.ResolvePathIn(abs, t.roots, "") }

// locate returns the root that holds real, the resolved form of abs, and
// real relative to it.
func (t *Tool) locate(abs, real string, write bool) (root, rel string, err error) {
	if within(real, t.roots.Workspace) {
		return relTo(t.roots.Workspace, real)
	}
	if !write {
		for _, s := range t.roots.Skills {
			if within(real, s) {
				return relTo(s, real)
			}
		}
		return "", "", &fs.PathError{Op: "open", Path: abs, Err: errOutsideRoots}
	}
	return "", "", &fs.PathError{Op: "open", Path: abs, Err: errWriteOutside}
}

// openRootOf opens the root that holds abs for reading, with abs relative
// to it. With follow false the last component of abs is not followed: it
// is the name inside its resolved directory. Whatever the caller does
// through the returned os.Root stays inside it, even if a program swaps a
// symbolic link in meanwhile. The caller closes the root.
func (t *Tool) openRootOf(abs string, follow bool) (*os.Root, string, error) {
	abs = filepath.Clean(abs)
	real := t.resolve(abs)
	if dir, name := filepath.Split(abs); !follow && name != "" {
		real = filepath.Join(t.resolve(dir), name)
	}
	root, rel, err := t.locate(abs, real, false)
	if err != nil {
		return nil, "", err
	}
	r, err := os.OpenRoot(root)
	return r, rel, err
}

var (
	errOutsideRoots = errors.New("outside the skills tree and the workspace: reading is allowed only there")
	errWriteOutside = errors.New("outside the workspace: writing is allowed only there")
)

func relTo(root, real string) (string, string, error) {
	rel, err := filepath.Rel(root, real)
	return root, rel, err
}

func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

func absPath(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return dir + "/" + path
}

// readDir lets the interpreter list (for globbing) only directories inside
// the roots, so a pattern cannot reveal names outside them.
func (h *handlers) readDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	hc := interp.HandlerCtx(ctx)
	abs := filepath.Clean(absPath(hc.Dir, path))
	r, rel, err := h.c.tool.openRootOf(abs, true)
	if err != nil {
		if entries := h.c.tool.waysToRoots(abs); len(entries) > 0 {
			return entries, nil
		}
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// waysToRoots lists, for a directory above one or more roots, only the
// entries that lead to them, so that an absolute pattern such as
// /work/skills/*/SKILL.md can be matched without listing anything else.
func (t *Tool) waysToRoots(dir string) []fs.DirEntry {
	seen := map[string]bool{}
	var out []fs.DirEntry
	for _, root := range append([]string{t.roots.Workspace}, t.roots.Skills...) {
		rest, ok := strings.CutPrefix(root, strings.TrimSuffix(dir, "/")+"/")
		if !ok || rest == "" {
			continue
		}
		name, _, _ := strings.Cut(rest, "/")
		if seen[name] {
			continue
		}
		seen[name] = true
		if fi, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			out = append(out, fs.FileInfoToDirEntry(fi))
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// stat answers the interpreter's file tests (test -e, [[ -f ]], cd) only
// inside the roots and the system directories, so a test cannot probe for
// files elsewhere.
func (h *handlers) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	hc := interp.HandlerCtx(ctx)
	abs := absPath(hc.Dir, name)
	if sys := h.c.tool.systemPath(abs); sys != "" {
		if follow {
			return os.Stat(sys)
		}
		return os.Lstat(sys)
	}
	r, rel, err := h.c.tool.openRootOf(abs, follow)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if follow {
		return r.Stat(rel)
	}
	return r.Lstat(rel)
}

// access answers test -r, -w and -x only where stat answers file tests:
// inside the roots, the system directories and the devices. The answer is
// the interpreter's own (skillsh's uid), as the default handler gives it,
// about the file found inside its root.
func (h *handlers) access(ctx context.Context, name string, mode interp.AccessMode) error {
	hc := interp.HandlerCtx(ctx)
	abs := absPath(hc.Dir, name)
	if sys := h.c.tool.systemPath(abs); sys != "" {
		return interp.DefaultAccessHandler()(ctx, sys, mode)
	}
	r, rel, err := h.c.tool.openRootOf(abs, true)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := r.OpenFile(rel, unix.O_PATH, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return interp.DefaultAccessHandler()(ctx, fmt.Sprintf("/proc/self/fd/%d", f.Fd()), mode)
}

// systemPath returns the path a file test may look at outside the roots:
// a device by its canonical name, or a path in the system directories,
// which programs cannot change. Otherwise it returns "".
func (t *Tool) systemPath(abs string) string {
	if dev := policy.DevicePathWith(abs, t.resolve); dev != "" {
		return dev
	}
	// Links are followed inside the roots and the system directories only.
	seen := policy.Roots{Skills: append(slices.Clone(t.roots.Skills), systemDirs...), Workspace: t.roots.Workspace}
	if real := policy.ResolvePathIn(abs, seen, ""); isSystemPath(real) {
		return real
	}
	return ""
}

// systemDirs are public system directories a test may look at.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64"}

func isSystemPath(abs string) bool {
	for _, d := range systemDirs {
		if within(abs, d) {
			return true
		}
	}
	return false
}
