package policy

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/skillsh/skillsh/internal/testenv"
)

// defaultEngine is the embedded default policy, prepared once for the
// package's tests.
var defaultEngine = sync.OnceValues(func() (*Engine, error) {
	return NewEngine(context.Background())
})

func engine(t testing.TB) *Engine {
	t.Helper()
	e, err := defaultEngine()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestEngineFailsClosed: a policy that cannot answer denies.
func TestEngineFailsClosed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := map[string]string{
		"undefined": "package skillsh.main\n\nother := 1\n",
		"malformed": "package skillsh.main\n\ndecision := {\"decision\": \"maybe\"}\n",
		"error":     "package skillsh.main\n\ndecision := {\"decision\": \"allow\", \"reasons\": []} if {\n\tinput.command == 1 / 0\n}\n",
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "main.rego"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			e, err := NewEngine(context.Background(), WithoutDefault(), WithPolicy(p))
			if err != nil {
				t.Fatal(err)
			}
			d, err := e.Decide(context.Background(), &Input{Version: InputVersion, Command: "ls"})
			if err == nil || d.Verdict != Deny || len(d.Reasons) == 0 || d.Reasons[0].Code != "policy.error" {
				t.Errorf("decision %+v, error %v; want a policy.error denial", d, err)
			}
		})
	}
}

// TestEngineRejectsBadPolicies: a policy that does not load or compile is
// an error, never a silent default.
func TestEngineRejectsBadPolicies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.rego"), []byte("package x\n\nallow if {"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewEngine(context.Background(), WithPolicy(dir)); err == nil {
		t.Error("a policy that does not parse was accepted")
	}
	if _, err := NewEngine(context.Background(), WithPolicy(filepath.Join(dir, "missing"))); err == nil {
		t.Error("a missing policy path was accepted")
	}
	// A layer's data adds to the default's; it cannot replace a value.
	twice := filepath.Join(t.TempDir(), "layer")
	if err := os.MkdirAll(filepath.Join(twice, "skillsh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(twice, "skillsh", "data.yaml"), []byte("config:\n  allow_opaque: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewEngine(context.Background(), WithPolicy(twice))
	if err == nil || !strings.Contains(err.Error(), twice) || !strings.Contains(err.Error(), "data.skillsh.config.allow_opaque is already defined") {
		t.Errorf("data defined twice: %v", err)
	}
	// A layer's rule in a default package would be skipped for plain
	// commands: refused, unless the default is left out.
	inDefault := t.TempDir()
	rule := "package skillsh.shell\n\ndeny contains {\"code\": \"x\"} if input.command == \"ls\"\n"
	if err := os.WriteFile(filepath.Join(inDefault, "x.rego"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = NewEngine(context.Background(), WithPolicy(inDefault))
	if err == nil || !strings.Contains(err.Error(), "is in package skillsh.shell, which belongs to the default policy") {
		t.Errorf("a layer rule in package skillsh.shell: %v", err)
	}
	if err := os.WriteFile(filepath.Join(inDefault, "main.rego"), []byte("package skillsh.main\n\ndecision := {\"decision\": \"allow\", \"reasons\": []}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewEngine(context.Background(), WithoutDefault(), WithPolicy(inDefault)); err != nil {
		t.Errorf("--policy-only with package skillsh.shell: %v", err)
	}
}

// TestEngineRuleLocations: every annotated rule code maps to a file and
// line of the embedded policy.
func TestEngineRuleLocations(t *testing.T) {
	t.Parallel()
	e := engine(t)
	codes := e.Codes()
	if len(codes) == 0 {
		t.Fatal("no rule codes in the default policy's annotations")
	}
	for _, code := range codes {
		if loc := e.Rule(code); !strings.HasPrefix(loc, "rego/skillsh/") || !strings.Contains(loc, ".rego:") {
			t.Errorf("rule %s at %q", code, loc)
		}
	}
}

// TestEngineLayerRuleLocations: a layer's rules are named by the path the
// layer was loaded from, an absolute one included.
func TestEngineLayerRuleLocations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "package skillsh.project\n\n# METADATA\n# custom:\n#   code: project.x\ndeny contains 1 if false\n"
	if err := os.WriteFile(filepath.Join(dir, "p.rego"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(context.Background(), WithPolicy(dir))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Rule("project.x"), filepath.Join(dir, "p.rego")+":6"; got != want {
		t.Errorf("rule at %q, want %q", got, want)
	}
}

// TestDocsRuleLocations: every "rule CODE at FILE:LINE" that the README
// and the docs show is where the rule really is.
func TestDocsRuleLocations(t *testing.T) {
	t.Parallel()
	e := engine(t)
	mention := regexp.MustCompile(`rule ([a-z_]+\.[a-z_.]+) at (rego/[a-z_/]+\.rego:[0-9]+)`)
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, name := range append(files, filepath.Join(testenv.RepoRoot(), "README.md")) {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mention.FindAllStringSubmatch(string(text), -1) {
			found++
			if got := e.Rule(m[1]); got != m[2] {
				t.Errorf("%s shows rule %s at %s; it is at %q", filepath.Base(name), m[1], m[2], got)
			}
		}
	}
	if found == 0 {
		t.Error("no rule locations found in the README and docs; the pattern is out of date")
	}
}

// TestDocsCodeTable: the guide's table of rule codes lists every code of
// the default policy, and the engine's own policy.error.
func TestDocsCodeTable(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "writing-policies.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range append(engine(t).Codes(), "policy.error") {
		if n := strings.Count(string(text), "\n| `"+code+"` |"); n != 1 {
			t.Errorf("docs/writing-policies.md has %d rows for code %s, want 1", n, code)
		}
	}
}

// FuzzBuild: any command string that parses builds an input without
// panicking, and a command whose program name is dynamic is never allowed
// in the static phase by the default policy.
func FuzzBuild(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	e := engine(f)
	dir, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	facts := &Facts{Cwd: dir, Roots: Roots{Workspace: dir}, Session: Session{Home: dir}}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			return
		}
		in := Build(src, file, facts)
		d, err := e.Decide(context.Background(), in)
		if err != nil {
			t.Fatalf("decide %q: %v", src, err)
		}
		for _, c := range in.Commands {
			if c.Kind == "dynamic" && d.Verdict == Allow {
				t.Fatalf("%q: dynamic program name allowed in the static phase", src)
			}
		}
	})
}

// fuzzSeeds are the corpus commands plus a few shapes the parser knows.
func fuzzSeeds() []string {
	seeds := []string{
		"ls", "c=cat; $c /etc/passwd", "eval \"$x\"", "bash -c 'ls | wc'",
		"find . -exec rm {} +", "x=$(id) env -i FOO=1 timeout 5 nice cat <(ls) > out",
		"f() { g; }; f & wait", "echo ${!x} ${y@P} $(( a[$(id)] ))", "cat <<EOF\n$(id)\nEOF",
	}
	for _, c := range loadCorpus(nil) {
		seeds = append(seeds, c.Command)
	}
	return seeds
}

func BenchmarkBuild(b *testing.B) {
	src := "cd skills/csv-summary && python3 scripts/summarize.py ~/data.csv --out ~/r.md | head -n 20"
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		b.Fatal(err)
	}
	facts := &Facts{Cwd: "/tmp", Roots: Roots{Workspace: "/tmp"}, Session: Session{Home: "/tmp"}}
	for b.Loop() {
		Build(src, file, facts)
	}
}

// BenchmarkDecide measures one decision of the default policy for typical
// commands (a listing, reading a skill's file, running a skill's script, a
// two-command pipeline), with the input's conversion to a Rego value and
// the decoding of the answer. The session is a real one's size: three
// skills and every protection.
func BenchmarkDecide(b *testing.B) {
	e := engine(b)
	var skills []SkillFact
	for _, name := range []string{"csv-summary", "json-tools", "pdf"} {
		skills = append(skills, SkillFact{Name: name, Dir: "/skills/" + name, Location: "/skills/" + name + "/SKILL.md", AllowedTools: []string{}})
	}
	protections := strings.Fields("rlimits no_new_privs uid_drop landlock landlock_exec landlock_net landlock_scope netns pidns cgroup_pids process_group")
	facts := &Facts{Cwd: "/tmp", Roots: Roots{Skills: []string{"/skills"}, Workspace: "/tmp"},
		Session: Session{Home: "/tmp", Skills: skills, Protections: protections}}
	ctx := context.Background()
	for _, c := range []struct{ name, src string }{
		{"list", "ls"},
		{"read", "cat /skills/pdf/SKILL.md"},
		{"script", "python3 /skills/pdf/scripts/extract.py ./in.pdf"},
		{"pipeline", "cat ~/data.csv | head -n 5"},
	} {
		src := c.src
		file, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			b.Fatal(err)
		}
		in := Build(src, file, facts)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if d, err := e.Decide(ctx, in); err != nil || d.Verdict != Allow {
					b.Fatalf("%s: %v %v", src, d, err)
				}
			}
		})
	}
}

// TestEngineLayerCannotReachDefaultRules: a layer's rule that would land
// in a package of the default, or under it, is refused whatever its
// module's package line says, and a layer's file cannot stand in for
// one of the default's: otherwise a project could lift the default's
// denials (rm -rf / allowed by a plain.commands of its own).
func TestEngineLayerCannotReachDefaultRules(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"rule path":     "package skillsh\n\nplain.commands if true\n",
		"function":      "package skillsh\n\nshell._allowed(_, _) if true\n",
		"static set":    "package skillsh\n\nstatic.free_programs contains \"curl\"\n",
		"subpackage":    "package skillsh.shell.extra\n\nx := 1\n",
		"whole package": "package skillsh\n\nplain := {\"commands\": true}\n",
		"key":           "package skillsh\n\nescapes[\"deny\"] := set()\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeModules(t, map[string]string{"layer.rego": src})
			_, err := NewEngine(context.Background(), WithPolicy(dir))
			if err == nil || !strings.Contains(err.Error(), "which belongs to the default policy") {
				t.Errorf("%q: %v; want a refusal", src, err)
			}
		})
	}
	dir := writeModules(t, map[string]string{"p.rego": "package skillsh.project\n\ndeny contains 1 if false\n"})
	if _, err := NewEngine(context.Background(), WithPolicy(dir, dir)); err == nil || !strings.Contains(err.Error(), "loaded twice") {
		t.Errorf("a layer loaded twice: %v", err)
	}
}

// TestEngineLayerNamedLikeDefault: a layer in a directory named rego/
// (so that its modules' names start as the default's do) is checked like
// any other layer.
func TestEngineLayerNamedLikeDefault(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("rego/skillsh", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("rego/skillsh/plain.rego", []byte("package skillsh.plain\n\ncommands if true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewEngine(context.Background(), WithPolicy("rego"))
	if err == nil || !strings.Contains(err.Error(), "rego/skillsh/plain.rego") {
		t.Errorf("a layer at rego/skillsh/plain.rego: %v; want it refused", err)
	}
}
