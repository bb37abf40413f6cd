package rego

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/format"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/util"
)

// minCoverage is the line coverage the default policy must keep.
const minCoverage = 90.0

// load reads the modules and data of the given file systems, each rooted
// like FS.
func load(t *testing.T, fsyss ...fs.FS) (map[string]*ast.Module, map[string]any) {
	t.Helper()
	modules := map[string]*ast.Module{}
	docs := map[string]any{}
	for _, fsys := range fsyss {
		res, err := loader.NewFileLoader().WithFS(fsys).WithProcessAnnotation(true).All([]string{"."})
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		for name, m := range res.ParsedModules() {
			modules[name] = m
		}
		for k, v := range res.Documents {
			docs[k] = v
		}
	}
	return modules, docs
}

// runTests runs the Rego tests in modules whose names match filter ("" for
// all) and returns the coverage report of the modules that are not tests.
func runTests(t *testing.T, modules map[string]*ast.Module, docs map[string]any, filter string) cover.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	store := inmem.NewFromObject(docs)
	txn := storage.NewTransactionOrDie(ctx, store)
	defer store.Abort(ctx, txn)
	cov := cover.New()
	var schema any
	if err := util.Unmarshal(InputSchema, &schema); err != nil {
		t.Fatalf("input schema: %v", err)
	}
	schemas := ast.NewSchemaSet()
	schemas.Put(ast.SchemaRootRef, schema)
	compiler := ast.NewCompiler().WithStrict(true).WithEnablePrintStatements(true).WithSchemas(schemas)
	runner := tester.NewRunner().
		SetCompiler(compiler).
		SetStore(store).
		SetModules(modules).
		SetCoverageQueryTracer(cov).
		CapturePrintOutput(true).
		SetTimeout(time.Minute).
		Filter(filter)
	ch, err := runner.RunTests(ctx, txn)
	if err != nil {
		t.Fatalf("run tests: %v", err)
	}
	n := 0
	for r := range ch {
		n++
		if !r.Pass() {
			t.Errorf("%s.%s: %s\n%s", r.Package, r.Name, r.String(), r.Output)
		}
	}
	if n == 0 {
		t.Fatal("no Rego tests found")
	}
	t.Logf("%d Rego tests", n)
	policy := map[string]*ast.Module{}
	for name, m := range modules {
		if !strings.HasSuffix(name, "_test.rego") {
			policy[name] = m
		}
	}
	return cov.Report(policy)
}

// coverage is the line coverage of the files in the report.
func coverage(r cover.Report) float64 {
	covered, total := 0, 0
	for name, f := range r.Files {
		if strings.HasSuffix(name, "_test.rego") {
			continue
		}
		covered += f.CoveredLines
		total += f.CoveredLines + f.NotCoveredLines
	}
	if total == 0 {
		return 0
	}
	return 100 * float64(covered) / float64(total)
}

func TestPolicy(t *testing.T) {
	modules, docs := load(t, FS, TestFiles)
	report := runTests(t, modules, docs, "")
	got := coverage(report)
	t.Logf("coverage %.1f%%", got)
	if got < minCoverage {
		names := make([]string, 0, len(report.Files))
		for name := range report.Files {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			f := report.Files[name]
			if strings.HasSuffix(name, "_test.rego") {
				continue
			}
			t.Logf("%s: %.1f%% not covered %v", name, f.Coverage, f.NotCovered)
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
			modules, docs := load(t, FS, TestFiles)
			more, moreDocs := load(t, os.DirFS(filepath.Join("examples", d.Name())))
			for name, m := range more {
				modules["examples/"+d.Name()+"/"+name] = m
			}
			for k, v := range moreDocs {
				docs[k] = merge(docs[k], v)
			}
			runTests(t, modules, docs, `^data\.skillsh\.`+d.Name()+`_test\.`)
		})
	}
}

// merge merges two JSON objects, b's values winning.
func merge(a, b any) any {
	am, ok1 := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		return b
	}
	out := map[string]any{}
	for k, v := range am {
		out[k] = v
	}
	for k, v := range bm {
		out[k] = merge(out[k], v)
	}
	return out
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
		fsys, what := fs.FS(FS), "FS"
		if strings.HasSuffix(name, "_test.rego") {
			fsys, what = TestFiles, "TestFiles"
		}
		if _, err := fs.Stat(fsys, name); err != nil {
			t.Errorf("%s is not in %s: add it to the go:embed lines in embed.go", name, what)
		}
	}
}

// TestAnnotations checks that every rule that can produce a reason names
// its code and verdict in METADATA, that codes are unique, and that the
// code in the annotation is the one the rule produces.
func TestAnnotations(t *testing.T) {
	modules, _ := load(t, FS)
	seen := map[string]string{}
	for name, m := range modules {
		for _, r := range m.Rules {
			head := r.Head.Name.String()
			if len(r.Head.Reference) > 0 {
				head = r.Head.Reference[len(r.Head.Reference)-1].String()
			}
			if head != "deny" && head != "ask" && head != "_fallback" {
				continue
			}
			where := r.Location.String()
			var code, verdict string
			for _, a := range r.Annotations {
				if c, ok := a.Custom["code"].(string); ok {
					code = c
				}
				if v, ok := a.Custom["verdict"].(string); ok {
					verdict = v
				}
			}
			if code == "" || verdict == "" {
				t.Errorf("%s (%s): no custom.code and custom.verdict in METADATA", where, name)
				continue
			}
			if prev, ok := seen[code]; ok {
				t.Errorf("%s: code %s is also used at %s", where, code, prev)
			}
			seen[code] = where
			key := r.Head.Key.String()
			if !strings.Contains(key, `"`+code+`"`) || !strings.Contains(key, `"`+verdict+`"`) {
				t.Errorf("%s: the rule does not produce code %q with verdict %q", where, code, verdict)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no annotated rules")
	}
}
