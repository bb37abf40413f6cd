package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillsh/skillsh/policy"
	"github.com/skillsh/skillsh/shelltool"
)

func cmdExplain(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	f := newFlags("explain", stderr)
	asJSON := f.Bool("json", false, "print the explanation as one JSON object")
	ex, err := explainCommand(f, args, stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	writeExplanation(stdout, ex)
	return nil
}

// explainCommand parses f's flags and -c, and decides the command without
// running it. Input that does not parse exits 2, as run does.
func explainCommand(f *flags, args []string, stderr io.Writer) (*shelltool.Explanation, error) {
	command := f.String("c", "", "the `command` to decide")
	if err := f.parse(args); err != nil {
		return nil, err
	}
	if err := needCommand(f, *command); err != nil {
		return nil, err
	}
	ctx := context.Background()
	f.decideOnly = true
	t, closeTool, err := f.tool(ctx, io.Discard)
	if err != nil {
		return nil, err
	}
	defer closeTool()
	ex, err := t.NewSession().Explain(ctx, *command)
	var ie *shelltool.InputError
	if errors.As(err, &ie) {
		fmt.Fprintf(stderr, "skillsh: %v\n", ie)
		return nil, &exitError{code: shelltool.ExitUsage}
	}
	if ex == nil {
		return nil, err
	}
	return ex, nil
}

func writeExplanation(w io.Writer, ex *shelltool.Explanation) {
	fmt.Fprintf(w, "command: %s\n", ex.Command)
	fmt.Fprintf(w, "decision: %s\n", ex.Decision.Verdict)
	for _, r := range ex.Decision.Reasons {
		fmt.Fprintf(w, "  %s %s", r.Verdict, r.Code)
		if r.Rule != "" {
			fmt.Fprintf(w, " (%s)", r.Rule)
		}
		if r.Span != nil {
			fmt.Fprintf(w, " at %d:%d %q", r.Span.Line, r.Span.Col, spanText(ex.Command, r.Span))
		}
		fmt.Fprintf(w, "\n    %s\n", r.Message)
		if r.Allowed != "" {
			fmt.Fprintf(w, "    allowed instead: %s\n", r.Allowed)
		}
	}
	if ex.Decision.Profile != nil {
		p, _ := json.Marshal(ex.Decision.Profile)
		fmt.Fprintf(w, "profile: %s\n", p)
	}
	fmt.Fprintf(w, "commands (%d):\n", len(ex.Input.Commands))
	for _, c := range ex.Input.Commands {
		writeCommand(w, ex.Command, c)
	}
	doc, _ := json.MarshalIndent(ex.Input, "", "  ")
	fmt.Fprintf(w, "policy input:\n%s\n", doc)
}

func writeCommand(w io.Writer, src string, c policy.Command) {
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		argv[i] = a.Value
		if a.Dynamic {
			argv[i] = "<dynamic:" + strings.Join(a.Expansions, ",") + ">"
		}
	}
	fmt.Fprintf(w, "  [%d] %s %q", c.Index, c.Kind, argv)
	if c.Program != "" {
		fmt.Fprintf(w, " program=%s", c.Program)
	}
	if c.Wrapper != nil {
		fmt.Fprintf(w, " run-by=%s[%d]", c.Wrapper.Name, c.Wrapper.Parent)
	}
	if c.Opaque != "" {
		fmt.Fprintf(w, " opaque=%q", c.Opaque)
	}
	if len(c.Context) > 0 {
		fmt.Fprintf(w, " context=%s", strings.Join(c.Context, ","))
	}
	fmt.Fprintln(w)
	for _, p := range c.Paths {
		if !p.Dynamic {
			fmt.Fprintf(w, "      path %s -> %s (root: %s)\n", p.Value, p.Resolved, rootName(p.Root))
		}
	}
	for _, r := range c.Redirects {
		if r.Path != nil {
			fmt.Fprintf(w, "      redirect %s %s -> %s (root: %s)\n", r.Op, r.Access, r.Path.Resolved, rootName(r.Path.Root))
		}
	}
}

func rootName(r string) string {
	if r == "" {
		return "none"
	}
	return r
}

func spanText(src string, s *policy.Span) string {
	if s.Start < 0 || s.End > len(src) || s.Start >= s.End {
		return ""
	}
	return src[s.Start:s.End]
}
