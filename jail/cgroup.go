package jail

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroupV1Pids is where the pids controller of a cgroup v1 hierarchy is
// mounted on common systems.
const cgroupV1Pids = "/sys/fs/cgroup/pids"

var pidsRootOnce = sync.OnceValues(findPidsRoot)

// pidsCgroupRoot returns the directory under which per-program pids
// cgroups are created (…/pids/skillsh), creating it once.
func pidsCgroupRoot() (string, error) { return pidsRootOnce() }

func findPidsRoot() (string, error) {
	if _, err := os.Stat(filepath.Join(cgroupV1Pids, "pids.max")); err != nil {
		if _, err := os.Stat(filepath.Join(cgroupV1Pids, "cgroup.procs")); err != nil {
			return "", fmt.Errorf("no cgroup v1 pids hierarchy at %s", cgroupV1Pids)
		}
	}
	root := filepath.Join(cgroupV1Pids, "skillsh")
	if err := os.Mkdir(root, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("cannot create %s: %v", root, err)
	}
	return root, nil
}

var cgroupSeq atomic.Uint64

// cgroup is one program's pids cgroup.
type cgroup struct{ dir string }

func newCgroup(root string, maxPids uint64) (*cgroup, error) {
	name := fmt.Sprintf("%d-%d", os.Getpid(), cgroupSeq.Add(1))
	cg := &cgroup{dir: filepath.Join(root, name)}
	if err := os.Mkdir(cg.dir, 0o755); err != nil {
		return nil, err
	}
	if err := cg.write("pids.max", strconv.FormatUint(maxPids, 10)); err != nil {
		cg.remove()
		return nil, err
	}
	return cg, nil
}

func (cg *cgroup) write(file, value string) error {
	return os.WriteFile(filepath.Join(cg.dir, file), []byte(value), 0)
}

// add moves pid into the cgroup.
func (cg *cgroup) add(pid int) error { return cg.write("cgroup.procs", strconv.Itoa(pid)) }

// pids lists the processes in the cgroup.
func (cg *cgroup) pids() []int {
	b, err := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// kill sends SIGKILL to every process in the cgroup until it is empty
// (a process may fork while the list is being read).
func (cg *cgroup) kill() {
	for range 100 {
		pids := cg.pids()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// remove kills what is left and deletes the cgroup, waiting briefly for
// killed processes to be released.
func (cg *cgroup) remove() {
	cg.kill()
	for i := range 200 {
		if err := syscall.Rmdir(cg.dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return
		}
		time.Sleep(time.Duration(i+1) * 100 * time.Microsecond)
	}
}
