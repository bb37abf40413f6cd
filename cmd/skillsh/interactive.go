package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"

	"github.com/skillsh/skillsh/shelltool"
)

// cmdInteractive is the interactive session: each complete command is one
// tool call in a session that keeps its directory and variables, printed
// exactly as the model would read it.
func cmdInteractive(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := newFlags("skillsh", stderr)
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return usagef("unknown subcommand %q", f.Arg(0))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	in := bufio.NewReader(stdin)
	f.approver = terminalApprover(in, stdout)
	t, closeTool, err := f.tool(ctx, stderr)
	if err != nil {
		return err
	}
	defer closeTool()
	fmt.Fprintf(stdout, "skillsh: %d skills; workspace %s; type exit or ^D to leave\n", len(catalogOf(t)), t.Workspace())
	return repl(ctx, t.NewSession(), t.Workspace(), in, stdout)
}

func catalogOf(t *shelltool.Tool) []string {
	catalog, _ := t.Skills()
	names := make([]string, len(catalog))
	for i, s := range catalog {
		names[i] = s.Name
	}
	return names
}

// repl reads commands until the input ends or "exit".
func repl(ctx context.Context, s *shelltool.Session, workspace string, in *bufio.Reader, out io.Writer) error {
	for {
		command, err := readCommand(in, out, prompt(s.Dir(), workspace))
		if command == "exit" || (errors.Is(err, io.EOF) && command == "") {
			fmt.Fprintln(out)
			return nil
		}
		if strings.TrimSpace(command) != "" {
			fmt.Fprint(out, runInterrupted(ctx, s, command).Text())
		}
		if err != nil {
			return nil
		}
	}
}

// runInterrupted runs one call; ^C ends the call, not the session.
func runInterrupted(ctx context.Context, s *shelltool.Session, command string) *shelltool.Result {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	return s.Run(ctx, command)
}

// readCommand reads lines until they form a complete command, showing a
// continuation prompt while the parser says the input is incomplete.
func readCommand(in *bufio.Reader, out io.Writer, ps1 string) (string, error) {
	fmt.Fprint(out, ps1)
	var text strings.Builder
	for {
		line, err := in.ReadString('\n')
		text.WriteString(line)
		if err != nil {
			return strings.TrimSpace(text.String()), err
		}
		if !incomplete(text.String()) {
			return strings.TrimSpace(text.String()), nil
		}
		fmt.Fprint(out, "> ")
	}
}

func incomplete(src string) bool {
	_, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	var pe syntax.ParseError
	return errors.As(err, &pe) && pe.Incomplete
}

func prompt(dir, workspace string) string {
	rel, err := filepath.Rel(workspace, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return dir + " $ "
	}
	if rel == "." {
		return "~ $ "
	}
	return "~/" + rel + " $ "
}

// terminalApprover asks on the session's own input and output.
func terminalApprover(in *bufio.Reader, out io.Writer) shelltool.Approver {
	return shelltool.ApproverFunc(func(_ context.Context, req *shelltool.ApprovalRequest) (bool, error) {
		fmt.Fprintf(out, "The policy asks you to approve: %s\n", req.Command)
		for _, r := range req.Reasons {
			fmt.Fprintf(out, "  - %s (%s)\n", r.Message, r.Code)
		}
		fmt.Fprint(out, "Approve? [y/N] ")
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return false, err
		}
		answer := strings.ToLower(strings.TrimSpace(line))
		return answer == "y" || answer == "yes", nil
	})
}
