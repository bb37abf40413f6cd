package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
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

// corpusFacts builds the roots the corpus names, in a temporary directory,
// and a search path there (usr/bin) holding an empty executable for every
// program name the corpus runs, so that the programs the inputs name are
// the same on every machine, whatever it has installed.
func corpusFacts(t *testing.T) (*Facts, *rootNames) {
	t.Helper()
	// In /tmp, not TMPDIR: a path that leaves the roots upwards resolves
	// into the parent, which the generated fixture must name alike on
	// every machine.
	dir, err := os.MkdirTemp("/tmp", "skillsh-corpus-")
	if err != nil {
		t.Fatal(err)
	}
	// The corpus names paths outside the roots in /tmp/skillsh-absent, whose
	// absence the generated Rego records.
	if _, err := os.Lstat("/tmp/skillsh-absent"); err == nil {
		t.Fatal("/tmp/skillsh-absent exists; the corpus needs it absent: remove it")
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
	bin := filepath.Join(dir, "usr/bin")
	facts := &Facts{Cwd: ws, Roots: Roots{Skills: []string{skills}, Workspace: ws}, Session: Session{Home: ws}, Path: bin}
	roots := &rootNames{names: []string{"/skills-root", "/ws"}, dirs: []string{skills, ws}}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name := range corpusPrograms(t, loadCorpus(t), facts, roots) {
		if err := os.WriteFile(filepath.Join(bin, name), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return facts, roots
}

// corpusPrograms returns the names, without a slash, of the external
// programs the corpus runs.
func corpusPrograms(t *testing.T, cases []corpusCase, facts *Facts, roots *rootNames) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, c := range cases {
		for _, cmd := range buildCase(t, c, facts, roots).Commands {
			if cmd.Kind == "external" && cmd.Name != "" && !strings.ContainsRune(cmd.Name, '/') {
				names[cmd.Name] = true
			}
		}
	}
	return names
}

// rootNames maps the roots' names in the corpus to the directories they
// were made in.
type rootNames struct {
	names, dirs []string
}

// edit is one root name of a corpus text replaced by its directory: at
// from in the corpus text and at to in the real one, nameLen bytes
// replaced by dirLen.
type edit struct{ from, to, nameLen, dirLen int }

// Replace returns s with every root name replaced by its directory.
func (r *rootNames) Replace(s string) string {
	real, _ := r.replace(s)
	return real
}

// replace returns s with the root names replaced, and the edits made,
// leftmost first.
func (r *rootNames) replace(s string) (string, []edit) {
	var b strings.Builder
	var edits []edit
	for i := 0; i < len(s); {
		k := slices.IndexFunc(r.names, func(n string) bool { return strings.HasPrefix(s[i:], n) })
		if k < 0 {
			b.WriteByte(s[i])
			i++
			continue
		}
		edits = append(edits, edit{from: i, to: b.Len(), nameLen: len(r.names[k]), dirLen: len(r.dirs[k])})
		b.WriteString(r.dirs[k])
		i += len(r.names[k])
	}
	return b.String(), edits
}

// corpusOffset maps an offset of the real text back to the corpus text;
// an offset inside a directory maps into its name, clipped to its end.
func corpusOffset(edits []edit, off int) int {
	shift := 0
	for _, e := range edits {
		switch {
		case off <= e.to:
			return off - shift
		case off < e.to+e.dirLen:
			return e.from + min(off-e.to, e.nameLen)
		}
		shift += e.dirLen - e.nameLen
	}
	return off - shift
}

// spansToCorpus rewrites every span in the input built from the real
// text so that it refers to the corpus text src, as if the roots were
// named as the corpus names them. A wrapped command shares its argv with
// the wrapper's, so each span is rewritten once.
func spansToCorpus(in *Input, src string, edits []edit) {
	done := map[*Span]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			if sp, ok := v.Addr().Interface().(*Span); ok {
				if !done[sp] {
					*sp, done[sp] = corpusSpan(*sp, src, edits), true
				}
				return
			}
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(in))
}

func corpusSpan(sp Span, src string, edits []edit) Span {
	if sp == (Span{}) {
		return sp
	}
	sp.Start, sp.End = corpusOffset(edits, sp.Start), corpusOffset(edits, sp.End)
	sp.Col = sp.Start - strings.LastIndexByte(src[:sp.Start], '\n')
	return sp
}

// buildCase builds the input of one corpus case: the static input of its
// command, or with Exec the exec-phase input of that argv.
func buildCase(t *testing.T, c corpusCase, facts *Facts, roots *rootNames) *Input {
	t.Helper()
	src := roots.Replace(c.Command)
	if c.Exec != nil {
		args := make([]string, len(c.Exec))
		for i, a := range c.Exec {
			args[i] = roots.Replace(a)
		}
		return BuildExec(src, args, syntax.Pos{}, facts)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return Build(src, f, facts)
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
			in := buildCase(t, c, facts, roots)
			d, err := e.Decide(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			checkPlainAgrees(t, in)
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
// input as the real builder and engine make it, with the decision the default policy
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

func generateCorpusRego(t *testing.T, cases []corpusCase, facts *Facts, roots *rootNames) []byte {
	t.Helper()
	entries := map[string]corpusEntry{}
	for _, c := range cases {
		name := c.Command
		if c.Exec != nil {
			name += " => " + strings.Join(c.Exec, " ")
		}
		in := buildCase(t, c, facts, roots)
		engine(t).Complete(in)
		_, edits := roots.replace(c.Command)
		spansToCorpus(in, c.Command, edits)
		entries[name] = corpusEntry{Decision: c.Decision, Codes: nonNil(c.Codes), Input: in}
	}
	doc, err := json.MarshalIndent(entries, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	// The fixture names the roots as the corpus does, whatever temporary
	// directory they were built in; a path that left the roots to their
	// parent names it as /, and one that went higher names /tmp.
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
