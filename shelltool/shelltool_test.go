package shelltool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillsh/skillsh/internal/testenv"
	"github.com/skillsh/skillsh/jail"
	"github.com/skillsh/skillsh/policy"
	"github.com/skillsh/skillsh/shelltool"
)

// newTool returns a Tool over a copy of the demo skills and a fresh
// workspace. With allowAll, the policy allows everything, so a test sees
// what the handlers and the jail enforce on their own.
func newTool(t testing.TB, allowAll bool) *shelltool.Tool {
	t.Helper()
	var opts []policy.Option
	if allowAll {
		opts = append(opts, policy.WithoutDefault(), policy.WithPolicy("testdata/allow-all"))
	}
	engine, err := policy.NewEngine(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Engine: engine, Timeout: 20 * time.Second})
}

// newToolWith returns a Tool for cfg, closed when the test ends; a nil
// Engine is the default policy, an empty Workspace a fresh one.
func newToolWith(t testing.TB, cfg shelltool.Config) *shelltool.Tool {
	t.Helper()
	if cfg.Engine == nil {
		engine, err := policy.NewEngine(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		cfg.Engine = engine
	}
	if cfg.Workspace == "" {
		cfg.Workspace = testenv.Workspace(t)
	}
	tool, err := shelltool.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tool.Close() })
	return tool
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestRefusedInput(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	tests := []struct {
		name, command, want string
	}{
		{"empty", "", "empty"},
		{"blank", " \n\t", "empty"},
		{"comment", "# just a comment", "empty"},
		{"nul", "echo a\x00b", "NUL"},
		{"too long", "echo " + strings.Repeat("a", shelltool.MaxCommandSize), "longer than"},
		{"parse error", "echo ((", "line 1, column"},
		{"unclosed quote", "echo 'x", "line 1"},
		{"deep substitutions", strings.Repeat("echo $(", shelltool.MaxSubstitutionDepth+1) + "id" + strings.Repeat(")", shelltool.MaxSubstitutionDepth+1), "nested"},
		{"many process substitutions", ": " + strings.Repeat(">(:) ", shelltool.MaxProcessSubstitutions+1), "process substitutions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tool.Run(testContext(t), tt.command)
			if res.ExitCode != shelltool.ExitUsage || !strings.Contains(res.Error, tt.want) {
				t.Errorf("exit %d, error %q; want exit %d and an error containing %q",
					res.ExitCode, res.Error, shelltool.ExitUsage, tt.want)
			}
		})
	}
}

// TestScriptWithoutShebangNeverRunsInTheInterpreter proves the exec chain
// ends in the jail: the interpreter's default handler would run a script
// without a #! line in a fresh interpreter with none of the policy checks.
func TestScriptWithoutShebangNeverRunsInTheInterpreter(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	ws := tool.Workspace()
	script := filepath.Join(ws, "noshebang")
	if err := os.WriteFile(script, []byte("echo ran > marker\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := tool.Run(testContext(t), "./noshebang")
	if _, err := os.Stat(filepath.Join(ws, "marker")); err == nil {
		t.Fatalf("the script ran in a fresh interpreter; result: %+v", res)
	}
	if res.ExitCode == 0 {
		t.Errorf("exit status 0 for a script the jail cannot execute; result: %+v", res)
	}
}

// TestInterpreterOpensAreConfined shows that the files the interpreter
// opens itself (redirections), lists (globs) and tests stay inside the
// roots even when the policy allows everything.
func TestInterpreterOpensAreConfined(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	skill := tool.Roots().Skills[0] + "/text-tools/SKILL.md"
	outside := filepath.Join(testenv.Dir(t), "outside")
	sibling := filepath.Join(filepath.Dir(tool.Roots().Skills[0]), "sibling-secret")
	if err := os.WriteFile(sibling, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, command string
		check         func(t *testing.T, res *shelltool.Result)
	}{
		{"write outside", "echo x > " + outside, func(t *testing.T, res *shelltool.Result) {
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("file written outside the workspace")
			}
		}},
		{"write into a skill", "echo x >> " + skill, func(t *testing.T, res *shelltool.Result) {
			data, _ := os.ReadFile(skill)
			if strings.HasSuffix(string(data), "x\n") {
				t.Errorf("skill file changed")
			}
		}},
		{"read outside", "read line < /etc/passwd; echo \"[$line]\"", func(t *testing.T, res *shelltool.Result) {
			if strings.Contains(res.Stdout, "root:") {
				t.Errorf("read /etc/passwd: %q", res.Stdout)
			}
		}},
		{"glob outside", "echo /etc/pass*", func(t *testing.T, res *shelltool.Result) {
			if strings.Contains(res.Stdout, "/etc/passwd") {
				t.Errorf("glob listed /etc: %q", res.Stdout)
			}
		}},
		{"glob above a root lists only the way to it", "echo " + filepath.Dir(tool.Roots().Skills[0]) + "/*", func(t *testing.T, res *shelltool.Result) {
			if want := tool.Roots().Skills[0] + "\n"; res.Stdout != want {
				t.Errorf("listed %q, want %q", res.Stdout, want)
			}
		}},
		{"test outside", "test -e /etc/shadow && echo exists || echo unknown", func(t *testing.T, res *shelltool.Result) {
			if strings.Contains(res.Stdout, "exists") {
				t.Errorf("file test answered outside the roots: %q", res.Stdout)
			}
		}},
		{"symlink planted in workspace", "ln -s " + skill + " link && echo x > link", func(t *testing.T, res *shelltool.Result) {
			data, _ := os.ReadFile(skill)
			if strings.HasSuffix(string(data), "x\n") {
				t.Errorf("skill file changed through a symlink")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tool.Run(testContext(t), tt.command)
			tt.check(t, res)
		})
	}
}

// TestAbsoluteGlobsInsideRoots: a pattern naming a root by its absolute
// path expands as in bash.
func TestAbsoluteGlobsInsideRoots(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	root := tool.Roots().Skills[0]
	res := tool.Run(testContext(t), "for f in "+root+"/*/SKILL.md; do echo $f; done")
	want := root + "/csv-summary/SKILL.md\n" + root + "/json-tools/SKILL.md\n" + root + "/text-tools/SKILL.md\n"
	if res.Stdout != want {
		t.Errorf("stdout %q, want %q", res.Stdout, want)
	}
}

// TestConcurrentCallsShareNoState runs calls in parallel that each change
// directory and variables, and checks each sees only its own.
func TestConcurrentCallsShareNoState(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	ctx := testContext(t)
	const n = 8
	for i := range n {
		if err := os.Mkdir(filepath.Join(tool.Workspace(), fmt.Sprint("d", i)), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	results := make([]*shelltool.Result, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = tool.Run(ctx, fmt.Sprintf("cd d%d; v=%d; sleep 0.2; echo $v $(basename $(pwd))", i, i))
		}()
	}
	wg.Wait()
	for i, res := range results {
		if want := fmt.Sprintf("%d d%d\n", i, i); res.Stdout != want {
			t.Errorf("call %d: stdout %q, want %q (stderr %q)", i, res.Stdout, want, res.Stderr)
		}
	}
}

// TestSessionKeepsDirectoryAndVariables: a Session is an interactive
// shell; a Tool's calls are not.
func TestSessionKeepsDirectoryAndVariables(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	ctx := testContext(t)
	s := tool.NewSession()
	s.Run(ctx, "cd "+tool.Roots().Skills[0]+"/text-tools; greeting=hello")
	res := s.Run(ctx, "echo $greeting; pwd")
	want := "hello\n" + tool.Roots().Skills[0] + "/text-tools\n"
	if res.Stdout != want {
		t.Errorf("session: stdout %q, want %q", res.Stdout, want)
	}
	if res := tool.Run(ctx, "echo $greeting; pwd"); res.Stdout != "\n"+tool.Workspace()+"\n" {
		t.Errorf("a fresh call saw session state: %q", res.Stdout)
	}
}

// TestFailedCommandKeepsBothStreams: a failing command reports its status
// and both streams; stderr alone is not a failure.
func TestFailedCommandKeepsBothStreams(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	ctx := testContext(t)
	res := tool.Run(ctx, "echo out; echo err >&2; sh -c 'exit 7'")
	if res.ExitCode != 7 || res.Stdout != "out\n" || res.Stderr != "err\n" {
		t.Errorf("got exit %d stdout %q stderr %q; want 7, \"out\\n\", \"err\\n\"", res.ExitCode, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Text(), "[exit status 7]") || !strings.Contains(res.Text(), "err") {
		t.Errorf("text misses the status or stderr:\n%s", res.Text())
	}
	res = tool.Run(ctx, "echo warning >&2")
	if res.ExitCode != 0 {
		t.Errorf("stderr output made the call fail: %+v", res)
	}
}

// TestProgramsChainOnTheirStatus: a program's success and failure drive
// && and || as in bash.
func TestProgramsChainOnTheirStatus(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	res := tool.Run(testContext(t), "true && echo and; false || echo or; ls . >/dev/null && echo ls")
	if res.ExitCode != 0 || res.Stdout != "and\nor\nls\n" {
		t.Errorf("exit %d, stdout %q, error %q", res.ExitCode, res.Stdout, res.Error)
	}
}

// TestRedirectedFilesStayWritableForPrograms: a file the interpreter
// creates by redirection can be changed by the programs that follow.
func TestRedirectedFilesStayWritableForPrograms(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	res := tool.Run(testContext(t), "echo one > notes.txt && sh -c 'echo two >> notes.txt' && cat notes.txt")
	if res.ExitCode != 0 || res.Stdout != "one\ntwo\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestOutputIsCapped: a flood costs bounded memory and keeps the head and
// the tail.
func TestOutputIsCapped(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	res := tool.Run(testContext(t), "echo first; head -c 50000000 /dev/zero | tr '\\0' x; echo; echo last")
	if !res.Truncated || res.StdoutCutBytes < 40_000_000 {
		t.Fatalf("truncated %v, cut %d; want a cut of most of the 50 MB", res.Truncated, res.StdoutCutBytes)
	}
	if !strings.HasPrefix(res.Stdout, "first\n") || !strings.HasSuffix(res.Stdout, "last\n") {
		t.Errorf("head or tail lost: %q ... %q", res.Stdout[:20], res.Stdout[len(res.Stdout)-20:])
	}
	if len(res.Stdout) > 2*shelltool.DefaultOutputLimit {
		t.Errorf("kept %d bytes, limit %d", len(res.Stdout), shelltool.DefaultOutputLimit)
	}
}

// TestSignalsAsInBash compares with real bash what programs see of
// signals: a pipeline's writer dies quietly of SIGPIPE, and a program that
// kills itself reports 128+N.
func TestSignalsAsInBash(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	for _, command := range []string{
		"yes | head -n 2",
		"seq 1 100000 | head -n 1",
		`sh -c 'kill -TERM $$'; echo "status $?"`,
		`sh -c 'kill -9 $$'; echo "status $?"`,
	} {
		want, _ := exec.Command("bash", "-c", command+" 2>&1").Output()
		res := tool.Run(testContext(t), command)
		if got := res.Stdout + res.Stderr; got != string(want) {
			t.Errorf("%s: skillsh printed %q, bash %q", command, got, want)
		}
	}
}

// TestDecisionLog: every decision, static and exec phase, is logged as one
// JSON line in OPA's decision-log shape, with secret values masked.
func TestDecisionLog(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	tool := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Log: shelltool.NewJSONLog(&buf)})
	tool.Run(testContext(t), "API_TOKEN=hunter2 ls; cat /etc/passwd")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 { // the static phase refuses: nothing runs
		t.Fatalf("%d records, want 1:\n%s", len(lines), buf.String())
	}
	var rec shelltool.DecisionRecord
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.DecisionID == "" || rec.Path != policy.Query || rec.Revision == "" || rec.Result.Verdict != policy.Deny {
		t.Errorf("record: %+v", rec)
	}
	if strings.Contains(strings.Join(strings.SplitAfter(lines[0], `"assigns"`)[1:], ""), "hunter2") {
		t.Errorf("secret value logged in assignments: %s", lines[0])
	}
	tool.Run(testContext(t), "ls; echo hi")
	if n := strings.Count(buf.String(), "\n"); n != 1+3 { // static, then ls and echo in the exec phase
		t.Errorf("%d records after an allowed command, want 4", n)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestInterpreterOpensResistPlantedLinks attacks the files the interpreter
// opens itself as root, under a policy that allows everything: a link
// planted where the interpreter keeps its named pipes, and a path that only
// looks like a device. Nothing outside the roots may be read or written.
func TestInterpreterOpensResistPlantedLinks(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	ws := tool.Workspace()
	secret := filepath.Join(testenv.Dir(t), "secret")
	if err := os.WriteFile(secret, []byte("SECRET-CANARY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(testenv.Dir(t), "pwned")
	for _, command := range []string{
		// The interpreter opens <TMPDIR>/sh-interp-* without its open handler.
		"ln -s " + secret + " .tmp/sh-interp-r; cat < " + ws + "/.tmp/sh-interp-r",
		"ln -s " + outside + " .tmp/sh-interp-w; echo PWNED > " + ws + "/.tmp/sh-interp-w",
		"ln -s " + secret + " $TMPDIR/sh-interp-r2; cat < $TMPDIR/sh-interp-r2",
		"ln -s " + outside + " $TMPDIR/sh-interp-w2; echo PWNED > $TMPDIR/sh-interp-w2",
		// A device name reached through a link and "..": the kernel ends up
		// at the workspace's own dev/null, a link to the secret.
		deviceLookalike(ws, secret, "cat < %s/dev/null"),
		deviceLookalike(ws, outside, "echo PWNED > %s/dev/zero"),
		"test -r " + secret + " && echo readable-outside",
	} {
		res := tool.Run(testContext(t), command)
		if strings.Contains(res.Stdout+res.Stderr, "SECRET-CANARY") || strings.Contains(res.Stdout, "readable-outside") {
			t.Errorf("%s: read outside the roots:\n%s", command, res.Text())
		}
		if _, err := os.Lstat(outside); err == nil {
			t.Fatalf("%s: wrote outside the roots", command)
		}
	}
}

// deviceLookalike builds a command whose redirection target cleans
// lexically to a device (ws/L/../../...) while the kernel, following the
// link L down as many levels as the ".." climb, ends at the workspace's
// own dev/null or dev/zero: a link to target. format gets the path up to
// "/dev/...".
func deviceLookalike(ws, target, format string) string {
	depth := strings.Count(ws, "/") + 1
	deep := ws + strings.Repeat("/d", depth)
	up := ws + "/L" + strings.Repeat("/..", depth)
	dev := "dev/null"
	if strings.Contains(format, "zero") {
		dev = "dev/zero"
	}
	return fmt.Sprintf("mkdir -p %s dev && ln -sfn %s L && ln -sf %s %s && "+format, deep, deep, target, dev, up)
}

// TestStandardStreamsByName: /dev/stdout and /dev/stderr are the call's own
// streams, as in bash, never skillsh's.
func TestStandardStreamsByName(t *testing.T) {
	t.Parallel()
	tool := newTool(t, false)
	res := tool.Run(testContext(t), "echo out > /dev/stdout; echo err > /dev/stderr; echo in | { read x < /dev/stdin; echo $x; }")
	if res.Stdout != "out\nin\n" || res.Stderr != "err\n" || res.ExitCode != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestTimeoutInBuiltinLoop: a loop of builtins that runs into the call's
// timeout is a timeout (124), not a policy failure.
func TestTimeoutInBuiltinLoop(t *testing.T) {
	t.Parallel()
	tool := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Timeout: time.Second})
	res := tool.Run(testContext(t), "while :; do :; done")
	if !res.TimedOut || res.ExitCode != shelltool.ExitTimeout || res.Refused {
		t.Errorf("timed out %v, exit %d, refused %v: %s", res.TimedOut, res.ExitCode, res.Refused, res.Text())
	}
}

// TestShellMemoryIsBounded: values the interpreter builds itself live in
// skillsh, outside the jail; a call that grows them past the bound is
// stopped, and skillsh keeps answering. The test's input is 300 MB, so a
// broken bound costs that, not the machine.
func TestShellMemoryIsBounded(t *testing.T) {
	t.Parallel()
	tool := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, ShellMemory: 64 << 20, Timeout: 20 * time.Second})
	res := tool.Run(testContext(t), "x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo ${#x}")
	if res.ExitCode != shelltool.ExitShellMemory || !strings.Contains(res.Error, "memory") || strings.Contains(res.Stdout, "300000000") {
		t.Errorf("exit %d, error %q, stdout %q", res.ExitCode, res.Error, res.Stdout)
	}
	if res := tool.Run(testContext(t), "echo still answering"); res.Stdout != "still answering\n" {
		t.Errorf("after the stop: %q", res.Stdout)
	}
}

// TestShellRecursionIsBounded: the stacks of functions that call
// themselves, in background jobs, count against the shell's memory bound
// (default 512 MiB): the call is stopped by it, not by the timeout, which
// heap objects alone would not reach first.
func TestShellRecursionIsBounded(t *testing.T) {
	t.Parallel()
	tool := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Timeout: 20 * time.Second})
	res := tool.Run(testContext(t), "f(){ f; }; for i in 1 2 3 4 5 6; do f & done; wait")
	if res.TimedOut || res.ExitCode != shelltool.ExitShellMemory || !strings.Contains(res.Error, "recursion") {
		t.Errorf("timed out %v, exit %d, error %q", res.TimedOut, res.ExitCode, res.Error)
	}
}

// TestEndlessDeviceReadsAreBounded: the shell reads at most MaxDeviceRead
// bytes from /dev/zero itself, so $(< /dev/zero), read and mapfile end
// instead of growing without end (before the timeout, which they do not
// look at). A program reading the device itself is not limited.
func TestEndlessDeviceReadsAreBounded(t *testing.T) {
	t.Parallel()
	tool := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Timeout: 20 * time.Second})
	want := strconv.Itoa(shelltool.MaxDeviceRead)
	for _, command := range []string{
		`x=$(< /dev/zero); echo ${#x}`,
		`read -r x < /dev/zero; echo ${#x}`,
		`mapfile -d "" a < /dev/zero; echo ${#a[@]}`,
	} {
		res := tool.Run(testContext(t), command)
		if res.TimedOut || strings.TrimSpace(res.Stdout) != want && strings.TrimSpace(res.Stdout) != "0" {
			t.Errorf("%s: %s", command, res.Text())
		}
	}
	res := tool.Run(testContext(t), "head -c 3000000 /dev/zero | wc -c; tr -dc a-z < /dev/urandom | head -c 5 | wc -c")
	if res.Stdout != "3000000\n5\n" {
		t.Errorf("programs reading devices: %s", res.Text())
	}
	// A redirection goes through the shell: bounded too, and not silently.
	res = tool.Run(testContext(t), "head -c 3000000 < /dev/zero | wc -c")
	if res.Stdout != want+"\n" || !strings.Contains(res.Stderr, "passes at most 1 MiB from /dev/zero") {
		t.Errorf("a program given /dev/zero by the shell: %s", res.Text())
	}
}

// TestWorkspaceFilesDoNotExecute: a file the model wrote cannot run as a
// program; the message says how to run a script instead.
func TestWorkspaceFilesDoNotExecute(t *testing.T) {
	t.Parallel()
	tool := newTool(t, false)
	res := tool.Run(testContext(t), "printf 'echo hi\\n' > s.sh && chmod +x s.sh && ./s.sh; bash s.sh")
	if !strings.Contains(res.Stderr, "cannot be executed; run a script with its interpreter") || res.Stdout != "hi\n" {
		t.Errorf("stdout %q, stderr %q", res.Stdout, res.Stderr)
	}
}

// TestSpecialFilesDoNotBlock: a named pipe in the workspace, with nothing
// at its other end, would block the interpreter's own open beyond the
// call's timeout. The shell refuses to open it at once, with a reason.
func TestSpecialFilesDoNotBlock(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	if err := syscall.Mkfifo(filepath.Join(tool.Workspace(), "fifo"), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"read x < fifo", "echo x > fifo", "echo x >> fifo", "cat < fifo"} {
		res := tool.Run(testContext(t), command)
		if res.TimedOut || res.ExitCode == 0 || !strings.Contains(res.Stderr, "not a regular file") {
			t.Errorf("%s: timed out %v, exit %d, stderr %q", command, res.TimedOut, res.ExitCode, res.Stderr)
		}
	}
}

// TestShellWritesAreBounded: a loop of builtins writing into a file is
// held to the file size limit programs have, instead of filling the disk
// until the timeout.
func TestShellWritesAreBounded(t *testing.T) {
	t.Parallel()
	const limit = 4096
	tool := newToolWith(t, shelltool.Config{
		Skills: []string{testenv.Skills(t)}, Timeout: 20 * time.Second, Jail: jail.Config{Limits: jail.Profile{FileSize: limit}},
	})
	line := strings.Repeat("x", 99)
	for _, command := range []string{
		"i=0; while [ $i -lt 100 ]; do echo " + line + "; i=$((i+1)); done > big",
		"echo " + line + " > big; i=0; while [ $i -lt 100 ]; do echo " + line + " >> big; i=$((i+1)); done",
	} {
		res := tool.Run(testContext(t), command)
		fi, err := os.Stat(filepath.Join(tool.Workspace(), "big"))
		if err != nil || fi.Size() != limit {
			t.Errorf("%s: size %v (%v), want %d; %s", command, fi, err, limit, res.Text())
		}
	}
	// A program given a redirected file is bounded by the kernel instead,
	// and the shell's own writes after it count from where it left off.
	res := tool.Run(testContext(t), "{ head -c 100000 /dev/zero; echo "+line+"; } > big2; { head -c 100000 /dev/zero; echo "+line+"; } >> big3")
	for _, name := range []string{"big2", "big3"} {
		if fi, err := os.Stat(filepath.Join(tool.Workspace(), name)); err != nil || fi.Size() != limit {
			t.Errorf("%s, a program's then the shell's writes: %v %v; %s", name, fi, err, res.Text())
		}
	}
}

// TestPipesDirectoryTakesNoFiles: the interpreter opens paths in its pipes
// directory itself, as root and without the open handler. A redirection
// into it, named through a process substitution's path, is caught: the
// file is removed and the call stopped with 126. Process substitution
// itself still works.
func TestPipesDirectoryTakesNoFiles(t *testing.T) {
	t.Parallel()
	tool := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Timeout: 20 * time.Second})
	res := tool.Run(testContext(t), `cat <(echo from-a-pipe); f=<(:); echo "${f%/*}"`)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "from-a-pipe") {
		t.Fatalf("process substitution: %s", res.Text())
	}
	pipes := strings.TrimSpace(strings.TrimPrefix(res.Stdout, "from-a-pipe\n"))
	for _, command := range []string{
		`f=<(:); echo PWNED > "${f%/*}/sh-interp-x"`,
		`f=<(:); i=0; while [ $i -lt 1000000 ]; do echo 0123456789; i=$((i+1)); done > "${f%/*}/sh-interp-big"; echo after`,
	} {
		res := tool.Run(testContext(t), command)
		if res.ExitCode != shelltool.ExitRefused || !strings.Contains(res.Error, "pipes directory") || strings.Contains(res.Stdout, "after") {
			t.Errorf("%s: %s", command, res.Text())
		}
		// Every session has its own directory under the tool's.
		err := filepath.WalkDir(filepath.Dir(pipes), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && e.Type()&fs.ModeNamedPipe == 0 {
				t.Errorf("%s: %s left in the pipes directory", command, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestSessionsKeepTheirPipes: the end of one session's call releases only
// its own pipes; another session's pipe, not opened yet, survives it.
func TestSessionsKeepTheirPipes(t *testing.T) {
	t.Parallel()
	tool := newTool(t, false)
	a, b := tool.NewSession(), tool.NewSession()
	done := make(chan *shelltool.Result)
	go func() { done <- a.Run(testContext(t), `x=<(echo data-of-a); sleep 1; cat "$x"`) }()
	time.Sleep(300 * time.Millisecond)
	if res := b.Run(testContext(t), "echo b"); res.Stdout != "b\n" {
		t.Errorf("session b: %s", res.Text())
	}
	if res := <-done; res.Stdout != "data-of-a\n" {
		t.Errorf("session a lost its pipe to session b's call: %s", res.Text())
	}
}

// TestFileTestsLearnNothingOutside: the shell's own file tests and opens
// resolve paths without looking outside the roots: a path through a name
// that exists there and one through a name that does not answer alike.
func TestFileTestsLearnNothingOutside(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	outside := t.TempDir()
	for _, d := range []string{"hidden-name", "a/b"} {
		if err := os.MkdirAll(filepath.Join(outside, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// Followed for real, lnk/.. is outside/a, not outside.
	if err := os.Symlink(filepath.Join(outside, "a", "b"), filepath.Join(outside, "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tool.Workspace(), "f"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(outside, tool.Workspace())
	if err != nil {
		t.Fatal(err)
	}
	probe := func(name string) string {
		p := outside + "/" + name + "/../lnk/../" + rel + "/f"
		res := tool.Run(testContext(t), "[[ -e "+p+" ]] && echo yes || echo no; read -r line < "+p+" 2>&1 && echo \"$line\"")
		return strings.ReplaceAll(res.Stdout, name, "NAME")
	}
	if a, b := probe("hidden-name"), probe("no-such-name"); a != b {
		t.Errorf("a name outside the roots changes the answer:\n%s\n%s", a, b)
	}
	// Nor does a link there into the system directories or /dev.
	for link, target := range map[string]string{"tousr": "/usr/bin", "todev": "/dev"} {
		if err := os.Symlink(target, filepath.Join(outside, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, pair := range [][2]string{{"tousr", "nolink"}, {"todev/null", "sub/null"}} {
		answer := func(p string) string {
			res := tool.Run(testContext(t), "[[ -e "+outside+"/"+p+" ]] && echo yes || echo no; read -r l < "+outside+"/"+p+" && echo read")
			return res.Stdout
		}
		if a, b := answer(pair[0]), answer(pair[1]); a != b {
			t.Errorf("a link outside the roots changes the answer: %s %q, %s %q", pair[0], a, pair[1], b)
		}
	}
}

// TestProcessSubstitutionsEnd: a process substitution that nothing opens
// holds a goroutine blocked in opening its named pipe. A wait for it ends
// at the call's timeout, a loop that piles them up is stopped, and none is
// left behind after the call.
func TestProcessSubstitutionsEnd(t *testing.T) {
	tool := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Timeout: 2 * time.Second})
	before := runtime.NumGoroutine()
	done := make(chan *shelltool.Result)
	go func() { done <- tool.Run(testContext(t), "echo >(:); wait; echo after") }()
	select {
	case res := <-done:
		if !res.TimedOut {
			t.Errorf("wait for a pipe never opened: %s", res.Text())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a wait for a process substitution outlived the call's timeout by 28s")
	}
	res := tool.Run(testContext(t), "for i in $(seq 2000); do : >(:); done; echo done")
	if res.ExitCode != shelltool.ExitRefused || !strings.Contains(res.Error, "process substitutions") || strings.Contains(res.Stdout, "done") {
		t.Errorf("piling up process substitutions: %s", res.Text())
	}
	// A pipe made after the call's context ended, while its last statement
	// was still being expanded, is released too.
	short := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Timeout: 300 * time.Millisecond})
	for range 15 {
		if res := short.Run(testContext(t), "x=$(sleep 1) y=<(:)"); !res.TimedOut {
			t.Fatalf("sleeping past the timeout: %s", res.Text())
		}
	}
	// The released goroutines end shortly after the call.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+10 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+10 {
		t.Errorf("%d goroutines after the calls, %d before", n, before)
	}
}

// TestShellNamesResolveInTheSessionsTerms: PATH and PWD changed behind the
// static check (through a nameref) are seen by the exec phase before the
// shell looks a name up in them as root (type -P, pwd -P): nothing outside
// the roots is named, and the command is refused.
func TestShellNamesResolveInTheSessionsTerms(t *testing.T) {
	t.Parallel()
	tool := newTool(t, false)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "tool-secret"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{
		"declare -n r=PATH; r=" + outside + "; type -P tool-secret; echo end",
		"declare -n r=PWD; r=" + outside + "/tool-secret; pwd -P; echo end",
		"declare -n r=PATH; r=" + outside + "; tool-secret; echo end",
		"declare -n r=PATH; r=(" + outside + "); type -P tool-secret; echo end",
		"declare -n r=PWD; r=(" + outside + "/tool-secret); pwd -P; echo end",
	} {
		res := tool.Run(testContext(t), command)
		if res.ExitCode != shelltool.ExitRefused || strings.Contains(res.Stdout, outside) || strings.Contains(res.Stdout, "end") {
			t.Errorf("%s: %s", command, res.Text())
		}
	}
}

// TestProgramsAtOnceAreBounded: a loop of background programs starts at
// most MaxPrograms at once; the others fail to start and say why, so the
// per-program process limit is not multiplied without end.
func TestProgramsAtOnceAreBounded(t *testing.T) {
	t.Parallel()
	tool := newToolWith(t, shelltool.Config{Skills: []string{testenv.Skills(t)}, Timeout: 20 * time.Second})
	n := shelltool.MaxPrograms + 8
	res := tool.Run(testContext(t), "for i in $(seq "+strconv.Itoa(n)+"); do sleep 1 & done; wait; echo done")
	refused := strings.Count(res.Stderr, "programs of this call are running already")
	if refused < n-shelltool.MaxPrograms || !strings.Contains(res.Stdout, "done") {
		t.Errorf("%d of %d refused, want at least %d:\n%s", refused, n, n-shelltool.MaxPrograms, res.Text())
	}
}

// TestFileTestsResistSwappedLinks races the interpreter's own looks at the
// file system (globs, file tests) against a link swapped, as fast as the
// test can, between a workspace directory and /etc: whatever the timing,
// no name or file outside the roots may be seen.
func TestFileTestsResistSwappedLinks(t *testing.T) {
	t.Parallel()
	tool := newTool(t, true)
	ws := tool.Workspace()
	if err := os.Mkdir(filepath.Join(ws, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := "d"
			if i%2 == 1 {
				target = "/etc"
			}
			tmp := filepath.Join(ws, fmt.Sprintf("l.%d", i%2))
			_ = os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				_ = os.Rename(tmp, filepath.Join(ws, "l"))
			}
		}
	}()
	res := tool.Run(testContext(t), `i=0
while [ $i -lt 3000 ]; do
  for f in l/*; do case $f in *passwd*|*hostname*) echo LEAK-glob $f;; esac; done
  [ -e l/passwd ] && echo LEAK-test
  [ -r l/hostname ] && echo LEAK-access
  i=$((i+1))
done
echo finished`)
	close(stop)
	<-done
	if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, "finished") {
		t.Errorf("%s", res.Text())
	}
}

// TestCdDashGoesWhereOldPwdSays: `cd -` is judged as a cd to $OLDPWD,
// which a command can set to anything; a bare `cd` goes to $HOME, whose
// change the exec phase refuses at the next command already.
func TestCdDashGoesWhereOldPwdSays(t *testing.T) {
	t.Parallel()
	tool := newTool(t, false)
	for command, code := range map[string]string{
		"OLDPWD=/usr; cd -; pwd":                   "cd.outside_roots",
		"read OLDPWD <<< /etc; cd - && pwd":        "cd.outside_roots",
		"OLDPWD=/usr; builtin cd -; pwd":           "cd.outside_roots",
		"OLDPWD=/usr; command cd -; pwd":           "cd.outside_roots",
		"unset HOME; : ${HOME:=/usr/bin}; cd; pwd": "env.sensitive_assignment",
	} {
		res := tool.Run(testContext(t), command)
		if !res.Refused || !strings.Contains(res.Text(), code) || strings.Contains(res.Stdout, "/usr") {
			t.Errorf("%s: not refused by %s:\n%s", command, code, res.Text())
		}
	}
	res := tool.Run(testContext(t), "mkdir -p a && cd a && cd - >/dev/null && pwd")
	if res.Refused || res.Stdout != tool.Workspace()+"\n" {
		t.Errorf("cd - within the workspace:\n%s", res.Text())
	}
}

// TestNoSkillsRootsStillConfines: with no skills roots at all, reads stay
// confined to the workspace (the policy once let everything through).
func TestNoSkillsRootsStillConfines(t *testing.T) {
	t.Parallel()
	tool := newToolWith(t, shelltool.Config{Timeout: 20 * time.Second})
	res := tool.Run(testContext(t), "cat /etc/passwd")
	if !res.Refused || strings.Contains(res.Stdout, "root:") || !strings.Contains(res.Text(), "path.outside_roots") {
		t.Errorf("not refused:\n%s", res.Text())
	}
	if res := tool.Run(testContext(t), "echo hi > a && cat a"); res.Stdout != "hi\n" {
		t.Errorf("workspace use: %s", res.Text())
	}
}
