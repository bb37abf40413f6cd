package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/format"
	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// corpusFile is the decision corpus: commands with the decision and reason
// codes the default policy must give them. It drives this test, the fuzz
// seeds and (through the generated Rego fixture) the Rego tests.
const corpusFile = "../testdata/policy-corpus.yaml"

// corpusCase is one entry. Commands name the roots as /skills-root (a copy
// of testdata/skills) and /ws (the workspace, also the working directory,
// holding etc-link -> /etc and skill-link -> /skills-root/text-tools).
// With Exec, the case is the exec-phase decision for that expanded argv of
// Command; otherwise it is the static decision for the whole command.
type corpusCase struct {
	Command  string   `yaml:"command"`
	Exec     []string `yaml:"exec,omitempty"`
	Decision Verdict  `yaml:"decision"`
	Codes    []string `yaml:"codes"`
	Note     string   `yaml:"note,omitempty"`
}

// loadCorpus reads the corpus; with a nil t, errors yield no cases.
func loadCorpus(t testing.TB) []corpusCase {
	data, err := os.ReadFile(corpusFile)
	var cases []corpusCase
	if err == nil {
		err = yaml.Unmarshal(data, &cases)
	}
	if err != nil && t != nil {
		t.Fatalf("corpus: %v", err)
	}
	return cases
}

// corpusFacts builds the roots the corpus names, in a temporary directory.
func corpusFacts(t *testing.T) (*Facts, *strings.Replacer) {
	t.Helper()
	dir, err := os.MkdirTemp("", "skillsh-corpus-") // directly in TMPDIR: see generateCorpusRego
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	skills, ws := filepath.Join(dir, "skills-root"), filepath.Join(dir, "ws")
	if err := os.CopyFS(skills, os.DirFS("../testdata/skills")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ws + "/build", ws + "/out", ws + "/repo/.git"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"data.csv", "notes.txt", "report.md", "script.py", "run.sh", "archive.tar.gz", "data.json", "repo/.git/config"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"etc-link": "/etc", "skill-link": skills + "/text-tools"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	facts := &Facts{Cwd: ws, Roots: Roots{Skills: []string{skills}, Workspace: ws}, Session: Session{Home: ws}}
	return facts, strings.NewReplacer("/skills-root", skills, "/ws", ws)
}

func TestCorpus(t *testing.T) {
	t.Parallel()
	cases := loadCorpus(t)
	if len(cases) == 0 {
		t.Fatal("the corpus is empty")
	}
	e := engine(t)
	facts, roots := corpusFacts(t)
	for _, c := range cases {
		name := c.Command
		if c.Exec != nil {
			name += " => " + strings.Join(c.Exec, " ")
		}
		t.Run(name, func(t *testing.T) {
			var d Decision
			if c.Exec != nil {
				d = decideExec(t, e, roots.Replace(c.Command), c.Exec, roots, facts)
			} else {
				d = decide(t, e, roots.Replace(c.Command), facts)
			}
			got := corpusCase{Command: c.Command, Exec: c.Exec, Decision: d.Verdict, Codes: codes(d)}
			want := c
			want.Note = ""
			slices.Sort(want.Codes)
			if want.Codes == nil {
				want.Codes = []string{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nreasons: %+v", diff, d.Reasons)
			}
		})
	}
}

// decideExec decides the exec phase of one expanded command.
func decideExec(t *testing.T, e *Engine, src string, argv []string, roots *strings.Replacer, facts *Facts) Decision {
	t.Helper()
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = roots.Replace(a)
	}
	d, err := e.Decide(context.Background(), BuildExec(src, args, syntax.Pos{}, facts))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// codes returns the distinct reason codes of a decision, sorted.
func codes(d Decision) []string {
	out := []string{}
	for _, r := range d.Reasons {
		out = append(out, r.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// corpusRego is the Rego test generated from the corpus: every case's
// input as the real builder makes it, with the decision the default policy
// must reach. `go test ./policy -run TestCorpusRego -update` rewrites it.
const corpusRego = "../rego/skillsh/corpus_test.rego"

var update = flag.Bool("update", false, "rewrite generated files")

// TestCorpusRego checks that the generated Rego corpus test is up to date
// with the corpus and the builder.
func TestCorpusRego(t *testing.T) {
	t.Parallel()
	facts, roots := corpusFacts(t)
	want := generateCorpusRego(t, loadCorpus(t), facts, roots)
	if *update {
		if err := os.WriteFile(corpusRego, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(corpusRego)
	if err != nil {
		t.Fatalf("%v (run go test ./policy -run TestCorpusRego -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: run go test ./policy -run TestCorpusRego -update", corpusRego)
	}
}

// corpusEntry is one generated case.
type corpusEntry struct {
	Decision Verdict  `json:"decision"`
	Codes    []string `json:"codes"`
	Input    *Input   `json:"input"`
}

func generateCorpusRego(t *testing.T, cases []corpusCase, facts *Facts, roots *strings.Replacer) []byte {
	t.Helper()
	entries := map[string]corpusEntry{}
	for _, c := range cases {
		src := roots.Replace(c.Command)
		name := c.Command
		var in *Input
		if c.Exec != nil {
			name += " => " + strings.Join(c.Exec, " ")
			args := make([]string, len(c.Exec))
			for i, a := range c.Exec {
				args[i] = roots.Replace(a)
			}
			in = BuildExec(src, args, syntax.Pos{}, facts)
		} else {
			f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
			if err != nil {
				t.Fatalf("parse %q: %v", src, err)
			}
			in = Build(src, f, facts)
		}
		entries[name] = corpusEntry{Decision: c.Decision, Codes: nonNil(c.Codes), Input: in}
	}
	doc, err := json.MarshalIndent(entries, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	// The fixture names the roots as the corpus does, whatever temporary
	// directory they were built in; a path that left the roots upwards
	// names that directory as /.
	base := filepath.Dir(facts.Roots.Workspace)
	doc = []byte(strings.NewReplacer(facts.Roots.Skills[0], "/skills-root", facts.Roots.Workspace, "/ws", base, "").Replace(string(doc)))
	src := corpusRegoHeader + "cases := " + string(doc) + "\n" + corpusRegoTest
	out, err := format.Source(corpusRego, []byte(src))
	if err != nil {
		t.Fatalf("format generated Rego: %v", err)
	}
	return out
}

const corpusRegoHeader = `# Code generated by go test ./policy -run TestCorpusRego -update; DO NOT EDIT.
#
# The decision corpus (testdata/policy-corpus.yaml), each case with the
# policy input the builder makes for it. The Go test of the corpus, these
# Rego tests and the fuzz seeds share that one corpus.
package skillsh.corpus_test

import data.skillsh.main

`

const corpusRegoTest = `
test_corpus[name] if {
	some name, tc in cases
	d := main.decision with input as tc.input
	d.decision == tc.decision
	{r.code | some r in d.reasons} == {c | some c in tc.codes}
}
`
