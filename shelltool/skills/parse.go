package skills

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// fieldFrontmatter is the Field of problems with the frontmatter as a whole.
const fieldFrontmatter = "frontmatter"

// allowedFields lists the top-level frontmatter keys of the specification.
const allowedFields = "name, description, license, compatibility, metadata, allowed-tools"

// Parse reads one SKILL.md: path names the file (it fixes Location, Dir and
// the folder name that name must equal, and is the File of every problem) and
// data is its content. Parse does no I/O beyond making path absolute.
//
// Parse is strict: every departure from the Agent Skills specification is a
// Problem with SeverityError, ordered by line. It still fills in whatever it
// can read, so a lenient caller may use the Skill despite the problems: a
// mistyped scalar in metadata keeps its text, allowed-tools written as a list
// keeps its string items, a name that breaks the rules is kept as written.
// Name or Description is empty when it is missing or not a string.
//
// A key whose value is null (for example "license:") counts as absent; for
// name and description that is a problem ("must not be empty"). Lines are
// exact for fields; for a YAML syntax error they are the line yaml.v3 names,
// which for some errors is the line before the offending one.
//
// Parse is safe for concurrent use.
func Parse(path string, data []byte) (Skill, []Problem) {
	p := &parser{file: path}
	s := Skill{Location: absClean(path)}
	s.Dir = filepath.Dir(s.Location)
	if front, ok := p.frontmatter(data); ok {
		if m := p.document(front); m != nil {
			p.fields(&s, m, filepath.Base(s.Dir))
		}
	}
	slices.SortStableFunc(p.problems, func(a, b Problem) int { return a.Line - b.Line })
	return s, p.problems
}

// parser collects the problems of one file.
type parser struct {
	file     string
	problems []Problem
}

// add records an error at a line of the file.
func (p *parser) add(line int, field, format string, args ...any) {
	p.problems = append(p.problems, problemf(SeverityError, p.file, line, field, format, args...))
}

// frontmatter returns the text between the opening "---" line, which must be
// the first line, and the next "---" line.
func (p *parser) frontmatter(data []byte) (string, bool) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	lines := strings.SplitAfter(text, "\n")
	if !isFence(lines[0]) {
		p.add(1, fieldFrontmatter, `missing: the file must start with a line "---", then YAML, then a line "---"`)
		return "", false
	}
	for i := 1; i < len(lines); i++ {
		if isFence(lines[i]) {
			return strings.Join(lines[1:i], ""), true
		}
	}
	p.add(1, fieldFrontmatter, `unterminated: no closing "---" line`)
	return "", false
}

// isFence reports whether line delimits the frontmatter.
func isFence(line string) bool { return strings.TrimRight(line, " \t\r\n") == "---" }

// yamlLine finds the line number in a yaml.v3 error message.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// document parses the frontmatter YAML and returns its top-level mapping,
// or nil after reporting why there is none. An empty frontmatter is an empty
// mapping.
func (p *parser) document(front string) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(front), &doc); err != nil {
		p.yamlError(err)
		return nil
	}
	if len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	top := resolve(doc.Content[0])
	if top.Kind != yaml.MappingNode {
		p.add(top.Line+1, fieldFrontmatter, "must be a YAML mapping of keys to values, not %s", describe(top))
		return nil
	}
	return top
}

// yamlError reports a YAML syntax error at the line yaml.v3 names, which for
// some errors is the line before the offending one, or at line 1.
func (p *parser) yamlError(err error) {
	msg := err.Error()
	line := 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		line = n + 1
		msg = msg[len(m[0]):]
	}
	p.add(line, fieldFrontmatter, "invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
}

// fields checks every top-level key and fills in s.
func (p *parser) fields(s *Skill, m *yaml.Node, folder string) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		line := k.Line + 1
		if k.Kind != yaml.ScalarNode {
			p.add(line, fieldFrontmatter, "keys must be strings, not %s", describe(k))
			continue
		}
		if seen[k.Value] {
			p.add(line, k.Value, "duplicate key")
			continue
		}
		seen[k.Value] = true
		p.field(s, k.Value, line, v, folder)
	}
	for _, f := range []string{"name", "description"} {
		if !seen[f] {
			p.add(1, f, "required field is missing")
		}
	}
}

// field checks one top-level key's value and stores it in s.
func (p *parser) field(s *Skill, key string, line int, v *yaml.Node, folder string) {
	switch key {
	case "name":
		s.Name = p.name(line, v, folder)
	case "description":
		s.Description = p.description(line, v)
	case "license":
		s.License, _ = p.optionalString(line, key, v)
	case "compatibility":
		s.Compatibility = p.compatibility(line, v)
	case "metadata":
		s.Metadata = p.metadata(v)
	case "allowed-tools":
		s.AllowedTools = p.allowedTools(line, v)
	default:
		p.add(line, key, "unknown field; the specification allows only %s", allowedFields)
	}
}

// name checks the skill's name against the rules and its folder.
func (p *parser) name(line int, v *yaml.Node, folder string) string {
	name, ok := p.requiredString(line, "name", v)
	if !ok {
		return ""
	}
	for _, msg := range nameRules(name) {
		p.add(line, "name", "%s", msg)
	}
	if name != folder {
		p.add(line, "name", "%q does not match its folder name %q", name, folder)
	}
	return name
}

// nameRules returns what is wrong with a non-empty name, if anything.
func nameRules(name string) []string {
	var msgs []string
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		msgs = append(msgs, "is "+strconv.Itoa(n)+" characters long; the limit is "+strconv.Itoa(MaxNameLength))
	}
	if i := strings.IndexFunc(name, notNameRune); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		msgs = append(msgs, "may contain only lowercase letters a-z, digits 0-9 and hyphens, not "+strconv.QuoteRune(r))
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		msgs = append(msgs, "must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		msgs = append(msgs, "must not contain consecutive hyphens")
	}
	return msgs
}

// notNameRune reports whether r may not appear in a skill name.
func notNameRune(r rune) bool {
	return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-'
}

// description checks the description and returns it trimmed.
func (p *parser) description(line int, v *yaml.Node) string {
	d, ok := p.requiredString(line, "description", v)
	if !ok {
		return ""
	}
	d = strings.TrimSpace(d)
	p.maxLength(line, "description", d, MaxDescriptionLength)
	return d
}

// compatibility checks the optional compatibility text.
func (p *parser) compatibility(line int, v *yaml.Node) string {
	c, ok := p.optionalString(line, "compatibility", v)
	if !ok {
		return ""
	}
	if strings.TrimSpace(c) == "" {
		p.add(line, "compatibility", "must not be empty when present")
	}
	p.maxLength(line, "compatibility", c, MaxCompatibilityLength)
	return c
}

// maxLength reports s when it has more than limit characters.
func (p *parser) maxLength(line int, field, s string, limit int) {
	if n := utf8.RuneCountInString(s); n > limit {
		p.add(line, field, "is %d characters long; the limit is %d", n, limit)
	}
}

// requiredString returns the string value of a required field, reporting a
// null, empty or non-string value.
func (p *parser) requiredString(line int, field string, v *yaml.Node) (string, bool) {
	if isNull(v) {
		p.add(line, field, "must not be empty")
		return "", false
	}
	s, ok := p.optionalString(line, field, v)
	if ok && strings.TrimSpace(s) == "" {
		p.add(line, field, "must not be empty")
		return "", false
	}
	return s, ok
}

// optionalString returns the string value of a field; a null value is
// absent, any other non-string is reported.
func (p *parser) optionalString(line int, field string, v *yaml.Node) (string, bool) {
	if isNull(v) {
		return "", false
	}
	if !isString(v) {
		p.add(line, field, "must be a string, not %s", describe(v))
		return "", false
	}
	return v.Value, true
}

// metadata checks that the value is a mapping of strings to strings. Scalar
// values of another type are reported and kept as written.
func (p *parser) metadata(v *yaml.Node) map[string]string {
	if isNull(v) {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p.add(v.Line+1, "metadata", "must be a mapping of strings to strings, not %s", describe(v))
		return nil
	}
	md := make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		p.metadataEntry(md, v.Content[i], resolve(v.Content[i+1]))
	}
	return md
}

// metadataEntry checks one key and value of metadata and stores it in md.
func (p *parser) metadataEntry(md map[string]string, k, v *yaml.Node) {
	line := k.Line + 1
	if !isString(k) {
		p.add(line, "metadata", "keys must be strings, not %s", describe(k))
		return
	}
	field := "metadata." + k.Value
	if _, dup := md[k.Value]; dup {
		p.add(line, field, "duplicate key")
		return
	}
	if isString(v) {
		md[k.Value] = v.Value
		return
	}
	if v.Kind != yaml.ScalarNode || isNull(v) {
		p.add(line, field, "must be a string, not %s", describe(v))
		return
	}
	p.add(line, field, "must be a string, not %s; quote it: \"%s\"", describe(v), v.Value)
	md[k.Value] = v.Value
}

// allowedTools splits the allowed-tools string into patterns. A list is
// reported; its string items are kept.
func (p *parser) allowedTools(line int, v *yaml.Node) []string {
	if v.Kind == yaml.SequenceNode {
		p.add(line, "allowed-tools", "must be a string of space-separated tool patterns, not a list")
		var tools []string
		for _, item := range v.Content {
			if item = resolve(item); isString(item) {
				tools = append(tools, item.Value)
			}
		}
		return tools
	}
	s, ok := p.optionalString(line, "allowed-tools", v)
	if !ok {
		return nil
	}
	return splitTools(s)
}

// splitTools splits s on white space outside parentheses, so that a pattern
// such as "Bash(git status:*)" stays whole. It returns nil for a blank s.
func splitTools(s string) []string {
	var tools []string
	depth, start := 0, -1
	for i, r := range s + " " {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ' ' || r == '\t' || r == '\n' || r == '\r') && depth == 0:
			if start >= 0 {
				tools = append(tools, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		tools = append(tools, s[start:])
	}
	return tools
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isNull reports whether n is a null scalar ("", "~" or "null").
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// isString reports whether n is a string scalar.
func isString(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" }

// describe names the YAML type of n for a message.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	switch tag := n.ShortTag(); tag {
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	case "!!timestamp":
		return "a timestamp"
	case "!!str":
		return "a string"
	default:
		return "a value tagged " + tag
	}
}
