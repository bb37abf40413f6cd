package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillsh/skillsh/internal/testenv"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"skillsh": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the command-line specifications in testdata/script,
// one behaviour per file. Each script gets copies of the demo and invalid
// skills in $SKILLS and $INVALID, readable by the unprivileged uid the jail
// runs programs as.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../testdata/script",
		RequireExplicitExec: true,
		Setup:               setupScript,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"running":  cmdRunning,
			"status":   cmdStatus,
			"waitfile": cmdWaitFile,
		},
	})
}

func setupScript(env *testscript.Env) error {
	if err := openToAll(env.WorkDir); err != nil {
		return err
	}
	for name, src := range map[string]string{"SKILLS": "skills", "INVALID": "invalid-skills"} {
		dst := filepath.Join(env.WorkDir, strings.ToLower(name))
		if err := testenv.CopyTree(dst, filepath.Join(testenv.RepoRoot(), "testdata", src)); err != nil {
			return err
		}
		env.Setenv(name, dst)
	}
	return nil
}

// openToAll lets other users traverse dir and its parents up to the
// temporary directory, which the test framework creates private.
func openToAll(dir string) error {
	tmp := filepath.Clean(os.TempDir())
	for d := dir; strings.HasPrefix(d, tmp+"/"); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// cmdStatus runs a program like exec and asserts its exact exit status:
// "status 126 skillsh run -c 'cat /etc/passwd'". Its output can be
// checked with stdout and stderr afterwards.
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("status: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// cmdWaitFile waits up to 10 seconds for a file to exist, for a
// background helper of the script to get ready.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
	}
	ts.Fatalf("%s did not appear within 10s", args[0])
}

// cmdRunning asserts that a process whose command line contains the
// argument is (or, negated, is not) running: "! running 'sleep 31'" proves
// that nothing a command started outlived it.
func cmdRunning(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: running PATTERN")
	}
	err := exec.Command("pgrep", "-f", args[0]).Run()
	switch {
	case err == nil && neg:
		out, _ := exec.Command("pgrep", "-af", args[0]).Output()
		ts.Fatalf("still running: %s", out)
	case err != nil && !neg:
		ts.Fatalf("no process matches %q", args[0])
	}
}
