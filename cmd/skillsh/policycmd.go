package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
	}
	return usagef("unknown policy subcommand %q: use test or check", args[0])
}

// policyTest runs the Rego unit tests of the default policy and of the
// given directories, and prints each result and the line coverage.
func policyTest(args []string, stdout, stderr io.Writer) error {
	f := newFlags("policy test", stderr)
	verbose := f.Bool("v", false, "print every test, not only failures")
	noDefault := f.Bool("no-default", false, "leave out the built-in default policy and its tests")
	if err := f.parse(args); err != nil {
		return err
	}
	rep, err := policy.RunTests(context.Background(), !*noDefault, f.Args()...)
	if err != nil {
		return err
	}
	for _, r := range rep.Results {
		if *verbose || !r.Pass() {
			fmt.Fprintf(stdout, "%s\n", strings.TrimSpace(r.String()))
		}
	}
	fmt.Fprintf(stdout, "coverage:\n")
	for _, name := range rep.Files() {
		fr := rep.Coverage.Files[name]
		fmt.Fprintf(stdout, "  %6.1f%%  %s\n", fr.Coverage, name)
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
