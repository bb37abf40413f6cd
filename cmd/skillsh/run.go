package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func cmdRun(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	f := newFlags("run", stderr)
	command := f.String("c", "", "the `command` to run")
	asJSON := f.Bool("json", false, "print the result as one JSON object")
	if err := f.parse(args); err != nil {
		return err
	}
	if err := needCommand(f, *command); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t, closeTool, err := f.tool(ctx, stderr)
	if err != nil {
		return err
	}
	defer closeTool()
	res := t.Run(ctx, *command)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		fmt.Fprint(stdout, res.Text())
	}
	if res.ExitCode != 0 {
		return &exitError{code: res.ExitCode}
	}
	return nil
}

// needCommand checks that -c was given and nothing else is left over.
func needCommand(f *flags, command string) error {
	if f.NArg() > 0 {
		return usagef("unexpected arguments %q; pass the command with -c", f.Args())
	}
	if command == "" && f.set("c") {
		return usagef("the command given with -c is empty")
	}
	if command == "" {
		return usagef("no command: pass one with -c")
	}
	return nil
}
