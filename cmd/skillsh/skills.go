package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/skillsh/skillsh/shelltool/skills"
)

func cmdSkills(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("skills needs a subcommand: list, validate or prompt")
	}
	sub, rest := args[0], args[1:]
	f := newFlags("skills "+sub, stderr)
	asJSON := f.Bool("json", false, "print as JSON (list)")
	if err := f.parse(rest); err != nil {
		return err
	}
	roots := f.skillsRoots()
	if len(roots) == 0 {
		return usagef("no skills roots: pass --skills DIR (or run where ./skills exists)")
	}
	switch sub {
	case "list":
		return skillsList(roots, *asJSON, stdout, stderr)
	case "validate":
		return skillsValidate(roots, stdout)
	case "prompt":
		return skillsPrompt(roots, stdout, stderr)
	}
	return usagef("unknown skills subcommand %q: use list, validate or prompt", sub)
}

// skillEntry is one line of `skills list --json`.
type skillEntry struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Location     string   `json:"location"`
	AllowedTools []string `json:"allowed_tools,omitempty"`
}

func skillsList(roots []string, asJSON bool, stdout, stderr io.Writer) error {
	catalog, problems, err := skills.Discover(roots...)
	if err != nil {
		return err
	}
	writeWarnings(stderr, problems)
	if asJSON {
		entries := make([]skillEntry, len(catalog))
		for i, s := range catalog {
			entries[i] = skillEntry{s.Name, s.Description, s.Location, s.AllowedTools}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	for _, s := range catalog {
		fmt.Fprintf(stdout, "%-20s %-60s %s\n", s.Name, shorten(s.Description, 60), s.Location)
	}
	return nil
}

func skillsValidate(roots []string, stdout io.Writer) error {
	problems, err := skills.Validate(roots...)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p.String())
	}
	if skills.HasErrors(problems) {
		return &exitError{code: exitFail}
	}
	fmt.Fprintln(stdout, "all skills are valid")
	return nil
}

func skillsPrompt(roots []string, stdout, stderr io.Writer) error {
	catalog, problems, err := skills.Discover(roots...)
	if err != nil {
		return err
	}
	writeWarnings(stderr, problems)
	fmt.Fprint(stdout, skills.Prompt(catalog))
	return nil
}

func writeWarnings(w io.Writer, problems []skills.Problem) {
	for _, p := range problems {
		fmt.Fprintf(w, "skillsh: %s\n", p.String())
	}
}

// shorten cuts s to at most n characters on one line, marking the cut.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
