package shelltool

import (
	"fmt"
	"strings"
	"time"

	"github.com/skillsh/skillsh/policy"
)

// Exit statuses of a call that did not end with the command's own status.
const (
	ExitUsage     = 2   // input that does not parse, or is empty, too long or holds a NUL
	ExitTimeout   = 124 // the call's wall-clock timeout ended it
	ExitJailSetup = 125 // the jail could not be set up; the program never ran
	ExitRefused   = 126 // the policy denied it, or approval was refused
	// ExitShellMemory: the shell's own values grew past Config.ShellMemory,
	// reported like a program the kernel killed for memory (128+SIGKILL).
	ExitShellMemory = 137
)

// Result is what one call returns: the JSON object of `skillsh run --json`
// and, through Text, what the model reads.
type Result struct {
	Command  string          `json:"command"`
	Decision policy.Verdict  `json:"decision"`
	Reasons  []policy.Reason `json:"reasons"`
	// Refused is true when the policy (or a person) stopped the command.
	Refused  bool   `json:"refused"`
	Approved bool   `json:"approved,omitempty"`
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timed_out"`
	// Truncated is true when output was cut; the cut byte counts say how
	// much of each stream.
	Truncated      bool  `json:"truncated"`
	StdoutCutBytes int64 `json:"stdout_cut_bytes"`
	StderrCutBytes int64 `json:"stderr_cut_bytes"`
	DurationMS     int64 `json:"duration_ms"`
	// CPUMS and PeakMemoryBytes add up the jailed programs.
	CPUMS           int64    `json:"cpu_ms"`
	PeakMemoryBytes int64    `json:"peak_memory_bytes"`
	Workspace       string   `json:"workspace"`
	Cwd             string   `json:"cwd"`
	Protections     []string `json:"protections"`
	WithheldEnv     []string `json:"withheld_env"`
	// Error describes input that could not be parsed or a jail that could
	// not be set up.
	Error string   `json:"error,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// finish fills in output and timing.
func (c *call) finish() *Result {
	r := c.res
	r.Stdout, r.Stderr = c.stdout.String(), c.stderr.String()
	r.StdoutCutBytes, r.StderrCutBytes = c.stdout.Cut(), c.stderr.Cut()
	r.Truncated = r.StdoutCutBytes > 0 || r.StderrCutBytes > 0
	r.DurationMS = time.Since(c.start).Milliseconds()
	r.CPUMS, r.PeakMemoryBytes = c.cpu.Milliseconds(), c.peak
	r.Cwd = c.s.currentDir()
	r.Protections = nonNil(sortedKeys(c.protect))
	r.WithheldEnv = nonNil(c.tool.withheld)
	if r.Reasons == nil {
		r.Reasons = []policy.Reason{}
	}
	return r
}

// Text renders the result as the model reads it: both streams, the exit
// status when it is not 0, and for a refusal every reason with its rule
// and what is allowed instead.
func (r *Result) Text() string {
	var b strings.Builder
	if r.Error != "" && r.ExitCode == ExitUsage {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
		return b.String()
	}
	if r.Refused {
		writeRefusal(&b, r)
		return b.String()
	}
	b.WriteString(r.Stdout)
	if r.Stdout != "" && !strings.HasSuffix(r.Stdout, "\n") {
		b.WriteByte('\n')
	}
	if r.Stderr != "" {
		b.WriteString("[stderr]\n")
		b.WriteString(r.Stderr)
		if !strings.HasSuffix(r.Stderr, "\n") {
			b.WriteByte('\n')
		}
	}
	writeStatus(&b, r)
	return b.String()
}

func writeStatus(b *strings.Builder, r *Result) {
	switch {
	case r.TimedOut:
		fmt.Fprintf(b, "[timed out after %s; every process it started was killed; exit status %d]\n",
			(time.Duration(r.DurationMS) * time.Millisecond).Round(100*time.Millisecond), r.ExitCode)
	case r.ExitCode == ExitJailSetup:
		fmt.Fprintf(b, "[not run: the sandbox could not be set up: %s; exit status %d]\n", r.Error, r.ExitCode)
	case r.Error != "":
		fmt.Fprintf(b, "[error: %s; exit status %d]\n", r.Error, r.ExitCode)
	case r.ExitCode != 0:
		fmt.Fprintf(b, "[exit status %d]\n", r.ExitCode)
	}
	if r.Truncated {
		fmt.Fprintf(b, "[output truncated: %d bytes of stdout and %d bytes of stderr cut from the middle]\n",
			r.StdoutCutBytes, r.StderrCutBytes)
	}
}

func writeRefusal(b *strings.Builder, r *Result) {
	what := "refused by policy"
	if r.Decision == policy.Ask {
		what = "needs a person's approval"
	}
	fmt.Fprintf(b, "[%s: nothing more ran; exit status %d]\n", what, r.ExitCode)
	for _, reason := range r.Reasons {
		fmt.Fprintf(b, "- %s", reason.Message)
		if reason.Rule != "" {
			fmt.Fprintf(b, " (rule %s at %s)", reason.Code, reason.Rule)
		} else {
			fmt.Fprintf(b, " (rule %s)", reason.Code)
		}
		b.WriteByte('\n')
		if reason.Allowed != "" {
			fmt.Fprintf(b, "  allowed instead: %s\n", reason.Allowed)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "- %s\n", n)
	}
	if r.Stdout != "" || r.Stderr != "" {
		b.WriteString("[output before the refusal]\n")
		b.WriteString(r.Stdout)
		b.WriteString(r.Stderr)
	}
}

// InputError is a command refused before parsing or that does not parse.
// Line and Col are 1-based and 0 when unknown.
type InputError struct {
	Msg       string
	Line, Col int
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

// refusal is the error the interpreter's handlers return to halt a run the
// policy refused in the exec phase.
type refusal struct {
	decision policy.Decision
}

func (r *refusal) Error() string {
	if len(r.decision.Reasons) > 0 {
		return "refused: " + r.decision.Reasons[0].Message
	}
	return "refused by policy"
}

func sizeString(n int) string {
	if n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
