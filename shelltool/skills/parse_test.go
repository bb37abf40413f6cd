package skills

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// unknownField is the message for a key outside the specification.
const unknownField = "unknown field; the specification allows only " + allowedFields

// front returns a SKILL.md with the given frontmatter lines and a body.
func front(lines ...string) string {
	return "---\n" + strings.Join(lines, "\n") + "\n---\n\n# Body\n"
}

// okName and okDesc are frontmatter lines that pass.
const (
	okName = "name: my-skill"
	okDesc = "description: Does things. Use when things need doing."
)

func TestParse(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("a", n) }
	tests := []struct {
		name   string
		folder string // default "my-skill"
		input  string
		want   []Problem // File, Severity filled in by the test
		skill  *Skill    // checked when not nil; Dir and Location filled in
	}{
		// Valid.
		{name: "minimal", input: front(okName, okDesc),
			skill: &Skill{Name: "my-skill", Description: "Does things. Use when things need doing."}},
		{name: "all fields", input: front(okName, okDesc,
			"license: Apache-2.0", "compatibility: Needs python3.",
			"metadata:", "  author: someone", `  version: "1.0"`,
			"allowed-tools: Bash(git status:*) Read  Write"),
			skill: &Skill{Name: "my-skill", Description: "Does things. Use when things need doing.",
				License: "Apache-2.0", Compatibility: "Needs python3.",
				Metadata:     map[string]string{"author": "someone", "version": "1.0"},
				AllowedTools: []string{"Bash(git status:*)", "Read", "Write"}}},
		{name: "folded description trimmed", input: front(okName, "description: >", "  Two", "  lines.", ""),
			skill: &Skill{Name: "my-skill", Description: "Two lines."}},
		{name: "CRLF and BOM", input: "\ufeff---\r\nname: my-skill\r\ndescription: d\r\n---\r\nbody\r\n",
			skill: &Skill{Name: "my-skill", Description: "d"}},
		{name: "null optional fields are absent", input: front(okName, okDesc, "license:", "metadata: ~", "allowed-tools: null"),
			skill: &Skill{Name: "my-skill", Description: "Does things. Use when things need doing."}},
		{name: "empty allowed-tools", input: front(okName, okDesc, `allowed-tools: ""`)},
		{name: "anchors and aliases", input: front("name: &n my-skill", "description: *n")},
		{name: "name of 64 characters", folder: long(64), input: front("name: "+long(64), okDesc)},
		{name: "name with digits", folder: "pdf2text-v2", input: front("name: pdf2text-v2", okDesc)},
		{name: "description of 1024 characters", input: front(okName, "description: "+long(1024))},
		{name: "description of 1024 multibyte characters", input: front(okName, "description: "+strings.Repeat("é", 1024))},
		{name: "compatibility of 500 characters", input: front(okName, okDesc, "compatibility: "+long(500))},
		{name: "body may contain fences", input: front(okName, okDesc) + "---\nmore\n---\n"},

		// The frontmatter as a whole.
		{name: "empty file", input: "",
			want: []Problem{{Line: 1, Field: "frontmatter", Message: `missing: the file must start with a line "---", then YAML, then a line "---"`}}},
		{name: "no frontmatter", input: "# Title\n\nname: my-skill\n",
			want: []Problem{{Line: 1, Field: "frontmatter", Message: `missing: the file must start with a line "---", then YAML, then a line "---"`}}},
		{name: "frontmatter not first", input: "\n" + front(okName, okDesc),
			want: []Problem{{Line: 1, Field: "frontmatter", Message: `missing: the file must start with a line "---", then YAML, then a line "---"`}}},
		{name: "unterminated", input: "---\nname: my-skill\ndescription: d\n",
			want: []Problem{{Line: 1, Field: "frontmatter", Message: `unterminated: no closing "---" line`}}},
		{name: "only an opening line", input: "---",
			want: []Problem{{Line: 1, Field: "frontmatter", Message: `unterminated: no closing "---" line`}}},
		{name: "empty frontmatter", input: "---\n---\n",
			want: []Problem{
				{Line: 1, Field: "name", Message: "required field is missing"},
				{Line: 1, Field: "description", Message: "required field is missing"},
			}},
		{name: "frontmatter is a list", input: front("- name", "- description"),
			want: []Problem{{Line: 2, Field: "frontmatter", Message: "must be a YAML mapping of keys to values, not a list"}}},
		{name: "frontmatter is a string", input: front("just text"),
			want: []Problem{{Line: 2, Field: "frontmatter", Message: "must be a YAML mapping of keys to values, not a string"}}},
		// yaml.v3 counts lines of parser errors from 0 and of scanner errors
		// from 1: the line is as near as it tells.
		{name: "YAML syntax error", input: front(okName, okDesc, "license: [MIT"),
			want: []Problem{{Line: 3, Field: "frontmatter", Message: "invalid YAML: did not find expected ',' or ']'"}}},
		{name: "tab indentation", input: front(okName, "metadata:", "\tauthor: x", okDesc),
			want: []Problem{{Line: 4, Field: "frontmatter", Message: "invalid YAML: found character that cannot start any token"}}},
		{name: "unknown keys", input: front(okName, okDesc, "version: 1.0", "tags: [a]"),
			want: []Problem{
				{Line: 4, Field: "version", Message: unknownField},
				{Line: 5, Field: "tags", Message: unknownField},
			}},
		{name: "duplicate key", input: front(okName, okDesc, "name: my-skill"),
			want: []Problem{{Line: 4, Field: "name", Message: "duplicate key"}}},
		{name: "non-scalar key", input: front(okName, okDesc, "? [a, b]", ": c"),
			want: []Problem{{Line: 4, Field: "frontmatter", Message: "keys must be strings, not a list"}}},

		// name.
		{name: "name missing", input: front(okDesc),
			want: []Problem{{Line: 1, Field: "name", Message: "required field is missing"}}},
		{name: "name null", input: front("name:", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "must not be empty"}}},
		{name: "name empty string", input: front(`name: ""`, okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "must not be empty"}}},
		{name: "name an integer", folder: "5", input: front("name: 5", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "must be a string, not an integer"}}},
		{name: "name a list", input: front("name: [my-skill]", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "must be a string, not a list"}}},
		{name: "name of 65 characters", folder: long(65), input: front("name: "+long(65), okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "is 65 characters long; the limit is 64"}}},
		{name: "name uppercase", folder: "My-Skill", input: front("name: My-Skill", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "may contain only lowercase letters a-z, digits 0-9 and hyphens, not 'M'"}}},
		{name: "name underscore", folder: "my_skill", input: front("name: my_skill", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "may contain only lowercase letters a-z, digits 0-9 and hyphens, not '_'"}}},
		{name: "name non-ASCII letter", folder: "café", input: front("name: café", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "may contain only lowercase letters a-z, digits 0-9 and hyphens, not 'é'"}}},
		{name: "name with space", folder: "my skill", input: front("name: my skill", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "may contain only lowercase letters a-z, digits 0-9 and hyphens, not ' '"}}},
		{name: "name leading hyphen", folder: "-skill", input: front(`name: "-skill"`, okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "must not start or end with a hyphen"}}},
		{name: "name trailing hyphen", folder: "skill-", input: front("name: skill-", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "must not start or end with a hyphen"}}},
		{name: "name doubled hyphen", folder: "my--skill", input: front("name: my--skill", okDesc),
			want: []Problem{{Line: 2, Field: "name", Message: "must not contain consecutive hyphens"}}},
		{name: "name differs from folder", folder: "mismatched-name", input: front("name: other-name", okDesc),
			want:  []Problem{{Line: 2, Field: "name", Message: `"other-name" does not match its folder name "mismatched-name"`}},
			skill: &Skill{Name: "other-name", Description: "Does things. Use when things need doing."}},
		{name: "name breaks every rule", input: front("name: -My_"+long(64)+"--", okDesc),
			want: []Problem{
				{Line: 2, Field: "name", Message: "is 70 characters long; the limit is 64"},
				{Line: 2, Field: "name", Message: "may contain only lowercase letters a-z, digits 0-9 and hyphens, not 'M'"},
				{Line: 2, Field: "name", Message: "must not start or end with a hyphen"},
				{Line: 2, Field: "name", Message: "must not contain consecutive hyphens"},
				{Line: 2, Field: "name", Message: `"-My_` + long(64) + `--" does not match its folder name "my-skill"`},
			}},

		// description.
		{name: "description missing", input: front(okName),
			want: []Problem{{Line: 1, Field: "description", Message: "required field is missing"}}},
		{name: "description blank", input: front(okName, `description: "  "`),
			want: []Problem{{Line: 3, Field: "description", Message: "must not be empty"}}},
		{name: "description of 1025 characters", input: front(okName, "description: "+long(1025)),
			want: []Problem{{Line: 3, Field: "description", Message: "is 1025 characters long; the limit is 1024"}}},
		{name: "description a boolean", input: front(okName, "description: true"),
			want: []Problem{{Line: 3, Field: "description", Message: "must be a string, not a boolean"}}},
		{name: "description a mapping", input: front(okName, "description:", "  text: x"),
			want: []Problem{{Line: 3, Field: "description", Message: "must be a string, not a mapping"}}},

		// license and compatibility.
		{name: "license a number", input: front(okName, okDesc, "license: 2.0"),
			want: []Problem{{Line: 4, Field: "license", Message: "must be a string, not a number"}}},
		{name: "compatibility of 501 characters", input: front(okName, okDesc, "compatibility: "+long(501)),
			want: []Problem{{Line: 4, Field: "compatibility", Message: "is 501 characters long; the limit is 500"}}},
		{name: "compatibility empty", input: front(okName, okDesc, `compatibility: ""`),
			want: []Problem{{Line: 4, Field: "compatibility", Message: "must not be empty when present"}}},
		{name: "compatibility a list", input: front(okName, okDesc, "compatibility: [linux]"),
			want: []Problem{{Line: 4, Field: "compatibility", Message: "must be a string, not a list"}}},

		// metadata.
		{name: "metadata a list", input: front(okName, okDesc, "metadata:", "  - a"),
			want: []Problem{{Line: 5, Field: "metadata", Message: "must be a mapping of strings to strings, not a list"}}},
		{name: "metadata a string", input: front(okName, okDesc, "metadata: author"),
			want: []Problem{{Line: 4, Field: "metadata", Message: "must be a mapping of strings to strings, not a string"}}},
		{name: "metadata values of other types", input: front(okName, okDesc, "metadata:", "  version: 1.0", "  n: 3", "  ok: true", "  when: 2024-01-02", "  none:", "  nested: {a: b}", "  list: [a]"),
			want: []Problem{
				{Line: 5, Field: "metadata.version", Message: `must be a string, not a number; quote it: "1.0"`},
				{Line: 6, Field: "metadata.n", Message: `must be a string, not an integer; quote it: "3"`},
				{Line: 7, Field: "metadata.ok", Message: `must be a string, not a boolean; quote it: "true"`},
				{Line: 8, Field: "metadata.when", Message: `must be a string, not a timestamp; quote it: "2024-01-02"`},
				{Line: 9, Field: "metadata.none", Message: "must be a string, not null"},
				{Line: 10, Field: "metadata.nested", Message: "must be a string, not a mapping"},
				{Line: 11, Field: "metadata.list", Message: "must be a string, not a list"},
			},
			skill: &Skill{Name: "my-skill", Description: "Does things. Use when things need doing.",
				Metadata: map[string]string{"version": "1.0", "n": "3", "ok": "true", "when": "2024-01-02"}}},
		{name: "metadata key not a string", input: front(okName, okDesc, "metadata:", "  1: one"),
			want: []Problem{{Line: 5, Field: "metadata", Message: "keys must be strings, not an integer"}}},
		{name: "metadata duplicate key", input: front(okName, okDesc, "metadata:", "  a: x", "  a: y"),
			want: []Problem{{Line: 6, Field: "metadata.a", Message: "duplicate key"}}},

		// allowed-tools.
		{name: "allowed-tools a list", input: front(okName, okDesc, "allowed-tools: [Read, Bash]"),
			want:  []Problem{{Line: 4, Field: "allowed-tools", Message: "must be a string of space-separated tool patterns, not a list"}},
			skill: &Skill{Name: "my-skill", Description: "Does things. Use when things need doing.", AllowedTools: []string{"Read", "Bash"}}},
		{name: "allowed-tools an integer", input: front(okName, okDesc, "allowed-tools: 42"),
			want: []Problem{{Line: 4, Field: "allowed-tools", Message: "must be a string, not an integer"}}},

		// Several problems at once, in line order.
		{name: "many errors", folder: "many-errors", input: front("version: 2", "name: Many_Errors", "license: 1", "compatibility: "+long(501), "metadata: [x]", "extra: y"),
			want: []Problem{
				{Line: 1, Field: "description", Message: "required field is missing"},
				{Line: 2, Field: "version", Message: unknownField},
				{Line: 3, Field: "name", Message: "may contain only lowercase letters a-z, digits 0-9 and hyphens, not 'M'"},
				{Line: 3, Field: "name", Message: `"Many_Errors" does not match its folder name "many-errors"`},
				{Line: 4, Field: "license", Message: "must be a string, not an integer"},
				{Line: 5, Field: "compatibility", Message: "is 501 characters long; the limit is 500"},
				{Line: 6, Field: "metadata", Message: "must be a mapping of strings to strings, not a list"},
				{Line: 7, Field: "extra", Message: unknownField},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			folder := tt.folder
			if folder == "" {
				folder = "my-skill"
			}
			path := "/skills/" + folder + "/SKILL.md"
			for i := range tt.want {
				tt.want[i].File, tt.want[i].Severity = path, SeverityError
			}
			skill, got := Parse(path, []byte(tt.input))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse problems (-want +got):\n%s", diff)
			}
			if tt.skill == nil {
				return
			}
			want := *tt.skill
			want.Dir, want.Location = "/skills/"+folder, path
			if diff := cmp.Diff(want, skill); diff != "" {
				t.Errorf("Parse skill (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitTools(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"":                        nil,
		"   ":                     nil,
		"Read":                    {"Read"},
		" Read\tWrite\n Bash ":    {"Read", "Write", "Bash"},
		"Bash(git status:*) Read": {"Bash(git status:*)", "Read"},
		"Bash(a (b) c) x":         {"Bash(a (b) c)", "x"},
		"Bash(unclosed x":         {"Bash(unclosed x"},
		"a) b":                    {"a)", "b"},
	}
	for in, want := range tests {
		if diff := cmp.Diff(want, splitTools(in)); diff != "" {
			t.Errorf("splitTools(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestProblemError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "a/SKILL.md", Line: 3, Field: "name", Message: "bad"}, "a/SKILL.md:3: name: bad"},
		{Problem{File: "a/SKILL.md", Field: "name", Message: "bad"}, "a/SKILL.md: name: bad"},
		{Problem{File: "a", Message: "bad"}, "a: bad"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
