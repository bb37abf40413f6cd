package skills

import (
	"path/filepath"
	"strings"
)

// Instructions is what Prompt tells a model before the catalog: how to use
// skills through the shell tool.
const Instructions = "You have one tool, `shell`: it runs a shell command line and returns its exit status, standard output and standard error.\n" +
	"\n" +
	"Skills are folders of instructions, scripts and resources for particular tasks. The skills you can use are listed below, each with its name, a description of when to use it, and the location of its SKILL.md file.\n" +
	"\n" +
	"- Before using a skill, read its SKILL.md with the shell tool, e.g. `cat <location>`, and follow it.\n" +
	"- Paths inside a skill (scripts/, references/, assets/) are relative to the skill's folder, the one holding its SKILL.md: `cd` into that folder before running its scripts, e.g. `cd /path/to/skill && python3 scripts/run.py`. Read references/ and assets/ files only when the SKILL.md points you to them.\n" +
	"- Your working directory starts in the workspace, which is also your home directory (~). It is the only place you can write: put files you create there, e.g. `--out ~/report.md` after a `cd`. Skills folders are read-only.\n" +
	"- Every command is checked against a policy before it runs. A refused command comes back with the reason and what is allowed instead: change the command accordingly rather than repeating it.\n"

// Prompt returns what a model is told about skills: Instructions, a blank
// line, then AvailableSkills(catalog). It has no trailing newline.
func Prompt(catalog []Skill) string {
	return Instructions + "\n" + AvailableSkills(catalog)
}

// AvailableSkills returns the catalog as the <available_skills> block of the
// Agent Skills reference implementation (skills-ref to_prompt): each tag and
// each value on its own line, values HTML-escaped, no trailing newline, in
// the order given. The location is Skill.Location, or the SKILL.md in
// Skill.Dir when Location is empty. An empty catalog gives an empty block.
func AvailableSkills(catalog []Skill) string {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, s := range catalog {
		loc := s.Location
		if loc == "" {
			loc = filepath.Join(s.Dir, "SKILL.md")
		}
		b.WriteString("<skill>\n")
		element(&b, "name", s.Name)
		element(&b, "description", s.Description)
		element(&b, "location", loc)
		b.WriteString("</skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// element writes <tag>, the escaped value and </tag>, each on its own line.
func element(b *strings.Builder, tag, value string) {
	b.WriteString("<" + tag + ">\n")
	b.WriteString(escaper.Replace(value))
	b.WriteString("\n</" + tag + ">\n")
}

// escaper escapes text as Python's html.escape does, quotes included.
var escaper = strings.NewReplacer(
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	`"`, "&quot;",
	"'", "&#x27;",
)
