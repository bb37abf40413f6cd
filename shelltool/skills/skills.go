package skills

import (
	"fmt"
	"path/filepath"
	"strconv"
)

// Limits from the Agent Skills specification, counted in characters (runes).
const (
	MaxNameLength          = 64   // name: 1 to 64 characters
	MaxDescriptionLength   = 1024 // description: 1 to 1024 characters
	MaxCompatibilityLength = 500  // compatibility: 1 to 500 characters when present
)

// MaxDepth is how many directories below a root Discover and Validate look for
// SKILL.md files: a root's own SKILL.md is at depth 0, root/a/SKILL.md at
// depth 1, and nothing deeper than root/1/2/3/4/5/6/SKILL.md is found.
const MaxDepth = 6

// Skill is one skill as read from its SKILL.md frontmatter. The body of the
// file is not kept: a model reads it itself, by its Location.
type Skill struct {
	Name          string            // required; lowercase a-z, 0-9 and hyphens; equal to the folder's name
	Description   string            // required; what the skill does and when to use it; surrounding space trimmed
	License       string            // optional
	Compatibility string            // optional; environment requirements
	Metadata      map[string]string // optional; nil when absent
	AllowedTools  []string          // optional; split on spaces outside parentheses, order kept; nil when absent
	Dir           string            // absolute, cleaned folder of the skill
	Location      string            // absolute path of its SKILL.md
	Root          string            // absolute, cleaned root it was found under; empty from Parse
}

// Severity says whether a Problem makes a skill invalid.
type Severity string

// The severities of a Problem.
const (
	SeverityError   Severity = "error"   // the skill does not conform to the specification
	SeverityWarning Severity = "warning" // worth fixing, or tolerated when loading leniently
)

// Problem is one finding about a skill or a skills tree.
type Problem struct {
	File     string   // the SKILL.md (or directory) concerned, as reached from the root given
	Line     int      // 1-based line in File; 0 when unknown
	Field    string   // frontmatter key ("name", "metadata.version"), "frontmatter", or empty
	Severity Severity // SeverityError or SeverityWarning
	Message  string
}

// Error returns the problem as "file:line: field: message", leaving out the
// line when it is unknown and the field when it is empty.
func (p Problem) Error() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
	}
	if p.Field != "" {
		s += ": " + p.Field
	}
	return s + ": " + p.Message
}

// String is the same as Error.
func (p Problem) String() string { return p.Error() }

// HasErrors reports whether any of problems has SeverityError.
func HasErrors(problems []Problem) bool {
	for _, p := range problems {
		if p.Severity == SeverityError {
			return true
		}
	}
	return false
}

// problemf returns a Problem with a formatted message.
func problemf(sev Severity, file string, line int, field, format string, args ...any) Problem {
	return Problem{File: file, Line: line, Field: field, Severity: sev, Message: fmt.Sprintf(format, args...)}
}

// absClean returns path made absolute and cleaned; if the working directory
// is unknown it returns the cleaned path.
func absClean(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return abs
}
