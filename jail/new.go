package jail

import (
	"fmt"
	"os"
	"path/filepath"
)

// plan is what New computed once for every Run.
type plan struct {
	workspace string
	limits    Profile
}

// New validates cfg, probes the kernel (once per process) and returns a
// Jail. It fails with a *MissingError when a protection in cfg.Require is
// not available, and with a plain error when cfg is invalid (relative or
// missing paths).
func New(cfg Config) (*Jail, error) {
	cfg.Limits = cfg.Limits.Or(DefaultProfile())
	if err := cleanPaths(&cfg); err != nil {
		return nil, err
	}
	j := &Jail{cfg: cfg, probes: Probe()}
	if err := j.checkRequired(); err != nil {
		return nil, err
	}
	j.plan = plan{limits: cfg.Limits}
	if len(cfg.ReadWrite) > 0 {
		j.plan.workspace = cfg.ReadWrite[0]
		if err := os.MkdirAll(filepath.Join(j.plan.workspace, TmpDirName), 0o1777); err != nil {
			return nil, fmt.Errorf("jail: tmp dir: %w", err)
		}
	}
	return j, nil
}

func cleanPaths(cfg *Config) error {
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
	return nil
}

func (j *Jail) checkRequired() error {
	for _, want := range j.cfg.Require {
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

func findStatus(list []Status, p Protection) (Status, bool) {
	for _, s := range list {
		if s.Protection == p {
			return s, true
		}
	}
	return Status{}, false
}
