package policy

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/util"

	defaultpolicy "github.com/skillsh/skillsh/rego"
)

// TestTimeout bounds one Rego test rule; a table test over the whole
// decision corpus is one rule.
const TestTimeout = 2 * time.Minute

// TestReport is the outcome of running Rego unit tests.
type TestReport struct {
	Results  []*tester.Result
	Passed   int
	Failed   int
	Coverage cover.Report
	// Annotations are the problems CheckAnnotations finds in the tested
	// policies; each one fails the run.
	Annotations []string
	// FailedAt maps each failed test ("data.pkg.test_name") to the last
	// expression that failed in it: "file:line: expression", with values.
	FailedAt map[string]string
}

// OK reports whether tests ran and all passed, and the annotations are
// complete.
func (r *TestReport) OK() bool { return r.Passed > 0 && r.Failed == 0 && len(r.Annotations) == 0 }

// CoverageOf returns the percentage of lines covered in the files whose
// names have the given prefix and do not end in _test.rego.
func (r *TestReport) CoverageOf(prefix string) float64 {
	covered, total := 0, 0
	for name, f := range r.Coverage.Files {
		if !strings.HasPrefix(name, prefix) || strings.HasSuffix(name, "_test.rego") {
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

// RunTests runs Rego unit tests (test_ rules, usually in *_test.rego) with
// line coverage. Without dirs it runs the embedded default policy's own
// tests. With dirs it runs the tests in dirs against their policies on top
// of the default (when withDefault is set) and its test fixtures
// (fixtures_test.rego, for fx.doc), but not the default's own tests, which
// a project layer may rightly change the outcome of. The error reports
// policies that cannot be loaded or compiled; failing tests are in the
// report.
func RunTests(ctx context.Context, withDefault bool, dirs ...string) (*TestReport, error) {
	set := &policySet{modules: map[string]*ast.Module{}, data: map[string]any{}}
	if withDefault {
		if err := set.addDefaultForTests(len(dirs) == 0); err != nil {
			return nil, err
		}
	}
	for _, d := range dirs {
		res, err := newLoader().Filtered([]string{d}, skipNonTest)
		if err != nil {
			return nil, fmt.Errorf("load policy %s: %w", d, err)
		}
		if err := set.add(res, ""); err != nil {
			return nil, fmt.Errorf("load policy %s: %w", d, err)
		}
	}
	return set.runTests(ctx)
}

// fixturesFile holds the default's test fixtures, shared with user tests.
const fixturesFile = "skillsh/fixtures_test.rego"

// addDefaultForTests loads the default policy and its fixtures, and with
// allTests every one of its tests.
func (s *policySet) addDefaultForTests(allTests bool) error {
	res, err := newLoader().WithFS(defaultpolicy.FS).Filtered([]string{"."}, skipNonPolicy)
	if err != nil {
		return fmt.Errorf("load default policy: %w", err)
	}
	if err := s.add(res, "rego/"); err != nil {
		return err
	}
	keep := func(p string, info fs.FileInfo, _ int) bool {
		return !info.IsDir() && !allTests && strings.TrimPrefix(p, "/") != fixturesFile
	}
	tests, err := newLoader().WithFS(defaultpolicy.TestFiles).Filtered([]string{"."}, keep)
	if err != nil {
		return fmt.Errorf("load default policy tests: %w", err)
	}
	return s.add(tests, "rego/")
}

// skipNonTest keeps what skipNonPolicy keeps, plus the tests.
func skipNonTest(p string, info fs.FileInfo, depth int) bool {
	if strings.HasSuffix(info.Name(), "_test.rego") {
		return false
	}
	return skipNonPolicy(p, info, depth)
}

func (s *policySet) runTests(ctx context.Context) (*TestReport, error) {
	store := inmem.NewFromObject(s.data)
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Abort(ctx, txn)
	// Coverage is reported by the file a module was parsed from, so the
	// modules are keyed by it too.
	modules := make(map[string]*ast.Module, len(s.modules))
	for name, m := range s.modules {
		if m.Package != nil && m.Package.Location != nil {
			name = m.Package.Location.File
		}
		modules[name] = m
	}
	compiler, err := testCompiler()
	if err != nil {
		return nil, err
	}
	cov := cover.New()
	ch, err := newTestRunner(compiler, store, modules).SetCoverageQueryTracer(cov).RunTests(ctx, txn)
	if err != nil {
		return nil, fmt.Errorf("run policy tests: %w", err)
	}
	rep := &TestReport{}
	for r := range ch {
		if r.Error != nil && r.Fail {
			rep.Results = append(rep.Results, r)
			rep.Failed++
			continue
		}
		if r.Error != nil {
			return nil, fmt.Errorf("run policy tests: %w", r.Error)
		}
		rep.Results = append(rep.Results, r)
		if r.Pass() {
			rep.Passed++
		} else {
			rep.Failed++
		}
	}
	rep.Coverage = cov.Report(modules)
	_, rep.Annotations = CheckAnnotations(s.modules)
	if rep.Failed > 0 {
		if rep.FailedAt, err = failureLines(ctx, store, txn, modules, rep.Results); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func newTestRunner(compiler *ast.Compiler, store storage.Store, modules map[string]*ast.Module) *tester.Runner {
	return tester.NewRunner().
		SetCompiler(compiler).
		SetStore(store).
		SetModules(modules).
		CapturePrintOutput(true).
		SetTimeout(TestTimeout).
		SetDefaultRegoVersion(ast.RegoV1)
}

// failureLines runs the failed tests again with tracing, and returns for
// each ("package.name") the last expression that failed in it: its file
// and line, and the expression with its local values.
func failureLines(ctx context.Context, store storage.Store, txn storage.Transaction, modules map[string]*ast.Module, results []*tester.Result) (map[string]string, error) {
	var names []string
	for _, r := range results {
		if !r.Pass() && !r.Skip {
			names = append(names, regexp.QuoteMeta(r.Package+"."+r.Name))
		}
	}
	compiler, err := testCompiler()
	if err != nil {
		return nil, err
	}
	ch, err := newTestRunner(compiler, store, modules).
		EnableTracing(true).
		Filter("^("+strings.Join(names, "|")+")$").
		RunTests(ctx, txn)
	if err != nil {
		return nil, fmt.Errorf("run failed policy tests again: %w", err)
	}
	out := map[string]string{}
	for r := range ch {
		if line := lastFailure(r.Trace); line != "" {
			out[r.Package+"."+r.Name] = line
		}
	}
	return out, nil
}

// lastFailure describes the last expression of a test's own queries that
// failed, as opa test --explain fails does.
func lastFailure(trace []*topdown.Event) string {
	for _, e := range slices.Backward(trace) {
		if e.Op != topdown.FailOp || e.Location == nil || e.QueryID == 0 {
			continue
		}
		if expr, ok := e.Node.(*ast.Expr); ok {
			if _, every := expr.Terms.(*ast.Every); every {
				continue // the failing expression inside its body comes later
			}
		}
		var buf bytes.Buffer
		if err := topdown.PrettyEvent(&buf, e, topdown.PrettyEventOpts{}); err != nil {
			return ""
		}
		line := fmt.Sprintf("%s:%d: %s", e.Location.File, e.Location.Row, strings.TrimSpace(buf.String()))
		if vals := localValues(e); len(vals) > 0 {
			line += " (" + strings.Join(vals, ", ") + ")"
		}
		return line
	}
	return ""
}

// localValues lists "name = value" for the variables of the event's
// expression that the test itself named.
func localValues(e *topdown.Event) []string {
	var out []string
	seen := map[ast.Var]bool{}
	ast.WalkVars(e.Node, func(v ast.Var) bool {
		meta, ok := e.LocalMetadata[v]
		if !ok || seen[v] || meta.Name.IsGenerated() || e.Locals == nil {
			return false
		}
		seen[v] = true
		if val := e.Locals.Get(v); val != nil {
			out = append(out, fmt.Sprintf("%s = %v", meta.Name, val))
		}
		return false
	})
	return out
}

// testCompiler compiles tests as opa check --strict does, type-checking
// input against the policy input's JSON Schema, with print statements
// captured into each result's output.
func testCompiler() (*ast.Compiler, error) {
	var schema any
	if err := util.Unmarshal(defaultpolicy.InputSchema, &schema); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	schemas := ast.NewSchemaSet()
	schemas.Put(ast.SchemaRootRef, schema)
	return ast.NewCompiler().WithStrict(true).WithEnablePrintStatements(true).WithSchemas(schemas), nil
}

// Files lists the covered files in the report, sorted.
func (r *TestReport) Files() []string { return slices.Sorted(maps.Keys(r.Coverage.Files)) }
