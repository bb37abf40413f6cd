package policy

import (
	"context"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// StaticDocument is the document of facts that read no input (the default
// policy's rego/skillsh/static.rego). The engine evaluates it once, when
// it prepares the query, and evaluates every decision with
// StaticDocument bound to that value (Rego's with keyword): the rules
// that use a static fact look it up instead of computing it per command.
// The answer is the same as without the binding, because the document
// reads no input and calls no builtin whose answer can change; the
// engine refuses a policy for which it cannot show that (checkStatic).
const StaticDocument = "data.skillsh.static"

var staticRef = ast.MustParseRef(StaticDocument)

// staticBinding evaluates StaticDocument and returns the with modifier
// that binds it; nil when the policy has no rule there. The compiler
// must have compiled the policy; store holds its data.
func staticBinding(ctx context.Context, c *ast.Compiler, store storage.Store) (*ast.With, error) {
	if len(c.GetRules(staticRef)) == 0 {
		return nil, nil
	}
	if err := checkStatic(c); err != nil {
		return nil, err
	}
	value, err := evalStatic(ctx, c, store)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", StaticDocument, err)
	}
	return &ast.With{Target: ast.NewTerm(staticRef), Value: value}, nil
}

// evalStatic evaluates StaticDocument without input. The value is kept as
// Rego made it (a set stays a set, which a JSON round trip would turn into
// an array).
func evalStatic(ctx context.Context, c *ast.Compiler, store storage.Store) (*ast.Term, error) {
	x := ast.VarTerm("x")
	body, err := c.QueryCompiler().Compile(ast.NewBody(ast.Equality.Expr(x, ast.NewTerm(staticRef))))
	if err != nil {
		return nil, err
	}
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Abort(ctx, txn)
	rs, err := topdown.NewQuery(body).WithCompiler(c).WithStore(store).WithTransaction(txn).Run(ctx)
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("%d values, want one", len(rs))
	}
	return rs[0][x.Value.(ast.Var)], nil
}

// checkStatic returns an error naming the rule when a rule of
// StaticDocument, or a rule or function it uses, reads input or calls a
// nondeterministic builtin (time.now_ns, rand.intn, http.send, ...): its
// value could then differ between decisions, and binding it once would
// change what the policy says. It is conservative: a reference to data
// that is only known at run time (data[x]) counts as using every rule.
func checkStatic(c *ast.Compiler) error {
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
	for _, r := range c.GetRules(staticRef) {
		if err := visit(r); err != nil {
			return err
		}
	}
	return nil
}

// checkStaticTerm checks one term of rule r (see checkStatic), visiting
// the rules a data reference names.
func checkStaticTerm(c *ast.Compiler, r *ast.Rule, t *ast.Term, visit func(*ast.Rule) error) error {
	refuse := func(what string) error {
		return fmt.Errorf("%s must read no input: the rule at %s, which it uses, %s", StaticDocument, r.Location, what)
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
