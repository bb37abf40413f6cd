package policy

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
)

// This file builds the Rego value of an Input directly, field by field, in
// the shape encoding/json gives it (the same names, omitempty fields left
// out, nil slices as null). Going through JSON cost more than the rest of a
// typical decision; TestInputValueMatchesJSON keeps the two shapes equal.

// inputValue is in as a Rego value. The values of in's roots and session
// are taken from cache when it holds them (cache may be nil).
func inputValue(in *Input, cache *sessionCache) (ast.Value, error) {
	obj := ast.NewObjectWithCapacity(8)
	put(obj, "version", ast.InternedTerm(in.Version))
	put(obj, "phase", ast.StringTerm(string(in.Phase)))
	put(obj, "command", ast.StringTerm(in.Command))
	put(obj, "cwd", ast.StringTerm(in.Cwd))
	roots, session, err := cache.terms(in.Roots, in.Session)
	if err != nil {
		return nil, err
	}
	put(obj, "roots", roots)
	put(obj, "session", session)
	put(obj, "commands", listTerm(in.Commands, commandTerm))
	put(obj, "features", featuresTerm(in.Features))
	return obj, nil
}

// sessionCache keeps the Rego values of the last roots and session it
// made: they are the same for every command of a shell session, and the
// skills catalog is a good part of an input. It is safe for concurrent
// use; the zero value is ready, and a nil cache makes the values anew.
type sessionCache struct{ last atomic.Pointer[sessionTerms] }

type sessionTerms struct {
	roots   Roots
	session Session
	terms   [2]*ast.Term
}

// terms returns the values of roots and s.
func (c *sessionCache) terms(roots Roots, s Session) (*ast.Term, *ast.Term, error) {
	if c != nil {
		if last := c.last.Load(); last != nil && sameRoots(last.roots, roots) && sameSession(last.session, s) {
			return last.terms[0], last.terms[1], nil
		}
	}
	session, err := sessionTerm(s)
	if err != nil {
		return nil, nil, err
	}
	t := &sessionTerms{roots: cloneRoots(roots), session: cloneSession(s), terms: [2]*ast.Term{rootsTerm(roots), session}}
	if c != nil && len(s.Env) == 0 { // env's values are not compared
		c.last.Store(t)
	}
	return t.terms[0], t.terms[1], nil
}

// sameStrings is slices.Equal that also tells nil from empty, as
// encoding/json does (null, []).
func sameStrings(a, b []string) bool { return (a == nil) == (b == nil) && slices.Equal(a, b) }

func sameRoots(a, b Roots) bool { return a.Workspace == b.Workspace && sameStrings(a.Skills, b.Skills) }

func sameSession(a, b Session) bool {
	return a.Home == b.Home && len(a.Env) == 0 && len(b.Env) == 0 && sameStrings(a.Protections, b.Protections) &&
		(a.Skills == nil) == (b.Skills == nil) && slices.EqualFunc(a.Skills, b.Skills, func(x, y SkillFact) bool {
		return x.Name == y.Name && x.Dir == y.Dir && x.Location == y.Location && sameStrings(x.AllowedTools, y.AllowedTools)
	})
}

func cloneRoots(r Roots) Roots {
	r.Skills = slices.Clone(r.Skills)
	return r
}

func cloneSession(s Session) Session {
	s.Protections = slices.Clone(s.Protections)
	s.Skills = slices.Clone(s.Skills)
	for i := range s.Skills {
		s.Skills[i].AllowedTools = slices.Clone(s.Skills[i].AllowedTools)
	}
	return s
}

func put(obj ast.Object, key string, value *ast.Term) {
	k, ok := keyTerms[key]
	if !ok {
		k = ast.StringTerm(key)
	}
	obj.Insert(k, value)
}

// keyTerms holds one term per field name of the input, made once: a key
// term per field and object was a third of the allocations of inputValue.
// It is only read after init, so it is safe for concurrent use.
var keyTerms = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
	for _, k := range strings.Fields(`access allowed_tools arg args argv arithmetic array
		assignments assigns attached background base cmdsubst col command commands context
		coproc cwd dir dynamic end env eval exists expansions fd features functions glob
		heredoc home index kind line location name names op opaque operands options parent
		path paths phase pipeline procsubst program protections redirects resolved root
		root_dir roots session skills span start subshell value version workspace wrapper`) {
		m[k] = ast.StringTerm(k)
	}
	return m
}()

// listTerm is an array of the elements' terms; null for a nil slice, as
// encoding/json writes it.
func listTerm[T any](list []T, term func(T) *ast.Term) *ast.Term {
	if list == nil {
		return ast.NullTerm()
	}
	terms := make([]*ast.Term, len(list))
	for i, x := range list {
		terms[i] = term(x)
	}
	return ast.ArrayTerm(terms...)
}

func stringTerm(s string) *ast.Term { return ast.StringTerm(s) }

func boolTerm(b bool) *ast.Term { return ast.InternedTerm(b) }

func intTerm(n int) *ast.Term { return ast.InternedTerm(n) }

func rootsTerm(r Roots) *ast.Term {
	obj := ast.NewObjectWithCapacity(2)
	put(obj, "skills", listTerm(r.Skills, stringTerm))
	put(obj, "workspace", ast.StringTerm(r.Workspace))
	return ast.NewTerm(obj)
}

func sessionTerm(s Session) (*ast.Term, error) {
	obj := ast.NewObjectWithCapacity(4)
	put(obj, "home", ast.StringTerm(s.Home))
	put(obj, "skills", listTerm(s.Skills, skillTerm))
	put(obj, "protections", listTerm(s.Protections, stringTerm))
	if len(s.Env) > 0 {
		env, err := ast.InterfaceToValue(s.Env)
		if err != nil {
			return nil, err
		}
		put(obj, "env", ast.NewTerm(env))
	}
	return ast.NewTerm(obj), nil
}

func skillTerm(s SkillFact) *ast.Term {
	obj := ast.NewObjectWithCapacity(4)
	put(obj, "name", ast.StringTerm(s.Name))
	put(obj, "dir", ast.StringTerm(s.Dir))
	put(obj, "location", ast.StringTerm(s.Location))
	put(obj, "allowed_tools", listTerm(s.AllowedTools, stringTerm))
	return ast.NewTerm(obj)
}

func commandTerm(c Command) *ast.Term {
	obj := ast.NewObjectWithCapacity(14)
	put(obj, "index", intTerm(c.Index))
	put(obj, "name", ast.StringTerm(c.Name))
	put(obj, "base", ast.StringTerm(c.Base))
	put(obj, "kind", ast.StringTerm(c.Kind))
	put(obj, "program", ast.StringTerm(c.Program))
	put(obj, "argv", listTerm(c.Argv, wordTerm))
	put(obj, "assigns", listTerm(c.Assigns, assignTerm))
	put(obj, "redirects", listTerm(c.Redirects, redirectTerm))
	put(obj, "paths", listTerm(c.Paths, pathTerm))
	if c.Options != nil {
		put(obj, "options", optionsTerm(c.Options))
	}
	if c.Wrapper != nil {
		w := ast.NewObjectWithCapacity(2)
		put(w, "name", ast.StringTerm(c.Wrapper.Name))
		put(w, "parent", intTerm(c.Wrapper.Parent))
		put(obj, "wrapper", ast.NewTerm(w))
	}
	put(obj, "context", listTerm(c.Context, stringTerm))
	if c.Opaque != "" {
		put(obj, "opaque", ast.StringTerm(c.Opaque))
	}
	put(obj, "span", spanTerm(c.Span))
	return ast.NewTerm(obj)
}

func wordTerm(w Word) *ast.Term {
	obj := ast.NewObjectWithCapacity(5)
	put(obj, "value", ast.StringTerm(w.Value))
	put(obj, "dynamic", boolTerm(w.Dynamic))
	if len(w.Expansions) > 0 {
		put(obj, "expansions", listTerm(w.Expansions, stringTerm))
	}
	if w.Glob {
		put(obj, "glob", boolTerm(true))
	}
	put(obj, "span", spanTerm(w.Span))
	return ast.NewTerm(obj)
}

func assignTerm(a Assign) *ast.Term {
	obj := ast.NewObjectWithCapacity(5)
	put(obj, "name", ast.StringTerm(a.Name))
	put(obj, "value", ast.StringTerm(a.Value))
	put(obj, "dynamic", boolTerm(a.Dynamic))
	if a.Array {
		put(obj, "array", boolTerm(true))
	}
	put(obj, "span", spanTerm(a.Span))
	return ast.NewTerm(obj)
}

func redirectTerm(r Redirect) *ast.Term {
	obj := ast.NewObjectWithCapacity(5)
	put(obj, "op", ast.StringTerm(r.Op))
	put(obj, "fd", intTerm(r.Fd))
	put(obj, "access", ast.StringTerm(r.Access))
	if r.Path != nil {
		put(obj, "path", pathTerm(*r.Path))
	}
	put(obj, "span", spanTerm(r.Span))
	return ast.NewTerm(obj)
}

func pathTerm(p Path) *ast.Term {
	obj := ast.NewObjectWithCapacity(8)
	put(obj, "arg", intTerm(p.Arg))
	put(obj, "value", ast.StringTerm(p.Value))
	put(obj, "resolved", ast.StringTerm(p.Resolved))
	put(obj, "root", ast.StringTerm(p.Root))
	if p.RootDir != "" {
		put(obj, "root_dir", ast.StringTerm(p.RootDir))
	}
	put(obj, "exists", boolTerm(p.Exists))
	if p.Dir {
		put(obj, "dir", boolTerm(true))
	}
	if p.Dynamic {
		put(obj, "dynamic", boolTerm(true))
	}
	return ast.NewTerm(obj)
}

func optionsTerm(o *Options) *ast.Term {
	obj := ast.NewObjectWithCapacity(3)
	put(obj, "names", listTerm(o.Names, stringTerm))
	put(obj, "operands", listTerm(o.Operands, intTerm))
	put(obj, "args", listTerm(o.Args, optionArgTerm))
	return ast.NewTerm(obj)
}

func optionArgTerm(a OptionArg) *ast.Term {
	obj := ast.NewObjectWithCapacity(4)
	put(obj, "arg", intTerm(a.Arg))
	put(obj, "options", listTerm(a.Options, stringTerm))
	put(obj, "value", ast.StringTerm(a.Value))
	put(obj, "attached", boolTerm(a.Attached))
	return ast.NewTerm(obj)
}

func spanTerm(s Span) *ast.Term {
	obj := ast.NewObjectWithCapacity(4)
	put(obj, "start", intTerm(s.Start))
	put(obj, "end", intTerm(s.End))
	put(obj, "line", intTerm(s.Line))
	put(obj, "col", intTerm(s.Col))
	return ast.NewTerm(obj)
}

// featuresTerm is f as a Rego value. The values of features without
// function names or assignments, most inputs', are made once and kept in
// commonFeatures.
func featuresTerm(f Features) *ast.Term {
	if len(f.Functions) > 0 || len(f.Assignments) > 0 {
		return newFeaturesTerm(f)
	}
	slot := &commonFeatures[featuresKey(f)]
	if t := slot.Load(); t != nil {
		return t
	}
	t := newFeaturesTerm(f)
	slot.Store(t)
	return t
}

// featuresKey numbers the features that featuresTerm takes from
// commonFeatures: a bit per switch, and whether each list is nil or empty.
func featuresKey(f Features) int {
	key := 0
	for i, b := range []bool{f.Background, f.CmdSubst, f.ProcSubst, f.Heredoc, f.Eval, f.Coproc, f.Opaque, f.Pipeline, f.Subshell, f.Arithmetic,
		f.Functions == nil, f.Assignments == nil} {
		if b {
			key |= 1 << i
		}
	}
	return key
}

// commonFeatures holds the values featuresTerm made of features without
// function names or assignments, by featuresKey. Rego values are not
// changed by evaluation, so one value serves concurrent decisions.
var commonFeatures [1 << 12]atomic.Pointer[ast.Term]

func newFeaturesTerm(f Features) *ast.Term {
	obj := ast.NewObjectWithCapacity(12)
	put(obj, "background", boolTerm(f.Background))
	put(obj, "cmdsubst", boolTerm(f.CmdSubst))
	put(obj, "procsubst", boolTerm(f.ProcSubst))
	put(obj, "heredoc", boolTerm(f.Heredoc))
	put(obj, "eval", boolTerm(f.Eval))
	put(obj, "coproc", boolTerm(f.Coproc))
	put(obj, "functions", listTerm(f.Functions, stringTerm))
	put(obj, "opaque", boolTerm(f.Opaque))
	put(obj, "pipeline", boolTerm(f.Pipeline))
	put(obj, "subshell", boolTerm(f.Subshell))
	put(obj, "arithmetic", boolTerm(f.Arithmetic))
	put(obj, "assignments", listTerm(f.Assignments, stringTerm))
	return ast.NewTerm(obj)
}
