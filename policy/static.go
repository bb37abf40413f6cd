package policy

import (
	"context"
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

// foldStatic returns modules with the foldable rules of package
// StaticDocument (see StaticDocument) replaced by constant rules, in a
// module of their own; the modules that held them keep their other rules.
// It returns modules itself when there is nothing to fold, or when a
// module uses with on anything but input (with could replace what a
// folded value was computed from). It compiles only the static package
// and the packages it refers to, with the data in store.
func foldStatic(ctx context.Context, modules map[string]*ast.Module, store storage.Store) (map[string]*ast.Module, error) {
	var static []string
	for _, name := range slices.Sorted(maps.Keys(modules)) {
		if modules[name].Package.Path.Equal(staticRef) {
			static = append(static, name)
		}
	}
	if len(static) == 0 || replacesData(modules) {
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
	var whole ast.Value
	if t, err := evalStatic(ctx, c, store, txn, staticRef); err == nil && t != nil {
		whole = t.Value
	}
	value := func(ref ast.Ref) (*ast.Term, bool) {
		path := documentPath(ref)
		if readsInput(c, staticRef.Concat(path)) != nil {
			return nil, false
		}
		if whole != nil {
			v, err := whole.Find(path)
			if err != nil {
				return nil, true // undefined
			}
			return ast.NewTerm(v), true
		}
		t, err := evalStatic(ctx, c, store, txn, staticRef.Concat(path))
		return t, err == nil
	}
	folds := foldable(staticGroups(modules, static), value)
	if len(folds) == 0 {
		return modules, nil
	}
	return foldedModules(modules, static, folds)
}

// replacesData reports whether a module uses with on anything but input:
// data, a function or a builtin.
func replacesData(modules map[string]*ast.Module) bool {
	found := false
	for _, m := range modules {
		ast.WalkExprs(m, func(e *ast.Expr) bool {
			for _, w := range e.With {
				if ref, ok := w.Target.Value.(ast.Ref); !ok || !ref.HasPrefix(ast.InputRootRef) {
					found = true
				}
			}
			return found
		})
	}
	return found
}

// staticGroup is the rules of the static package that define one
// document: those whose head has the same ground prefix (plain_programs
// for plain_programs[name] := spec).
type staticGroup struct {
	ref   ast.Ref // relative to the package: plain_programs, a.b
	rules []*ast.Rule
}

// staticGroups groups the rules of the modules named static, in the order
// they were written.
func staticGroups(modules map[string]*ast.Module, static []string) []*staticGroup {
	var out []*staticGroup
	byRef := map[string]*staticGroup{}
	for _, name := range static {
		for _, r := range modules[name].Rules {
			ref := r.Head.Ref().GroundPrefix()
			g := byRef[ref.String()]
			if g == nil {
				g = &staticGroup{ref: ref}
				byRef[ref.String()] = g
				out = append(out, g)
			}
			g.rules = append(g.rules, r)
		}
	}
	return out
}

// staticFold is a group and the document it folds to (nil: undefined).
type staticFold struct {
	group *staticGroup
	value *ast.Term
}

// foldable returns the groups that fold, with their value: not a
// function, not a document that another group's lies in or under (a and
// a.b), a value that reads no input (value's second result), and when
// undefined, a rule that only says true.
func foldable(groups []*staticGroup, value func(ast.Ref) (*ast.Term, bool)) []staticFold {
	var out []staticFold
	for _, g := range groups {
		if slices.ContainsFunc(g.rules, func(r *ast.Rule) bool { return len(r.Head.Args) > 0 }) ||
			slices.ContainsFunc(groups, func(o *staticGroup) bool {
				return o != g && (o.ref.HasPrefix(g.ref) || g.ref.HasPrefix(o.ref))
			}) {
			continue
		}
		v, ok := value(g.ref)
		if !ok || v == nil && !slices.ContainsFunc(g.rules, isBooleanRule) {
			continue
		}
		out = append(out, staticFold{g, v})
	}
	return out
}

// isBooleanRule: r is name if ... (name := true if ...), with no key.
func isBooleanRule(r *ast.Rule) bool {
	return r.Head.Key == nil && (r.Head.Value == nil || r.Head.Value.Equal(ast.BooleanTerm(true)))
}

// documentPath is ref (a.b) as a path into the package's document.
func documentPath(ref ast.Ref) ast.Ref {
	path := ast.Ref{ast.StringTerm(string(ref[0].Value.(ast.Var)))}
	return append(path, ref[1:]...)
}

// foldedModules returns modules with the rules of folds taken out of the
// modules named static (with their annotations), and a module of constant
// rules in their place: ref := value, or ref if false when undefined.
// Folded rules keep the location of the first rule of their group.
func foldedModules(modules map[string]*ast.Module, static []string, folds []staticFold) (map[string]*ast.Module, error) {
	src := "package " + staticRef[1:].String() + "\n"
	folded := map[*ast.Rule]bool{}
	paths := map[string]bool{}
	for _, f := range folds {
		if f.value == nil {
			src += "\n" + f.group.ref.String() + " if false\n"
		} else {
			src += "\n" + f.group.ref.String() + " := 0\n"
		}
		for _, r := range f.group.rules {
			folded[r] = true
		}
		paths[f.group.ref.String()] = true
	}
	constants, err := ast.ParseModuleWithOpts(static[0]+" (folded)", src, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, fmt.Errorf("fold %s: %w", StaticDocument, err)
	}
	for i, r := range constants.Rules {
		if v := folds[i].value; v != nil {
			r.Head.Value = v
		}
		r.Location = folds[i].group.rules[0].Location
	}
	out := maps.Clone(modules)
	for _, name := range static {
		m := modules[name].Copy() // the same rules, in the same order
		var rules []*ast.Rule
		for i, r := range modules[name].Rules {
			if !folded[r] {
				rules = append(rules, m.Rules[i])
			}
		}
		m.Rules = rules
		m.Annotations = slices.DeleteFunc(m.Annotations, func(a *ast.Annotations) bool {
			return (a.Scope == "rule" || a.Scope == "document") && paths[a.GetTargetPath().String()]
		})
		out[name] = m
	}
	out[constants.Package.Location.File] = constants
	return out, nil
}

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

// changing reports whether the builtin named name may answer differently
// for the same arguments: OPA's nondeterministic builtins, and those that
// compare with the current time without saying so.
func changing(name string) bool {
	b, ok := ast.BuiltinMap[name]
	return ok && (b.Nondeterministic || timeDependent[name])
}

var timeDependent = map[string]bool{
	"crypto.x509.parse_and_verify_certificates":              true,
	"crypto.x509.parse_and_verify_certificates_with_options": true,
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
		if changing(v[0].String()) {
			return refuse("calls " + v[0].String() + ", whose answer can change")
		}
	case ast.Ref:
		if v.HasPrefix(ast.InputRootRef) {
			return refuse("reads input")
		}
		if changing(v.String()) {
			return refuse("calls " + v.String() + ", whose answer can change")
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
