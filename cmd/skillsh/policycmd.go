package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/skillsh/skillsh/policy"
	"github.com/skillsh/skillsh/shelltool"
)

func cmdPolicy(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("policy needs a subcommand: test or check")
	}
	switch args[0] {
	case "test":
		return policyTest(args[1:], stdout, stderr)
	case "check":
		return policyCheck(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, policyHelp)
		return nil
	}
	return usagef("unknown policy subcommand %q: use test or check", args[0])
}

const policyHelp = `Usage:
  skillsh policy test [-v] [--no-default] [DIR...]   run Rego unit tests (test_ rules) with line coverage
  skillsh policy check [flags] -c COMMAND            the decision for COMMAND as JSON; exit 126 unless allowed

Run 'skillsh policy test -h' or 'skillsh policy check -h' for their flags,
'skillsh help' for every command.
`

// policyTest runs the Rego unit tests of the default policy and of the
// given directories, and prints each result and the line coverage.
func policyTest(args []string, stdout, stderr io.Writer) error {
	f := newFlags("policy test", stderr)
	verbose := f.Bool("v", false, "print every test, not only failures")
	noDefault := f.Bool("no-default", false, "leave out the built-in default policy and its tests")
	dirs, err := f.parseInterspersed(args)
	if err != nil {
		return err
	}
	dirs = append(dirs, f.cfg.Policy...)
	rep, err := policy.RunTests(context.Background(), !*noDefault && !f.cfg.PolicyOnly, dirs...)
	if err != nil {
		return err
	}
	for _, r := range rep.Results {
		if *verbose || !r.Pass() {
			writeTestResult(stdout, r, rep.FailedAt[r.Package+"."+r.Name])
		}
	}
	fmt.Fprintf(stdout, "coverage:\n")
	for _, name := range rep.Files() {
		fr := rep.Coverage.Files[name]
		fmt.Fprintf(stdout, "  %6.1f%%  %s\n", fr.Coverage, name)
		if len(fr.NotCovered) > 0 && (*verbose || !strings.HasPrefix(name, "skillsh/")) {
			fmt.Fprintf(stdout, "           not covered: lines %s\n", lineRanges(fr.NotCovered))
		}
	}
	for _, p := range rep.Annotations {
		fmt.Fprintf(stdout, "annotation: %s\n", p)
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", rep.Passed, rep.Failed)
	if !rep.OK() {
		if rep.Passed+rep.Failed == 0 {
			fmt.Fprintln(stderr, "skillsh: no policy tests found")
		}
		return &exitError{code: exitFail}
	}
	return nil
}

// writeTestResult prints one test's outcome; a failed one with the
// expression that failed and what it printed.
func writeTestResult(w io.Writer, r *tester.Result, failedAt string) {
	fmt.Fprintf(w, "%s\n", strings.TrimSpace(r.String()))
	if failedAt != "" {
		fmt.Fprintf(w, "    failed at %s\n", failedAt)
	}
	if out := strings.TrimSpace(string(r.Output)); out != "" && !r.Pass() {
		for line := range strings.Lines(out) {
			fmt.Fprintf(w, "    print: %s", line)
		}
		fmt.Fprintln(w)
	}
}

// lineRanges writes coverage ranges as "3-5, 9".
func lineRanges(rs []cover.Range) string {
	var parts []string
	for _, r := range rs {
		p := strconv.Itoa(r.Start.Row)
		if r.End.Row != r.Start.Row {
			p += "-" + strconv.Itoa(r.End.Row)
		}
		parts = append(parts, p)
	}
	return strings.Join(slices.Compact(parts), ", ")
}

// policyCheck prints the decision for a command as JSON: the static phase
// only, nothing runs.
func policyCheck(args []string, stdout, stderr io.Writer) error {
	ex, err := explainCommand(newFlags("policy check", stderr), args, stderr)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ex.Decision); err != nil {
		return err
	}
	if ex.Decision.Verdict != policy.Allow {
		return &exitError{code: shelltool.ExitRefused}
	}
	return nil
}
