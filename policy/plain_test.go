package policy

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"mvdan.cc/sh/v3/syntax"
)

// fullQuery is the default policy's decision with every rule evaluated:
// data.skillsh.main.decision without the short way for plain commands
// (rego/skillsh/plain.rego).
const fullQuery = "data.skillsh.main.full_decision"

// fullEngine is the default policy prepared for fullQuery, with its static
// facts as written rather than folded (policy/static.go).
var fullEngine = sync.OnceValues(func() (*Engine, error) {
	set, err := loadPolicies(engineOptions{})
	if err != nil {
		return nil, err
	}
	return set.prepareModules(context.Background(), fullQuery, set.modules, inmem.NewFromObject(set.data))
})

// prepareDefault prepares query over the default policy.
func prepareDefault(t testing.TB, query string) rego.PreparedEvalQuery {
	t.Helper()
	set, err := loadPolicies(engineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := set.prepare(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	return e.query
}

// checkPlainAgrees fails t when the default policy decides in differently
// with the short way for plain commands and its static facts folded, as
// the engine does, and with every rule evaluated as written.
func checkPlainAgrees(t testing.TB, in *Input) {
	t.Helper()
	full, err := fullEngine()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := engine(t).Decide(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := full.Decide(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%q: the plain short way and folded static facts decide otherwise than every rule as written (-full +decision):\n%s", in.Command, diff)
	}
}

// TestPlainCommands: the commands an agent types most are plain, so they
// take the short way (the decision benchmarks rely on it), and what makes a
// command not plain is seen.
func TestPlainCommands(t *testing.T) {
	t.Parallel()
	e := engine(t)
	facts := testFacts(t)
	ws := facts.Roots.Workspace
	plain := []string{
		"ls", "ls -la", "cat skills/pdf/SKILL.md", "head -n 20 notes.txt",
		"grep -n foo notes.txt | sort | head -n 5", "wc -l notes.txt", "cat ~/data.csv | head -n 5",
		"python3 x.py", "python3 ../skills/pdf/scripts/a.py in.pdf", "./run.sh", "uniq data.csv",
		"echo hi", "true", "[ -f notes.txt ] && cat notes.txt", "pwd",
	}
	notPlain := []string{
		"cd skills", "printf -v x hi", "read x", "echo hi > out.txt", "trap id EXIT", "echo ${x@P}",
		"[[ -v a[$(id)] ]]", "echo $(id)", "declare x=1", "cat /etc/passwd", "cat notes.txt > out.txt", "X=1 cat notes.txt",
		"cat $f", "rm notes.txt", "sort -o out.txt notes.txt", "uniq data.csv out.txt",
		"python3", "python3 -", "python3 -c 'print(1)'", "python3 -m http.server", "python3 -u x.py",
		"bash run.sh", "node --inspect x.js", "/tmp/skillsh-absent/run.sh", "sort --compress-program=gzip data.csv",
		"./declare LD_PRELOAD=x", "./let PYTHONPATH=x", "cat /dev/tcp/h/80/../../../.." + ws + "/notes.txt",
		"/usr/bin/cat notes.txt", "xargs cat", "env cat notes.txt", "curl example.com", "find .",
		"echo $((x=1))", "cat <(ls)", "wc --files0-from=list",
	}
	query := prepareDefault(t, "data.skillsh.plain.commands")
	for _, src := range append(plain, notPlain...) {
		in := build(t, src, facts)
		e.Complete(in)
		value, err := inputValue(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := query.Eval(context.Background(), rego.EvalParsedInput(value))
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Contains(plain, src)
		if got := len(rs) == 1; got != want {
			t.Errorf("%s (workspace %s): plain %v, want %v", src, ws, got, want)
		}
		checkPlainAgrees(t, in)
	}
}

// TestPlainKeysAreNotJudged: no program or builtin with a rule of its own
// (deny_for.X, ask_for.X) is plain, since its rule is not evaluated for
// plain commands.
func TestPlainKeysAreNotJudged(t *testing.T) {
	t.Parallel()
	set, err := loadPolicies(engineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	keys := plainKeys(t)
	builtins := plainSet(t, "data.skillsh.static.printing_builtins")
	programs := set.data["skillsh"].(map[string]any)["programs"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(set.modules)) {
		for _, r := range set.modules[name].Rules {
			ref := r.Head.Ref()
			if len(ref) < 3 || !(ref[0].Equal(ast.VarTerm("deny_for")) || ref[0].Equal(ast.VarTerm("ask_for"))) {
				continue
			}
			prog, ok := ref[1].Value.(ast.String)
			if !ok {
				t.Errorf("%s: %v: a rule for any program name; the plain short way cannot know of it", name, ref)
				continue
			}
			if builtins[string(prog)] {
				t.Errorf("%s: %v judges the plain builtin %s", name, ref, prog)
			}
			entry, ok := programs[string(prog)].(map[string]any)
			if !ok {
				continue // a builtin, or a program that is not allowed: never plain
			}
			if !slices.ContainsFunc(slices.Collect(maps.Keys(entry)), func(k string) bool { return !keys[k] }) {
				t.Errorf("%s: %v judges %s, whose entry has only plain keys %v", name, ref, prog, slices.Sorted(maps.Keys(entry)))
			}
		}
	}
}

// TestPlainJudgedNames: every base name that a rule of the default names
// (deny_for.X, facts.by_base.X, cmd.base == "X", cmd.base in {...}) is in
// static judged_names, so that no entry a layer gives X, and no script
// named X, makes such a command plain.
func TestPlainJudgedNames(t *testing.T) {
	t.Parallel()
	set, err := loadPolicies(engineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	judged := plainSet(t, "data.skillsh.static.judged_names")
	named := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(set.modules)) {
		m := set.modules[name]
		pkg := m.Package.Path.String()
		if !slices.Contains([]string{"data.skillsh.shell", "data.skillsh.escapes", "data.skillsh.facts"}, pkg) {
			continue
		}
		for _, r := range m.Rules {
			if ref := r.Head.Ref(); len(ref) >= 2 && (ref[0].Equal(ast.VarTerm("deny_for")) || ref[0].Equal(ast.VarTerm("ask_for"))) {
				if s, ok := ref[1].Value.(ast.String); ok {
					named[string(s)] = r.Location.String()
				}
			}
		}
		ast.WalkTerms(m, func(term *ast.Term) bool {
			if ref, ok := term.Value.(ast.Ref); ok {
				for i := 0; i+1 < len(ref); i++ {
					if s, ok := ref[i+1].Value.(ast.String); ok && ref[i].Equal(ast.StringTerm("by_base")) {
						named[string(s)] = term.Location.String()
					}
				}
			}
			return false
		})
		ast.WalkExprs(m, func(expr *ast.Expr) bool {
			ops := expr.Operands()
			if len(ops) != 2 || !(expr.IsCall() && (expr.Operator().Equal(ast.Equal.Ref()) || expr.Operator().Equal(ast.Member.Ref()))) {
				return false
			}
			for i, op := range ops {
				ref, ok := op.Value.(ast.Ref)
				if !ok || !ref[len(ref)-1].Equal(ast.StringTerm("base")) {
					continue
				}
				for _, s := range baseNames(t, m, ops[1-i]) {
					named[s] = expr.Location.String()
				}
			}
			return false
		})
	}
	if len(named) < 20 {
		t.Fatalf("found only %d names judged by name; the scan is broken: %v", len(named), named)
	}
	for _, n := range slices.Sorted(maps.Keys(named)) {
		if !judged[n] {
			t.Errorf("%s: a rule judges %q by name, but static judged_names does not have it", named[n], n)
		}
	}
}

// baseNames are the strings a term compared with cmd.base stands for: a
// string, a set or array of strings, or a rule of m holding them (a local
// variable stands for none).
func baseNames(t *testing.T, m *ast.Module, term *ast.Term) []string {
	var out []string
	switch v := term.Value.(type) {
	case ast.String:
		out = append(out, string(v))
	case ast.Set, *ast.Array:
		ast.WalkTerms(term, func(x *ast.Term) bool {
			if s, ok := x.Value.(ast.String); ok {
				out = append(out, string(s))
			}
			return false
		})
	case ast.Var:
		if !slices.ContainsFunc(m.Rules, func(r *ast.Rule) bool { return r.Head.Name == v }) {
			break
		}
		for s := range plainSet(t, m.Package.Path.String()+"."+string(v)) {
			out = append(out, s)
		}
	}
	return out
}

func plainKeys(t *testing.T) map[string]bool { return plainSet(t, "data.skillsh.static.plain_keys") }

// plainSet evaluates query, a set of strings, over the default policy.
func plainSet(t *testing.T, query string) map[string]bool {
	t.Helper()
	rs, err := prepareDefault(t, query).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("%s: %v %v", query, rs, err)
	}
	keys := map[string]bool{}
	for _, k := range rs[0].Expressions[0].Value.([]any) {
		keys[k.(string)] = true
	}
	if len(keys) == 0 {
		t.Fatalf("%s is empty", query)
	}
	return keys
}

// FuzzPlain: for any command string that parses, the default policy
// decides the same with and without the short way for plain commands.
func FuzzPlain(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	facts := testFacts(f)
	f.Fuzz(func(t *testing.T, src string) {
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			return
		}
		checkPlainAgrees(t, Build(src, file, facts))
	})
}
