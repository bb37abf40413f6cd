package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// TestStaticRefusesInput: a policy whose data.skillsh.static reads input,
// directly or through a rule or function it uses, or calls a builtin
// whose answer changes, is refused when it loads: binding its value once
// would change what the policy says.
func TestStaticRefusesInput(t *testing.T) {
	t.Parallel()
	main := "package skillsh.main\n\nimport data.skillsh.static\n\ndecision := {\"decision\": \"allow\", \"reasons\": []} if static.ok\n"
	tests := map[string]struct{ static, want string }{
		"input":    {"ok if input.command == \"ls\"\n", "reads input"},
		"whole":    {"ok if input\n", "reads input"},
		"rule":     {"import data.skillsh.helper\n\nok if helper.quiet\n", "reads input"},
		"function": {"import data.skillsh.helper\n\nok if helper.f(1)\n", "reads input"},
		"time":     {"ok if time.now_ns() > 0\n", "calls time.now_ns"},
		"dynamic":  {"ok if {\n\tsome k\n\tdata.skillsh.helper[k]\n}\n", "reads input"},
		"nested":   {"ok if count([x | some x in numbers.range(1, 2); rand.intn(\"k\", 3) > 0]) > 0\n", "calls rand.intn"},
		"with":     {"ok if data.skillsh.helper.quiet with input as {\"command\": \"ls\"}\n", "reads input"},
	}
	helper := "package skillsh.helper\n\nquiet if input.command == \"ls\"\n\nf(x) if x == count(input.commands)\n"
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeModules(t, map[string]string{
				"main.rego":   main,
				"helper.rego": helper,
				"static.rego": "package skillsh.static\n\n" + tc.static,
			})
			_, err := NewEngine(context.Background(), WithoutDefault(), WithPolicy(dir))
			if err == nil || !strings.Contains(err.Error(), "data.skillsh.static must read no input") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want a refusal that %s", err, tc.want)
			}
		})
	}
	t.Run("pure", func(t *testing.T) {
		t.Parallel()
		dir := writeModules(t, map[string]string{
			"main.rego":   main,
			"static.rego": "package skillsh.static\n\nok if count(data.skillsh.names) == 2\n",
			"data.json":   `{"skillsh": {"names": ["a", "b"]}}`,
		})
		e, err := NewEngine(context.Background(), WithoutDefault(), WithPolicy(dir))
		if err != nil {
			t.Fatal(err)
		}
		if d, err := e.Decide(context.Background(), &Input{Version: InputVersion}); err != nil || d.Verdict != Allow {
			t.Errorf("decision %+v, %v", d, err)
		}
	})
}

// TestStaticValue: the value bound to data.skillsh.static for every
// decision is the one the default policy evaluates to without the
// binding, whatever the input, and it keeps sets as sets.
func TestStaticValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	set, err := loadPolicies(engineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store := inmem.NewFromObject(set.data)
	compiler := ast.NewCompiler()
	opts := []func(*rego.Rego){rego.Store(store), rego.Compiler(compiler), rego.Query("x := data.skillsh.static")}
	for _, m := range set.modules {
		opts = append(opts, rego.ParsedModule(m))
	}
	unbound, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bound, err := staticBinding(ctx, compiler, store)
	if err != nil || bound == nil {
		t.Fatalf("binding %v, %v", bound, err)
	}
	want, err := ast.JSON(bound.Value.Value)
	if err != nil {
		t.Fatal(err)
	}
	e, facts := engine(t), testFacts(t)
	for _, src := range []string{"ls", "rm -rf / ; curl x | sh", "cat <(env) > /etc/x"} {
		in := build(t, src, facts)
		e.Complete(in)
		rs, err := unbound.Eval(ctx, rego.EvalInput(in))
		if err != nil || len(rs) != 1 {
			t.Fatalf("%q: %v %v", src, rs, err)
		}
		if diff := cmp.Diff(want, rs[0].Bindings["x"]); diff != "" {
			t.Errorf("data.skillsh.static for %q differs from the bound value:\n%s", src, diff)
		}
	}
	static := bound.Value.Value.(ast.Object)
	programs, _ := static.Get(ast.StringTerm("plain_programs")).Value.(ast.Object)
	if programs == nil || programs.Get(ast.StringTerm("cat")) == nil || programs.Get(ast.StringTerm("rm")) != nil {
		t.Errorf("plain_programs = %v; want an object with cat and not rm", programs)
	}
	if names, _ := static.Get(ast.StringTerm("unplain_names")).Value.(ast.Set); names == nil || !names.Contains(ast.StringTerm("curl")) {
		t.Errorf("unplain_names = %v; want a set with curl", names)
	}
}

// writeModules writes files (name → content) into a new directory.
func writeModules(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
