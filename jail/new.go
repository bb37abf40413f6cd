package jail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/skillsh/skillsh/jail/internal/helper"
)

// nobody is the default uid and gid programs run under when the caller is root.
const nobody = 65534

// plan is what New computed once for every Run. It is read-only after New.
type plan struct {
	exe         string // the executable re-executed as the helper
	workspace   string
	limits      Profile
	dropUID     bool
	uid, gid    int
	landlock    helper.Landlock
	cloneflags  uintptr
	cgroupRoot  string // "" when there is no pids cgroup
	denyUnix    bool   // seccomp refuses socket(AF_UNIX)
	protections []Protection
}

// New validates cfg, probes the kernel (once per process) and returns a
// Jail. It fails with a *MissingError when a protection in cfg.Require is
// not available, and with a plain error when cfg is invalid: a relative or
// missing path, or (when the uid is dropped) a root the program's uid
// could not reach.
func New(cfg Config) (*Jail, error) {
	cfg.Limits = cfg.Limits.Or(DefaultProfile())
	cfg.ReadOnly, cfg.ReadWrite = clone(cfg.ReadOnly), clone(cfg.ReadWrite)
	cfg.Executables, cfg.Require = clone(cfg.Executables), clone(cfg.Require)
	if cfg.UID == 0 {
		cfg.UID = nobody
	}
	if cfg.GID == 0 {
		cfg.GID = nobody
	}
	if err := cleanPaths(&cfg); err != nil {
		return nil, err
	}
	j := &Jail{cfg: cfg, probes: Probe()}
	if err := j.checkRequired(); err != nil {
		return nil, err
	}
	if err := j.makePlan(); err != nil {
		return nil, err
	}
	return j, nil
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

func (j *Jail) makePlan() error {
	cfg := &j.cfg
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("jail: executable for the helper: %w", err)
	}
	p := &j.plan
	*p = plan{exe: exe, limits: cfg.Limits, uid: cfg.UID, gid: cfg.GID}
	p.dropUID = os.Geteuid() == 0 && !cfg.KeepUID
	tmp, err := j.prepareWorkspace()
	if err != nil {
		return err
	}
	if abi := landlockABI(); abi > 0 {
		p.landlock = landlockRules(cfg, abi, tmp)
	}
	if j.active(PIDNS) {
		p.cloneflags = nsFlags
	}
	p.denyUnix = j.active(UnixSockets)
	if j.active(CgroupPIDs) {
		p.cgroupRoot, _ = pidsCgroupRoot()
	}
	p.protections = j.applied()
	return nil
}

// checkPipes refuses a pipes directory that programs could change: it must
// be the caller's, with mode 0711.
func checkPipes(dir string) error {
	if dir == "" {
		return nil
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return fmt.Errorf("jail: pipes: %w", err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o7777 != 0o711 {
		return fmt.Errorf("jail: pipes: %s must be a directory owned by uid %d with mode 0711", dir, os.Geteuid())
	}
	return nil
}

// prepareWorkspace creates the workspace's tmp directory, hands the
// workspace to the program's uid if asked, and checks that the program's
// uid can reach every root. It returns the tmp directory.
func (j *Jail) prepareWorkspace() (string, error) {
	cfg := &j.cfg
	if len(cfg.ReadWrite) == 0 {
		return "", nil
	}
	j.plan.workspace = cfg.ReadWrite[0]
	tmp := filepath.Join(j.plan.workspace, TmpDirName)
	if err := makeTmp(tmp); err != nil {
		return "", err
	}
	if !j.plan.dropUID {
		return tmp, nil
	}
	if cfg.ChownWorkspace {
		for _, d := range cfg.ReadWrite {
			if err := os.Chown(d, cfg.UID, cfg.GID); err != nil {
				return "", fmt.Errorf("jail: chown workspace: %w", err)
			}
		}
	}
	return tmp, j.checkReachable()
}

func makeTmp(tmp string) error {
	if err := os.Mkdir(tmp, 0o1777); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("jail: tmp dir: %w", err)
	}
	if err := os.Chmod(tmp, 0o1777|os.ModeSticky); err != nil {
		return fmt.Errorf("jail: tmp dir: %w", err)
	}
	return nil
}

// checkReachable verifies with the file modes that the dropped uid can
// traverse to every root, read the read roots and write the workspace.
func (j *Jail) checkReachable() error {
	for _, d := range j.cfg.ReadOnly {
		if err := j.reachable(d, 5); err != nil {
			return err
		}
	}
	for _, d := range j.cfg.ReadWrite {
		if err := j.reachable(d, 7); err != nil {
			return err
		}
	}
	return nil
}

// reachable checks search permission on every ancestor of dir and the
// permission bits want (rwx as 4|2|1) on dir itself.
func (j *Jail) reachable(dir string, want uint32) error {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if !j.may(p, 1) {
			return fmt.Errorf("jail: %s is not reachable for uid %d: %s is not searchable by it (make it o+x, set Config.KeepUID, or run as that user)", dir, j.cfg.UID, p)
		}
		if p == "/" {
			break
		}
	}
	if !j.may(dir, want) {
		return fmt.Errorf("jail: uid %d lacks permission %o on %s (set Config.ChownWorkspace for the workspace, or fix its mode)", j.cfg.UID, want, dir)
	}
	return nil
}

// may reports whether the program's uid/gid (with no supplementary
// groups) has the permission bits want on path.
func (j *Jail) may(path string, want uint32) bool {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return false
	}
	mode := st.Mode & 0o7
	switch {
	case int(st.Uid) == j.cfg.UID:
		mode = (st.Mode >> 6) & 0o7
	case int(st.Gid) == j.cfg.GID:
		mode = (st.Mode >> 3) & 0o7
	}
	return mode&want == want
}

func cleanPaths(cfg *Config) error {
	if err := checkPipes(cfg.Pipes); err != nil {
		return err
	}
	for _, list := range [][]string{cfg.ReadOnly, cfg.ReadWrite, cfg.Executables} {
		for i, p := range list {
			if !filepath.IsAbs(p) {
				return fmt.Errorf("jail: path %q is not absolute", p)
			}
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("jail: %w", err)
			}
			list[i] = filepath.Clean(p)
		}
	}
	return pipesOutside(cfg.Pipes, cfg.ReadWrite)
}

// pipesOutside refuses a pipes directory inside a read-write directory:
// Landlock's rights there reach everything beneath, so programs could
// create and replace entries in it.
func pipesOutside(pipes string, readWrite []string) error {
	if pipes == "" {
		return nil
	}
	real, err := filepath.EvalSymlinks(pipes)
	if err != nil {
		return fmt.Errorf("jail: pipes: %w", err)
	}
	for _, rw := range readWrite {
		rwReal, err := filepath.EvalSymlinks(rw)
		if err != nil {
			return fmt.Errorf("jail: %w", err)
		}
		if real == rwReal || strings.HasPrefix(real, strings.TrimSuffix(rwReal, "/")+"/") {
			return fmt.Errorf("jail: pipes: %s is inside the read-write directory %s, where programs could change it; make it elsewhere (TMPDIR)", pipes, rw)
		}
	}
	return nil
}

func (j *Jail) checkRequired() error {
	for _, want := range j.cfg.Require {
		if want == UIDDrop && j.cfg.KeepUID {
			return &MissingError{Protection: want, Detail: "Config.KeepUID is set"}
		}
		st, ok := findStatus(j.probes, want)
		if !ok {
			return &MissingError{Protection: want, Detail: "unknown protection"}
		}
		if !st.Active {
			return &MissingError{Protection: want, Detail: st.Detail}
		}
	}
	return nil
}

func (j *Jail) active(p Protection) bool {
	st, _ := findStatus(j.probes, p)
	return st.Active
}

// applied lists the protections every program of this jail gets.
func (j *Jail) applied() []Protection {
	var out []Protection
	for _, s := range j.probes {
		if s.Active && (s.Protection != UIDDrop || j.plan.dropUID) {
			out = append(out, s.Protection)
		}
	}
	return out
}

func findStatus(list []Status, p Protection) (Status, bool) {
	for _, s := range list {
		if s.Protection == p {
			return s, true
		}
	}
	return Status{}, false
}
