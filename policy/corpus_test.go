package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// corpusFile is the decision corpus: commands with the decision and reason
// codes the default policy must give them. It drives this test, the fuzz
// seeds and (through the generated Rego fixture) the Rego tests.
const corpusFile = "../testdata/policy-corpus.yaml"

// corpusCase is one entry. Commands name the roots as /skills-root (a copy
// of testdata/skills) and /ws (the workspace, also the working directory).
type corpusCase struct {
	Command  string   `yaml:"command"`
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
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	skills, ws := filepath.Join(dir, "skills-root"), filepath.Join(dir, "ws")
	if err := os.CopyFS(skills, os.DirFS("../testdata/skills")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ws + "/build", ws + "/out"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"data.csv", "notes.txt", "report.md", "script.py", "run.sh", "archive.tar.gz", "data.json"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
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
		t.Run(c.Command, func(t *testing.T) {
			d := decide(t, e, roots.Replace(c.Command), facts)
			got := corpusCase{Command: c.Command, Decision: d.Verdict, Codes: codes(d)}
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
