package rego_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/open-policy-agent/opa/v1/loader"

	"github.com/skillsh/skillsh/policy"
	"github.com/skillsh/skillsh/rego"
)

// minCoverage is the line coverage the default policy must keep.
const minCoverage = 90.0

// load reads the modules of the given file systems, each rooted like FS.
func load(t *testing.T, fsyss ...fs.FS) map[string]*ast.Module {
	t.Helper()
	modules := map[string]*ast.Module{}
	for _, fsys := range fsyss {
		res, err := loader.NewFileLoader().WithFS(fsys).WithProcessAnnotation(true).All([]string{"."})
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		for name, m := range res.ParsedModules() {
			modules[name] = m
		}
	}
	return modules
}

// runTests runs Rego tests as skillsh policy test does and fails t on any
// failure or when none ran.
func runTests(t *testing.T, dirs ...string) *policy.TestReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := policy.RunTests(ctx, true, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if !r.Pass() {
			t.Errorf("%s.%s: %s\n%s", r.Package, r.Name, r.String(), r.Output)
		}
	}
	if rep.Passed+rep.Failed == 0 {
		t.Fatal("no Rego tests found")
	}
	t.Logf("%d Rego tests", rep.Passed+rep.Failed)
	return rep
}

func TestPolicy(t *testing.T) {
	rep := runTests(t)
	got := rep.CoverageOf("skillsh/")
	t.Logf("coverage %.1f%%", got)
	if got < minCoverage {
		for _, name := range rep.Files() {
			if f := rep.Coverage.Files[name]; !strings.HasSuffix(name, "_test.rego") {
				t.Logf("%s: %.1f%% not covered %v", name, f.Coverage, f.NotCovered)
			}
		}
		t.Errorf("coverage %.1f%% is below %.0f%%", got, minCoverage)
	}
}

// TestExamples runs the tests of each example layer under examples/,
// loaded as skillsh --policy DIR would load it, on top of the default.
func TestExamples(t *testing.T) {
	dirs, err := os.ReadDir("examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			runTests(t, filepath.Join("examples", d.Name()))
		})
	}
}

// regoFiles lists the .rego files under dir on disk.
func regoFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".rego") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestFormat(t *testing.T) {
	for _, path := range regoFiles(t, ".") {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := format.Source(path, src)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if string(got) != string(src) {
			t.Errorf("%s is not formatted: run opa fmt -w rego/", path)
		}
	}
}

// TestEmbedded checks that FS holds every policy and data file of
// skillsh/ and TestFiles every test.
func TestEmbedded(t *testing.T) {
	entries, err := os.ReadDir("skillsh")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := "skillsh/" + e.Name()
		fsys, what := fs.FS(rego.FS), "FS"
		if strings.HasSuffix(name, "_test.rego") {
			fsys, what = rego.TestFiles, "TestFiles"
		}
		if _, err := fs.Stat(fsys, name); err != nil {
			t.Errorf("%s is not in %s: add it to the go:embed lines in embed.go", name, what)
		}
	}
}

// TestAnnotations checks that every rule that can produce a reason (its
// head is a lib.reason(...) call, whether it adds to deny, ask, deny_for.NAME
// or the fallback) names its code and verdict in METADATA, that codes are
// unique, and that the code in the annotation is the one the rule
// produces. Rules that pass on other rules' reasons are not checked.
func TestAnnotations(t *testing.T) {
	rules, problems := policy.CheckAnnotations(load(t, rego.FS))
	for _, p := range problems {
		t.Error(p)
	}
	if rules < 40 {
		t.Fatalf("found %d rules that produce reasons, want the default's 40 and more", rules)
	}
}
