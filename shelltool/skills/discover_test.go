package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeSkill writes dir/SKILL.md with the given frontmatter lines.
func writeSkill(t *testing.T, dir string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(front(lines...)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// validSkill writes a valid skill named after its folder.
func validSkill(t *testing.T, dir string) {
	t.Helper()
	writeSkill(t, dir, "name: "+filepath.Base(dir), "description: The "+filepath.Base(dir)+" skill.")
}

// symlink makes link point at target.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// names returns the names of skills, in order.
func names(skills []Skill) []string {
	var out []string
	for _, s := range skills {
		out = append(out, s.Name)
	}
	return out
}

// lines returns each problem as "severity file:line: field: message", with
// base removed from the file names.
func lines(base string, problems []Problem) []string {
	var out []string
	for _, p := range problems {
		out = append(out, string(p.Severity)+" "+strings.ReplaceAll(p.Error(), base+string(filepath.Separator), ""))
	}
	return out
}

// discover calls Discover and fails the test on an error.
func discover(t *testing.T, roots ...string) ([]Skill, []Problem) {
	t.Helper()
	skills, problems, err := Discover(roots...)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	return skills, problems
}

func TestDiscoverDemoSkills(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "testdata", "skills")
	skills, problems := discover(t, root)
	if diff := cmp.Diff([]string{"csv-summary", "json-tools", "text-tools"}, names(skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	absRoot, _ := filepath.Abs(root)
	for _, s := range skills {
		if s.Root != absRoot || s.Dir != filepath.Join(absRoot, s.Name) || s.Location != filepath.Join(s.Dir, "SKILL.md") {
			t.Errorf("%s: Root %q Dir %q Location %q", s.Name, s.Root, s.Dir, s.Location)
		}
		if _, err := os.Stat(s.Location); err != nil {
			t.Error(err)
		}
	}
	if problems, err := Validate(root); err != nil || len(problems) > 0 {
		t.Errorf("Validate = %v, %v; want no problems", problems, err)
	}
}

func TestValidateInvalidSkills(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "testdata", "invalid-skills")
	problems, err := Validate(root)
	if err != nil {
		t.Fatal(err)
	}
	const allowed = "the specification allows only " + allowedFields
	want := []string{
		"error broken-yaml/SKILL.md:3: frontmatter: invalid YAML: found unexpected end of stream",
		"error many-errors/SKILL.md:1: description: required field is missing",
		"error many-errors/SKILL.md:2: name: may contain only lowercase letters a-z, digits 0-9 and hyphens, not 'M'",
		"error many-errors/SKILL.md:2: name: must not start or end with a hyphen",
		"error many-errors/SKILL.md:2: name: must not contain consecutive hyphens",
		`error many-errors/SKILL.md:2: name: "-Many--Errors" does not match its folder name "many-errors"`,
		"error many-errors/SKILL.md:4: compatibility: must not be empty when present",
		"error many-errors/SKILL.md:6: metadata: must be a mapping of strings to strings, not a list",
		"error many-errors/SKILL.md:8: allowed-tools: must be a string of space-separated tool patterns, not a list",
		"error many-errors/SKILL.md:11: version: unknown field; " + allowed,
		"error many-errors/SKILL.md:12: tags: unknown field; " + allowed,
		`error mismatched-name/SKILL.md:2: name: "other-name" does not match its folder name "mismatched-name"`,
		`error no-frontmatter/SKILL.md:1: frontmatter: missing: the file must start with a line "---", then YAML, then a line "---"`,
		`error unterminated/SKILL.md:1: frontmatter: unterminated: no closing "---" line`,
		"error wrong-types/SKILL.md:2: name: must be a string, not an integer",
		"error wrong-types/SKILL.md:3: description: must be a string, not a boolean",
		"error wrong-types/SKILL.md:4: license: must be a string, not a number",
		"error wrong-types/SKILL.md:5: compatibility: must be a string, not a list",
		`error wrong-types/SKILL.md:7: metadata.version: must be a string, not a number; quote it: "1.0"`,
		`error wrong-types/SKILL.md:9: metadata.reviewed: must be a string, not a boolean; quote it: "false"`,
		"error wrong-types/SKILL.md:10: metadata.owner: must be a string, not a mapping",
		"error wrong-types/SKILL.md:12: allowed-tools: must be a string, not an integer",
	}
	if diff := cmp.Diff(want, lines(root, problems)); diff != "" {
		t.Errorf("Validate (-want +got):\n%s", diff)
	}
	if !HasErrors(problems) {
		t.Error("HasErrors = false")
	}

	// Loading is lenient: only the skill with a usable name and description
	// loads, and nothing is an error.
	skills, problems := discover(t, root)
	if diff := cmp.Diff([]string{"other-name"}, names(skills)); diff != "" {
		t.Errorf("Discover skills (-want +got):\n%s", diff)
	}
	if HasErrors(problems) {
		t.Errorf("Discover problems have errors: %v", problems)
	}
}

func TestDiscoverDepthAndSkippedDirs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	validSkill(t, filepath.Join(root, "top"))
	validSkill(t, filepath.Join(root, "1", "2", "3", "4", "5", "at-six"))
	validSkill(t, filepath.Join(root, "1", "2", "3", "4", "5", "6", "at-seven"))
	validSkill(t, filepath.Join(root, ".git", "in-git"))
	validSkill(t, filepath.Join(root, "x", "node_modules", "in-node-modules"))
	validSkill(t, filepath.Join(root, ".hidden", "in-hidden"))
	validSkill(t, filepath.Join(root, "top", "assets", "nested")) // inside a skill
	if err := os.Mkdir(filepath.Join(root, "SKILL.md-is-a-dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "empty", "SKILL.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	skills, problems := discover(t, root)
	if diff := cmp.Diff([]string{"at-six", "in-hidden", "top"}, names(skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
}

func TestDiscoverRootIsASkill(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "solo")
	validSkill(t, root)
	skills, problems := discover(t, root)
	if len(skills) != 1 || skills[0].Name != "solo" || skills[0].Dir != root || skills[0].Root != root || len(problems) > 0 {
		t.Errorf("Discover = %+v, %v", skills, problems)
	}
}

func TestDiscoverSymlinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	validSkill(t, filepath.Join(root, "real"))
	validSkill(t, filepath.Join(root, "deep", "inner"))
	validSkill(t, filepath.Join(base, "outside", "linked"))
	symlink(t, "..", filepath.Join(root, "deep", "up"))       // a loop through the parent
	symlink(t, ".", filepath.Join(root, "deep", "self"))      // a loop onto itself
	symlink(t, root, filepath.Join(root, "deep", "abs-root")) // a loop by absolute path
	symlink(t, "real", filepath.Join(root, "a-real-alias"))   // sorts before the real path
	symlink(t, filepath.Join(base, "outside", "linked"), filepath.Join(root, "linked"))
	symlink(t, "missing", filepath.Join(root, "dangling"))
	symlink(t, "real/SKILL.md", filepath.Join(root, "file-link"))
	loopA, loopB := filepath.Join(root, "loop-a"), filepath.Join(root, "loop-b")
	symlink(t, "loop-b", loopA) // a cycle of two links
	symlink(t, "loop-a", loopB)

	skills, problems := discover(t, root)
	if diff := cmp.Diff([]string{"inner", "linked", "real"}, names(skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	want := map[string]string{
		"inner":  filepath.Join(root, "deep", "inner", "SKILL.md"),
		"linked": filepath.Join(root, "linked", "SKILL.md"),
		"real":   filepath.Join(root, "real", "SKILL.md"),
	}
	for _, s := range skills {
		if s.Location != want[s.Name] {
			t.Errorf("%s: Location %q, want %q", s.Name, s.Location, want[s.Name])
		}
	}

	// A root reached again through a symlink, or given twice, adds nothing.
	skills, problems = discover(t, root, filepath.Join(root, "deep", "abs-root"), root)
	if len(skills) != 3 || len(problems) > 0 {
		t.Errorf("repeated roots: %v, %v", names(skills), problems)
	}
}

func TestDiscoverLenient(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, "folder"), "name: other", "description: Named differently.")
	writeSkill(t, filepath.Join(root, "no-desc"), "name: no-desc")
	writeSkill(t, filepath.Join(root, "blank-desc"), "name: blank-desc", `description: " "`)
	writeSkill(t, filepath.Join(root, "no-name"), "description: Nameless.")
	writeSkill(t, filepath.Join(root, "extra"), "name: extra", "description: Has an extra key.", "version: 2")
	writeSkill(t, filepath.Join(root, "Bad_Name"), "name: Bad_Name", "description: Breaks the name rules.")
	skills, problems := discover(t, root)
	if diff := cmp.Diff([]string{"Bad_Name", "extra", "other"}, names(skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	want := []string{
		"warning Bad_Name/SKILL.md:2: name: may contain only lowercase letters a-z, digits 0-9 and hyphens, not 'B'",
		"warning blank-desc/SKILL.md:3: description: must not be empty",
		"warning blank-desc/SKILL.md: skill not loaded: no usable description",
		"warning extra/SKILL.md:4: version: unknown field; the specification allows only " + allowedFields,
		`warning folder/SKILL.md:2: name: "other" does not match its folder name "folder"`,
		"warning no-desc/SKILL.md:1: description: required field is missing",
		"warning no-desc/SKILL.md: skill not loaded: no usable description",
		"warning no-name/SKILL.md:1: name: required field is missing",
		"warning no-name/SKILL.md: skill not loaded: no usable name",
	}
	if diff := cmp.Diff(want, lines(root, problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestDiscoverDuplicateNames(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	one, two := filepath.Join(base, "one"), filepath.Join(base, "two")
	writeSkill(t, filepath.Join(two, "dup"), "name: dup", "description: Second root.")
	writeSkill(t, filepath.Join(one, "dup"), "name: dup", "description: First root.")
	writeSkill(t, filepath.Join(one, "z", "dup"), "name: dup", "description: First root, later in order.")
	skills, problems := discover(t, one, two)
	if len(skills) != 1 || skills[0].Description != "First root." || skills[0].Root != one {
		t.Fatalf("skills = %+v", skills)
	}
	first := filepath.Join("one", "dup", "SKILL.md") // base is cut from messages too
	want := []string{
		`warning one/z/dup/SKILL.md: name: duplicate skill name "dup": skipped; ` + first + " is used",
		`warning two/dup/SKILL.md: name: duplicate skill name "dup": skipped; ` + first + " is used",
	}
	if diff := cmp.Diff(want, lines(base, problems)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	got, err := Validate(one, two)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, lines(base, got)); diff != "" {
		t.Errorf("Validate (-want +got):\n%s", diff)
	}
}

func TestDiscoverRoots(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(base, "missing")
	for _, root := range []string{missing, file} {
		if _, _, err := Discover(base, root); err == nil || !strings.Contains(err.Error(), root) {
			t.Errorf("Discover(%q) error = %v, want one naming the root", root, err)
		}
		if _, err := Validate(root); err == nil || !strings.Contains(err.Error(), root) {
			t.Errorf("Validate(%q) error = %v, want one naming the root", root, err)
		}
	}

	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	skills, problems := discover(t, empty)
	if diff := cmp.Diff([]string{"warning empty: no SKILL.md found"}, lines(base, problems)); diff != "" || len(skills) > 0 {
		t.Errorf("empty root: %v (-want +got):\n%s", skills, diff)
	}
	if skills, problems := discover(t); len(skills)+len(problems) > 0 {
		t.Errorf("no roots: %v, %v", skills, problems)
	}
}

func TestDiscoverUnreadable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("permissions do not apply to root")
	}
	root := t.TempDir()
	validSkill(t, filepath.Join(root, "ok"))
	validSkill(t, filepath.Join(root, "locked"))
	if err := os.Chmod(filepath.Join(root, "locked", "SKILL.md"), 0); err != nil {
		t.Fatal(err)
	}
	closed := filepath.Join(root, "closed")
	validSkill(t, filepath.Join(closed, "hidden"))
	if err := os.Chmod(closed, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(closed, 0o755) })
	skills, problems, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ok"}, names(skills)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	got := strings.Join(lines(root, problems), "\n")
	for _, want := range []string{"warning closed: cannot read directory", "warning locked/SKILL.md: cannot read", "skill not loaded"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	problems, err = Validate(root)
	if err != nil || !HasErrors(problems) {
		t.Errorf("Validate = %v, %v; want an error for the unreadable SKILL.md", problems, err)
	}
}
