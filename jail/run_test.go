package jail

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// testCtx returns a context that ends before the test's own deadline, so a
// hung program fails the test instead of the test binary.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// workspace returns a fresh directory usable as a jail's workspace.
func workspace(t *testing.T) string {
	t.Helper()
	dir, err := mkTestDir("ws")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// newJail returns a jail for the tests, handing workspaces to the dropped uid.
func newJail(t *testing.T, cfg Config) *Jail {
	t.Helper()
	cfg.ChownWorkspace = true
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// mkTestDir makes a world-searchable directory under sharedTmp.
func mkTestDir(name string) (string, error) {
	dir, err := os.MkdirTemp(sharedTmp, name)
	if err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o755)
}

type outcome struct {
	res            *Result
	stdout, stderr string
}

func runIn(t *testing.T, j *Jail, ctx context.Context, c *Command) outcome {
	t.Helper()
	out, errw := NewCapture(1<<16), NewCapture(1<<16)
	c.Stdout, c.Stderr = out, errw
	if c.Env == nil {
		c.Env, _ = Environment(os.Environ(), j.Config().ReadWrite[0])
	}
	res, err := j.Run(ctx, c)
	if err != nil {
		t.Fatalf("Run(%q): %v", c.Args, err)
	}
	return outcome{res, out.String(), errw.String()}
}

func TestRunBasics(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	j := newJail(t, Config{ReadWrite: []string{ws}})
	tests := []struct {
		name   string
		args   []string
		stdin  string
		exit   int
		stdout string
		stderr string
	}{
		{"true", []string{"/bin/true"}, "", 0, "", ""},
		{"exit status", []string{"/bin/sh", "-c", "exit 3"}, "", 3, "", ""},
		{"both streams", []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 1"}, "", 1, "out\n", "err\n"},
		{"stdin", []string{"/bin/cat"}, "hello", 0, "hello", ""},
		{"stdin default empty", []string{"/bin/cat"}, "", 0, "", ""},
		{"signal", []string{"/usr/bin/python3", "-c", "import ctypes; ctypes.string_at(0)"}, "", 128 + 11, "", ""},
		{"cwd is workspace", []string{"/bin/pwd"}, "", 0, ws + "\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &Command{Path: tt.args[0], Args: tt.args}
			if tt.stdin != "" {
				c.Stdin = strings.NewReader(tt.stdin)
			}
			o := runIn(t, j, testCtx(t, 10*time.Second), c)
			if o.res.ExitCode != tt.exit || o.stdout != tt.stdout || o.stderr != tt.stderr {
				t.Errorf("got exit %d stdout %q stderr %q; want %d %q %q",
					o.res.ExitCode, o.stdout, o.stderr, tt.exit, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	ws := workspace(t)
	j := newJail(t, Config{ReadWrite: []string{ws}, Limits: Profile{Timeout: 300 * time.Millisecond}})
	start := time.Now()
	o := runIn(t, j, testCtx(t, 10*time.Second), &Command{
		Path: "/bin/sh", Args: []string{"sh", "-c", "trap '' TERM; sleep 60 & sleep 60"},
	})
	if !o.res.TimedOut || o.res.Signal != 9 || o.res.ExitCode != 137 {
		t.Errorf("result %+v, want timed out by SIGKILL", o.res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestRunSetupError(t *testing.T) {
	t.Parallel()
	j := newJail(t, Config{ReadWrite: []string{workspace(t)}})
	_, err := j.Run(testCtx(t, 10*time.Second), &Command{Path: "/nonexistent/prog"})
	var se *SetupError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *SetupError", err)
	}
}

// TestLimitsApplyToProgram: the resource limits are the program's, set
// after the helper's last allocation. An address space far smaller than
// the helper's own Go runtime reserves would abort the helper if it were
// limited itself; the program starts and sees exactly the profile.
func TestLimitsApplyToProgram(t *testing.T) {
	t.Parallel()
	requireKernel(t, Rlimits)
	j := newJail(t, Config{ReadWrite: []string{workspace(t)}})
	prof := Profile{Memory: 16 << 20, OpenFiles: 40, FileSize: 1 << 20, CPU: 7 * time.Second}
	args := []string{"sh", "-c", "ulimit -v; ulimit -n; ulimit -f; ulimit -t; ulimit -c", "sh"}
	for i := range 20000 { // execve's argv is converted after the limits in a naive helper
		args = append(args, fmt.Sprintf("argument-%d-%s", i, strings.Repeat("x", 40)))
	}
	o := runIn(t, j, testCtx(t, 10*time.Second), &Command{Path: "/bin/sh", Args: args, Profile: prof})
	if want := "16384\n40\n2048\n7\n0\n"; o.res.ExitCode != 0 || o.stdout != want {
		t.Errorf("limits seen by the program: exit %d stdout %q stderr %q; want %q", o.res.ExitCode, o.stdout, o.stderr, want)
	}
}
