package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/skillsh/skillsh/jail"
)

func cmdDoctor(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	f := newFlags("doctor", stderr)
	asJSON := f.Bool("json", false, "print the protections as JSON")
	if err := f.parse(args); err != nil {
		return err
	}
	status := jail.Probe()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(status)
	}
	missing := 0
	for _, s := range status {
		mark := "in force"
		if !s.Active {
			mark, missing = "MISSING ", missing+1
		}
		fmt.Fprintf(stdout, "%-8s  %-15s %s\n", mark, s.Protection, s.Detail)
	}
	if missing > 0 {
		fmt.Fprintf(stdout, "\n%d protection(s) missing on this host; --require NAME refuses to run without one.\n", missing)
	}
	return nil
}
