// Command skillsh gives an LLM agent one `shell` tool for Agent Skills, and
// lets a person run, explain and debug exactly what the model would.
//
// Usage:
//
//	skillsh [flags]                               interactive session
//	skillsh run [--json] [flags] -c COMMAND       one tool call
//	skillsh explain [--json] [flags] -c COMMAND   decision and policy input; nothing runs
//	skillsh skills list|validate|prompt [flags]   the skills catalog
//	skillsh policy test [DIR...] | check -c COMMAND
//	skillsh doctor                                which kernel protections are in force
//
// See the README for every flag.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit statuses of skillsh itself; `run` exits with the command's own.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usageError is a mistake in the command line; it exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitError carries an exit status decided by a subcommand.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

type subcommand func(args []string, stdin io.Reader, stdout, stderr io.Writer) error

var subcommands = map[string]subcommand{
	"run":     cmdRun,
	"explain": cmdExplain,
	"skills":  cmdSkills,
	"policy":  cmdPolicy,
	"doctor":  cmdDoctor,
	"help":    cmdHelp,
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sub, rest := cmdInteractive, args
	if len(args) > 0 {
		if fn, ok := subcommands[args[0]]; ok {
			sub, rest = fn, args[1:]
		}
	}
	err := sub(rest, stdin, stdout, stderr)
	var ue *usageError
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "skillsh: %s\nRun 'skillsh help' for usage.\n", ue.msg)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "skillsh: %v\n", err)
		return exitFail
	}
}

const helpText = `skillsh gives an LLM agent one "shell" tool for Agent Skills.

Usage:
  skillsh [flags]                               interactive session
  skillsh run [--json] [flags] -c COMMAND       one tool call, printed as the model sees it
  skillsh explain [--json] [flags] -c COMMAND   decision, reasons and policy input; nothing runs
  skillsh skills list [--json] | validate | prompt [flags]
  skillsh policy test [DIR...]                  run Rego unit tests with coverage
  skillsh policy check [flags] -c COMMAND       the decision as JSON
  skillsh doctor [--json]                       which kernel protections are in force here

Common flags:
  --skills DIR        a skills root (repeatable; default ./skills if it exists)
  --workspace DIR     the writable workspace (default: a new temporary directory)
  --policy PATH       a policy directory or bundle added to the default (repeatable)
  --policy-only       use only the --policy policies, not the built-in default
  --timeout DURATION  wall-clock limit of one call (default 30s)
  --require LIST      protections that must be in force, comma-separated, or "all"
  --config FILE       YAML file with any of the flags above
  --decision-log FILE append one JSON decision record a line

Exit status of run: the command's own; 124 timeout; 125 sandbox setup failed;
126 refused by policy; 2 usage or parse error.
`

func cmdHelp(_ []string, _ io.Reader, stdout, _ io.Writer) error {
	fmt.Fprint(stdout, helpText)
	return nil
}
