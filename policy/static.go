package policy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// StaticDocument is the package of facts the engine computes once (the
// default policy's rego/skillsh/static.rego). When the engine loads a
// policy, it evaluates each rule of the package that reads no input and
// calls no builtin whose answer can change (time.now_ns, rand.intn,
// http.send, ...), directly or through the rules and functions it uses,
// and compiles the policy with that rule replaced by the constant it
// evaluated to (foldStatic). A rule that uses such a fact then looks up a
// constant instead of computing it per decision, with the same answer.
// Functions, and rules that read input or call such a builtin (the
// layers' reasons when a layer is loaded), are kept as written and
// evaluated per decision.
const StaticDocument = "data.skillsh.static"

var staticRef = ast.MustParseRef(StaticDocument)

// foldStatic returns modules with the modules of package StaticDocument
// replaced by one folded module (see StaticDocument), or modules itself
// when the policy has no such package. It compiles only the static
// package and the packages it refers to, with the data in store.
func foldStatic(ctx context.Context, modules map[string]*ast.Module, store storage.Store) (map[string]*ast.Module, error) {
	var static []string
	for _, name := range slices.Sorted(maps.Keys(modules)) {
		if modules[name].Package.Path.Equal(staticRef) {
			static = append(static, name)
		}
	}
	if len(static) == 0 {
		return modules, nil
	}
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Abort(ctx, txn)
	c := ast.NewCompiler().WithPathConflictsCheck(storage.NonEmpty(ctx, store, txn))
	if c.Compile(referredModules(modules, static)); c.Failed() {
		return nil, fmt.Errorf("compile policy: %w", c.Errors)
	}
	// The whole package at once shares the work of rules that use each
	// other; one rule at a time when some rule fails without input.
	var whole ast.Object
	if t, err := evalStatic(ctx, c, store, txn, staticRef); err == nil && t != nil {
		whole, _ = t.Value.(ast.Object)
	}
	eval := func(n ast.Var) (*ast.Term, error) {
		ref := staticRef.Append(ast.StringTerm(string(n)))
		if readsInput(c, ref) != nil {
			return nil, errKeep
		}
		if whole != nil {
			return whole.Get(ast.StringTerm(string(n))), nil
		}
		return evalStatic(ctx, c, store, txn, ref)
	}
	folded, err := foldedModule(modules, static, eval)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(modules)
	for _, name := range static {
		delete(out, name)
	}
	out[static[0]] = folded
	return out, nil
}

// errKeep says a static rule is to be kept as written.
var errKeep = errors.New("kept as written")

// referredModules returns the modules named roots and every module they
// refer to, directly or not: a module refers to the packages it imports
// and to those its data references name, or lie under (data.a[x] refers
// to every package under data.a).
func referredModules(modules map[string]*ast.Module, roots []string) map[string]*ast.Module {
	out := map[string]*ast.Module{}
	queue := slices.Clone(roots)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if out[name] != nil {
			continue
		}
		m := modules[name]
		out[name] = m
		ast.WalkRefs(m, func(r ast.Ref) bool {
			if !r.HasPrefix(ast.DefaultRootRef) {
				return false
			}
			prefix := r.ConstantPrefix()
			for other, om := range modules {
				if out[other] == nil && (om.Package.Path.HasPrefix(prefix) || prefix.HasPrefix(om.Package.Path)) {
					queue = append(queue, other)
				}
			}
			return false
		})
	}
	return out
}

// evalStatic evaluates ref without input: nil when it is undefined. The
// value is kept as Rego made it (a set stays a set, which a JSON round
// trip would turn into an array).
func evalStatic(ctx context.Context, c *ast.Compiler, store storage.Store, txn storage.Transaction, ref ast.Ref) (*ast.Term, error) {
	x := ast.VarTerm("x")
	body, err := c.QueryCompiler().Compile(ast.NewBody(ast.Equality.Expr(x, ast.NewTerm(ref))))
	if err != nil {
		return nil, err
	}
	rs, err := topdown.NewQuery(body).WithCompiler(c).WithStore(store).WithTransaction(txn).Run(ctx)
	switch {
	case err != nil:
		return nil, fmt.Errorf("evaluate %v: %w", ref, err)
	case len(rs) == 0:
		return nil, nil
	case len(rs) > 1:
		return nil, fmt.Errorf("evaluate %v: %d values, want one", ref, len(rs))
	}
	return rs[0][x.Value.(ast.Var)], nil
}

// foldedModule is one module of package StaticDocument in place of the
// modules named static: each rule name that eval gives a value becomes
// name := its value; a rule that only says true and is undefined becomes
// name if false; functions, rules for which eval returns errKeep and other
// undefined rules are kept, with the imports they may need. Folded rules
// keep the location of the first rule of their name.
func foldedModule(modules map[string]*ast.Module, static []string, eval func(ast.Var) (*ast.Term, error)) (*ast.Module, error) {
	folded, err := ast.ParseModuleWithOpts(static[0], "package "+staticRef[1:].String(), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, err
	}
	byName := map[ast.Var][]*ast.Rule{}
	var names []ast.Var
	imports := map[string]bool{}
	for _, name := range static {
		m := modules[name]
		for _, imp := range m.Imports {
			if !imports[imp.String()] {
				imports[imp.String()] = true
				folded.Imports = append(folded.Imports, imp.Copy())
			}
		}
		for _, r := range m.Rules {
			n := r.Head.Ref()[0].Value.(ast.Var)
			if byName[n] == nil {
				names = append(names, n)
			}
			byName[n] = append(byName[n], r)
		}
	}
	for _, n := range names {
		rules, err := foldRules(n, byName[n], eval)
		if err != nil {
			return nil, err
		}
		for _, r := range rules {
			r.Module = folded
			folded.Rules = append(folded.Rules, r)
		}
	}
	return folded, nil
}

// foldRules returns the rules that stand for rules, all named n, whose
// document eval gives.
func foldRules(n ast.Var, rules []*ast.Rule, eval func(ast.Var) (*ast.Term, error)) ([]*ast.Rule, error) {
	keep := func() []*ast.Rule {
		out := make([]*ast.Rule, len(rules))
		for i, r := range rules {
			out[i] = r.Copy()
		}
		return out
	}
	if slices.ContainsFunc(rules, func(r *ast.Rule) bool { return len(r.Head.Args) > 0 }) {
		return keep(), nil // a function has no value to fold
	}
	v, err := eval(n)
	if errors.Is(err, errKeep) {
		return keep(), nil
	} else if err != nil {
		return nil, err
	}
	src := string(n) + " := 0"
	if v == nil {
		if !slices.ContainsFunc(rules, isBooleanRule) {
			return keep(), nil
		}
		src = string(n) + " if false"
	}
	m, err := ast.ParseModuleWithOpts("", "package folded\n\n"+src, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, fmt.Errorf("fold %s.%s: %w", StaticDocument, n, err)
	}
	r := m.Rules[0]
	if v != nil {
		r.Head.Value = v
	}
	r.Location = rules[0].Location
	return []*ast.Rule{r}, nil
}

// isBooleanRule: r is name if ... (name := true if ...), with no key.
func isBooleanRule(r *ast.Rule) bool {
	return len(r.Head.Ref()) == 1 && r.Head.Key == nil && (r.Head.Value == nil || r.Head.Value.Equal(ast.BooleanTerm(true)))
}

// readsInput returns an error naming the rule when a rule at ref, or a
// rule or function it uses, reads input or calls a nondeterministic
// builtin (time.now_ns, rand.intn, http.send, ...): its value could then
// differ between decisions, so it cannot be folded. It is conservative: a
// reference to data that is only known at run time (data.a[x]) counts as
// using every rule under data.a.
func readsInput(c *ast.Compiler, ref ast.Ref) error {
	seen := map[*ast.Rule]bool{}
	var visit func(*ast.Rule) error
	visit = func(r *ast.Rule) error {
		if seen[r] {
			return nil
		}
		seen[r] = true
		var err error
		ast.WalkTerms(r, func(t *ast.Term) bool {
			if err != nil {
				return true
			}
			err = checkStaticTerm(c, r, t, visit)
			return err != nil
		})
		return err
	}
	for _, r := range c.GetRules(ref) {
		if err := visit(r); err != nil {
			return err
		}
	}
	return nil
}

// checkStaticTerm checks one term of rule r (see readsInput), visiting
// the rules a data reference names.
func checkStaticTerm(c *ast.Compiler, r *ast.Rule, t *ast.Term, visit func(*ast.Rule) error) error {
	refuse := func(what string) error {
		return fmt.Errorf("the rule at %s %s", r.Location, what)
	}
	switch v := t.Value.(type) {
	case ast.Var:
		if v.Equal(ast.InputRootDocument.Value) {
			return refuse("reads input")
		}
	case ast.Call:
		if b, ok := ast.BuiltinMap[v[0].String()]; ok && b.Nondeterministic {
			return refuse("calls " + b.Name + ", whose answer can change")
		}
	case ast.Ref:
		if v.HasPrefix(ast.InputRootRef) {
			return refuse("reads input")
		}
		if b, ok := ast.BuiltinMap[v.String()]; ok && b.Nondeterministic {
			return refuse("calls " + b.Name + ", whose answer can change")
		}
		if v.HasPrefix(ast.DefaultRootRef) {
			for _, dep := range c.GetRules(v.ConstantPrefix()) {
				if err := visit(dep); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
