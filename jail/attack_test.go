package jail

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireKernel skips the test when p is not available here, or fails it
// when SKILLSH_REQUIRE_KERNEL=1 (as in CI) says every protection must be.
func requireKernel(t *testing.T, protections ...Protection) {
	t.Helper()
	for _, p := range protections {
		st, _ := findStatus(Probe(), p)
		if st.Active {
			continue
		}
		if os.Getenv("SKILLSH_REQUIRE_KERNEL") == "1" {
			t.Fatalf("protection %s missing: %s", p, st.Detail)
		}
		t.Skipf("protection %s missing: %s", p, st.Detail)
	}
}

// requireRoot skips a test that is meaningful only as root, or fails it
// when SKILLSH_REQUIRE_KERNEL=1 (CI runs as root).
func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("SKILLSH_REQUIRE_KERNEL") == "1" {
		t.Fatalf("not root: %s", why)
	}
	t.Skipf("not root: %s", why)
}

// fixture is a jail with a read-only root, a workspace and a secret
// outside both, readable to everyone by its mode so that only the jail
// stands between it and the program.
type fixture struct {
	j                *Jail
	ro, ws, secret   string
	roFile, original string
}

const secretText = "TOPSECRET-7d1f"

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	f := &fixture{ro: mkdir(t, "ro"), ws: workspace(t), original: "original content\n"}
	f.roFile = filepath.Join(f.ro, "data.txt")
	f.secret = filepath.Join(mkdir(t, "outside"), "secret.txt")
	writeFile(t, f.roFile, f.original)
	writeFile(t, f.secret, secretText)
	cfg.ReadOnly = append(cfg.ReadOnly, f.ro)
	cfg.ReadWrite = append(cfg.ReadWrite, f.ws)
	f.j = newJail(t, cfg)
	return f
}

func mkdir(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp(sharedTmp, name)
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// attack describes one hostile program and what must hold afterwards.
type attack struct {
	name    string
	need    []Protection
	cfg     Config
	prof    Profile
	args    func(f *fixture) []string
	marker  string // a string in the argv of every process it starts
	check   func(t *testing.T, f *fixture, o outcome)
	timeout time.Duration // the test's own bound; default 20s
}

func sh(script string) func(*fixture) []string {
	return func(*fixture) []string { return []string{"/bin/sh", "-c", script} }
}

func py(script string) func(*fixture) []string {
	return func(*fixture) []string { return []string{"/usr/bin/python3", "-c", script} }
}

func TestAttacks(t *testing.T) {
	t.Parallel()
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			runAttack(t, a)
		})
	}
}

// TestAttacksLandlockAlone repeats the Landlock attacks as root (KeepUID):
// root's file permissions stop nothing, so Landlock alone must.
func TestAttacksLandlockAlone(t *testing.T) {
	t.Parallel()
	requireRoot(t, "root's file permissions stop nothing, so Landlock alone must")
	for _, a := range attacks {
		if !slices.ContainsFunc(a.need, isLandlock) {
			continue
		}
		a.cfg.KeepUID = true
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			runAttack(t, a)
		})
	}
}

func isLandlock(p Protection) bool { return strings.HasPrefix(string(p), "landlock") }

func runAttack(t *testing.T, a attack) {
	t.Helper()
	requireKernel(t, a.need...)
	f := newFixture(t, a.cfg)
	to := a.timeout
	if to == 0 {
		to = 20 * time.Second
	}
	args := a.args(f)
	o := runIn(t, f.j, testCtx(t, to), &Command{Path: args[0], Args: args, Profile: a.prof})
	a.check(t, f, o)
	assertAnswering(t, f)
	if a.marker != "" {
		assertGone(t, a.marker)
	}
}

// assertAnswering checks that the jail still runs programs.
func assertAnswering(t *testing.T, f *fixture) {
	t.Helper()
	o := runIn(t, f.j, testCtx(t, 10*time.Second), &Command{Path: "/usr/bin/id", Args: []string{"id", "-u"}})
	if o.res.ExitCode != 0 || o.stdout == "" {
		t.Errorf("jail no longer answers: %+v %q %q", o.res, o.stdout, o.stderr)
	}
}

// assertGone fails if a process whose command line contains marker is
// still alive (zombies included: they would still hold a pid).
func assertGone(t *testing.T, marker string) {
	t.Helper()
	if pids := findProcs(marker); len(pids) > 0 {
		t.Errorf("processes left running with %q: %v", marker, pids)
	}
}

func findProcs(marker string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(marker)) && e.Name() != fmt.Sprint(os.Getpid()) {
			out = append(out, e.Name()+":"+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func wantExit(code int) func(*testing.T, *fixture, outcome) {
	return func(t *testing.T, _ *fixture, o outcome) {
		t.Helper()
		if o.res.ExitCode != code {
			t.Errorf("exit %d, want %d; stdout %q stderr %q", o.res.ExitCode, code, o.stdout, o.stderr)
		}
	}
}

func failsWithout(text string) func(*testing.T, *fixture, outcome) {
	return func(t *testing.T, f *fixture, o outcome) {
		t.Helper()
		if o.res.ExitCode == 0 || strings.Contains(o.stdout, text) {
			t.Errorf("attack succeeded: exit %d stdout %q stderr %q", o.res.ExitCode, o.stdout, o.stderr)
		}
	}
}

func roUnchanged(t *testing.T, f *fixture, o outcome) {
	t.Helper()
	b, err := os.ReadFile(f.roFile)
	if err != nil || string(b) != f.original {
		t.Errorf("read-only file changed: %q, %v (program: exit %d stderr %q)", b, err, o.res.ExitCode, o.stderr)
	}
}

func both(checks ...func(*testing.T, *fixture, outcome)) func(*testing.T, *fixture, outcome) {
	return func(t *testing.T, f *fixture, o outcome) {
		t.Helper()
		for _, c := range checks {
			c(t, f, o)
		}
	}
}

func endsQuickly(t *testing.T, _ *fixture, o outcome) {
	t.Helper()
	if o.res.TimedOut || o.res.Duration > 5*time.Second {
		t.Errorf("call did not end with the program: %+v", o.res)
	}
}

func timedOut(t *testing.T, _ *fixture, o outcome) {
	t.Helper()
	if !o.res.TimedOut || o.res.Signal != 9 {
		t.Errorf("want timed out and killed: %+v stderr %q", o.res, o.stderr)
	}
}

var attacks = []attack{
	{
		name: "fork bomb", need: []Protection{CgroupPIDs, PIDNS},
		prof:   Profile{Processes: 32, Timeout: 3 * time.Second},
		args:   func(*fixture) []string { return []string{"/bin/bash", "-c", "f(){ f | f & }; f; sleep 1000.11"} },
		marker: "f | f",
		check: func(t *testing.T, _ *fixture, o outcome) {
			if o.res.Duration > 10*time.Second {
				t.Errorf("fork bomb ran %v", o.res.Duration)
			}
		},
	},
	{
		name: "process limit", need: []Protection{CgroupPIDs},
		prof:   Profile{Processes: 8},
		args:   sh("for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 1000.12 & done; wait"),
		marker: "1000.12",
		check: func(t *testing.T, _ *fixture, o outcome) {
			if o.res.TimedOut || !strings.Contains(o.stderr, "fork") {
				t.Errorf("want fork failures and an early end: %+v stderr %q", o.res, o.stderr)
			}
		},
	},
	{
		name: "memory hog", need: []Protection{Rlimits},
		prof:  Profile{Memory: 256 << 20},
		args:  py("x = bytearray(1 << 31); print('allocated')"),
		check: both(failsWithout("allocated"), stderrHas("MemoryError")),
	},
	{
		name: "cpu loop", need: []Protection{Rlimits},
		prof:   Profile{CPU: time.Second, Timeout: 15 * time.Second},
		args:   py("import sys\nwhile True: pass  # 1000.13"),
		marker: "1000.13",
		check: func(t *testing.T, _ *fixture, o outcome) {
			if o.res.TimedOut || o.res.Signal != syscall.SIGXCPU || o.res.CPUTime < 500*time.Millisecond {
				t.Errorf("want killed by the CPU limit after ~1s CPU: %+v", o.res)
			}
		},
	},
	{
		name: "file past size limit", need: []Protection{Rlimits},
		prof: Profile{FileSize: 1 << 20},
		args: sh("dd if=/dev/zero of=big bs=65536 count=64"),
		check: func(t *testing.T, f *fixture, o outcome) {
			st, err := os.Stat(filepath.Join(f.ws, "big"))
			if err != nil || st.Size() > 1<<20 || o.res.ExitCode == 0 {
				t.Errorf("file grew past the limit: %v %v exit %d", st.Size(), err, o.res.ExitCode)
			}
		},
	},
	{
		name: "sleep left in background", need: []Protection{PIDNS},
		args: sh("sleep 1000.14 & echo started"), marker: "1000.14",
		check: endsQuickly,
	},
	{
		name: "setsid -f sleep", need: []Protection{PIDNS},
		args: sh("setsid -f sleep 1000.15; echo started"), marker: "1000.15",
		check: endsQuickly,
	},
	{
		name: "double fork", need: []Protection{PIDNS},
		args: sh("(sleep 1000.16 &); echo started"), marker: "1000.16",
		check: endsQuickly,
	},
	{
		name: "nohup", need: []Protection{PIDNS},
		args: sh("nohup sleep 1000.17 >/dev/null 2>&1 & echo started"), marker: "1000.17",
		check: endsQuickly,
	},
	{
		name: "grandchild ignoring SIGTERM past the timeout", need: []Protection{PIDNS},
		prof:   Profile{Timeout: 500 * time.Millisecond},
		args:   sh(`sh -c 'trap "" TERM; sleep 1000.18' & wait`),
		marker: "1000.18",
		check:  timedOut,
	},
	{
		name: "read a secret outside the roots", need: []Protection{Landlock},
		args:  func(f *fixture) []string { return []string{"/bin/cat", f.secret} },
		check: failsWithout(secretText),
	},
	{
		name: "read /etc/shadow", need: []Protection{Landlock},
		args:  sh("cat /etc/shadow"),
		check: failsWithout("root:"),
	},
	{
		name: "read /proc/1/environ", need: []Protection{Landlock},
		args:  sh("cat /proc/1/environ"),
		check: failsWithout("PATH"),
	},
	{
		name: "read ~/.ssh of the host user", need: []Protection{Landlock},
		args:  sh("ls -a /root/ && ls /root/.ssh"),
		check: failsWithout(".."),
	},
	{
		name: "write a read-only root's file", need: []Protection{Landlock},
		args:  func(f *fixture) []string { return []string{"/bin/sh", "-c", "echo pwned >> " + f.roFile} },
		check: both(wantExit(2), roUnchanged),
	},
	{
		name: "write through a symlink planted in the workspace", need: []Protection{Landlock},
		args: func(f *fixture) []string {
			return []string{"/bin/sh", "-c", "ln -s " + f.roFile + " link && echo pwned > link"}
		},
		check: both(wantExit(2), roUnchanged),
	},
	{
		name: "connect to 127.0.0.1", need: []Protection{LandlockNet},
		args: func(*fixture) []string {
			return []string{"/usr/bin/python3", "-c", fmt.Sprintf(
				"import socket; s=socket.create_connection(('127.0.0.1', %d), timeout=2); print('connected')", hostPort)}
		},
		check: failsWithout("connected"),
	},
	{
		name: "connect to an outside address", need: []Protection{LandlockNet, NetNS},
		args:  py("import socket; s=socket.create_connection(('192.0.2.1', 80), timeout=2); print('connected')"),
		check: failsWithout("connected"),
	},
	{
		name: "UDP out of the network namespace", need: []Protection{NetNS},
		args:  py("import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'x', ('192.0.2.1', 53)); print('sent')"),
		check: failsWithout("sent"),
	},
	{
		name: "exec /bin/sh from python3", need: []Protection{LandlockExec},
		cfg:   Config{Executables: []string{"/usr/bin/python3", "/usr/bin/id"}},
		args:  py("import os, sys; st = os.system('id'); sys.exit(0 if st == 0 else 3)"),
		check: both(wantExit(3), failsWithout("uid=")),
	},
	{
		name: "runs as nobody", need: []Protection{UIDDrop},
		args:  sh("id -u; id -G"),
		check: stdoutIs("65534\n65534\n"),
	},
	{
		name: "no setuid gain", need: []Protection{NoNewPrivs},
		args: sh("su -c id root; echo rc=$?"),
		check: func(t *testing.T, _ *fixture, o outcome) {
			if strings.Contains(o.stdout, "uid=0") || !strings.Contains(o.stdout, "rc=1") {
				t.Errorf("su: stdout %q stderr %q", o.stdout, o.stderr)
			}
		},
	},
}

func stderrHas(s string) func(*testing.T, *fixture, outcome) {
	return func(t *testing.T, _ *fixture, o outcome) {
		t.Helper()
		if !strings.Contains(o.stderr, s) {
			t.Errorf("stderr %q lacks %q", o.stderr, s)
		}
	}
}

func stdoutIs(s string) func(*testing.T, *fixture, outcome) {
	return func(t *testing.T, _ *fixture, o outcome) {
		t.Helper()
		if o.stdout != s {
			t.Errorf("stdout %q, want %q (stderr %q)", o.stdout, s, o.stderr)
		}
	}
}

// hostPort is a TCP listener of the test process that no jailed program
// may reach. It is made with raw system calls: importing net would link
// the C library into the test binary and slow every helper start.
var hostPort = func() int {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 1
	}
	if syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}) != nil || syscall.Listen(fd, 16) != nil {
		return 1
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return 1
	}
	return sa.(*syscall.SockaddrInet4).Port
}()

// TestInheritedDescriptorsStayOut: a descriptor the process running the
// jail holds open without close-on-exec (inherited from its own parent, a
// connected socket say) never reaches the program.
func TestInheritedDescriptorsStayOut(t *testing.T) {
	t.Parallel()
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil { // no close-on-exec
		t.Fatal(err)
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	syscall.CloseOnExec(p[0]) // only p[1] leaks to children
	if _, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(p[1]), syscall.F_SETFD, 0); e != 0 {
		t.Fatal(e)
	}
	f := newFixture(t, Config{})
	script := fmt.Sprintf("import os\ntry:\n    os.write(%d, b'LEAKED')\n    print('open')\nexcept OSError as e:\n    print('closed', e.errno)\n", p[1])
	o := runIn(t, f.j, testCtx(t, 10*time.Second), &Command{Path: "/usr/bin/python3", Args: []string{"python3", "-c", script}})
	if !strings.Contains(o.stdout, "closed 9") {
		t.Errorf("descriptor %d in the program: %q %q", p[1], o.stdout, o.stderr)
	}
}

// TestUnixDatagramPairsRefused: a datagram socket pair could be sent to
// any named socket (/dev/log, a daemon's): socketpair refuses it (also as
// SOCK_RAW, which the kernel makes a datagram pair), while stream and
// seqpacket pairs, which cannot be connected anew, still work.
func TestUnixDatagramPairsRefused(t *testing.T) {
	t.Parallel()
	requireKernel(t, UnixSockets)
	f := newFixture(t, Config{})
	script := "import socket\n" +
		"for kind in (2, 3, 1, 5):\n" +
		"    try:\n        socket.socketpair(socket.AF_UNIX, kind)\n        print(kind, 'made')\n" +
		"    except OSError as e:\n        print(kind, 'refused', e.errno)\n"
	o := runIn(t, f.j, testCtx(t, 10*time.Second), &Command{Path: "/usr/bin/python3", Args: []string{"python3", "-c", script}})
	// SOCK_DGRAM 2, SOCK_RAW 3, SOCK_STREAM 1, SOCK_SEQPACKET 5
	if !strings.Contains(o.stdout, "2 refused 13") || !strings.Contains(o.stdout, "3 refused 13") ||
		!strings.Contains(o.stdout, "1 made") || !strings.Contains(o.stdout, "5 made") {
		t.Errorf("socket pairs: %q %q", o.stdout, o.stderr)
	}
}

func TestSecretEnvironmentWithheld(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	env, withheld := Environment([]string{"API_TOKEN=" + secretText, "LANG=C.UTF-8"}, f.ws)
	o := runIn(t, f.j, testCtx(t, 10*time.Second), &Command{Path: "/usr/bin/env", Env: env})
	if strings.Contains(o.stdout, secretText) || !strings.Contains(o.stdout, "PATH="+SystemPath) {
		t.Errorf("environment: %q", o.stdout)
	}
	if len(withheld) != 1 || withheld[0] != "API_TOKEN" {
		t.Errorf("withheld = %q", withheld)
	}
}

func TestGigabyteOutputBoundedMemory(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Config{})
	out := NewCapture(1 << 20)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := f.j.Run(testCtx(t, 60*time.Second), &Command{
		Path: "/usr/bin/head", Args: []string{"head", "-c", "1073741824", "/dev/zero"}, Stdout: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if res.ExitCode != 0 || out.Len() != 1<<30 || out.Cut() != 1<<30-1<<20 {
		t.Errorf("exit %d, len %d, cut %d", res.ExitCode, out.Len(), out.Cut())
	}
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 64<<20 {
		t.Errorf("heap grew by %d bytes", grown)
	}
}

// TestPipesCannotBePlanted attacks the pipes directory as a program that
// shares its owner (root with KeepUID, where file permissions stop
// nothing): the caller's named pipe opens, but nothing can be created,
// replaced or listed there, so the caller never opens a planted link.
func TestPipesCannotBePlanted(t *testing.T) {
	t.Parallel()
	requireKernel(t, Landlock)
	requireRoot(t, "only root can be the pipes directory's owner and the program's uid at once")
	pipes, err := mkTestDir("pipes")
	if err == nil {
		err = os.Chmod(pipes, 0o711)
	}
	if err == nil {
		err = syscall.Mkfifo(filepath.Join(pipes, "sh-interp-1"), 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(pipes) })
	go func() { // the caller's reader, as for a process substitution
		if b, err := os.ReadFile(filepath.Join(pipes, "sh-interp-1")); err == nil {
			_ = os.WriteFile(filepath.Join(pipes, "got"), b, 0o600)
		}
	}()
	j := newJail(t, Config{ReadWrite: []string{workspace(t)}, Pipes: pipes, KeepUID: true})
	script := `cd "$1"
echo through-the-pipe > sh-interp-1 && echo wrote-pipe
ln -s /etc/passwd sh-interp-2 && echo planted-link
mkfifo sh-interp-3 && echo planted-fifo
: > sh-interp-4 && echo planted-file
rm -f sh-interp-1 && echo removed
mv sh-interp-1 moved && echo renamed
ls . && echo listed
exit 0`
	o := runIn(t, j, testCtx(t, 10*time.Second), &Command{Path: "/bin/sh", Args: []string{"sh", "-c", script, "sh", pipes}})
	if o.stdout != "wrote-pipe\n" {
		t.Errorf("stdout %q, want only wrote-pipe; stderr %q", o.stdout, o.stderr)
	}
	entries, _ := os.ReadDir(pipes)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"got", "sh-interp-1"}) {
		t.Errorf("pipes directory holds %v, want [got sh-interp-1]", names)
	}
}
