package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	defaultpolicy "github.com/skillsh/skillsh/rego"
)

// Query is the Rego query every policy answers: an object with "decision",
// "reasons" and optionally "profile".
const Query = "data.skillsh.main.decision"

// ExecutablesQuery is the optional query for the programs a jailed program
// may execute, evaluated once without input: a set or array of program
// names (resolved through the jail's PATH) or absolute paths. Undefined
// means the system program directories.
const ExecutablesQuery = "data.skillsh.main.executables"

// Engine decides policy inputs with a query prepared once. It is safe for
// concurrent use by multiple goroutines.
type Engine struct {
	query       rego.PreparedEvalQuery
	executables []string
	rules       map[string]string // rule code → "file:line"
	modules     map[string]*ast.Module
	revision    string
	grammars    map[grammarKey]*Grammar
	sessions    sessionCache
}

type engineOptions struct {
	paths     []string
	noDefault bool
}

// Option configures an Engine.
type Option func(*engineOptions)

// WithPolicy adds policies from paths: directories of .rego files and
// data.json / data.yaml files (placed in data by their directory, as OPA
// does), or OPA bundle files (.tar.gz). Files ending in _test.rego are
// never loaded as policy.
func WithPolicy(paths ...string) Option {
	return func(o *engineOptions) { o.paths = append(o.paths, paths...) }
}

// WithoutDefault leaves out the embedded default policy, so the policies
// given with WithPolicy are the whole policy. They must define
// data.skillsh.main.decision.
func WithoutDefault() Option {
	return func(o *engineOptions) { o.noDefault = true }
}

// NewEngine loads and compiles the policies and prepares the query. The
// default is the embedded policy of package rego, plus WithPolicy paths.
// An error means the policy cannot be used; nothing may run without one.
func NewEngine(ctx context.Context, opts ...Option) (*Engine, error) {
	var o engineOptions
	for _, opt := range opts {
		opt(&o)
	}
	set, err := loadPolicies(o)
	if err != nil {
		return nil, err
	}
	return set.prepare(ctx, Query)
}

// policySet is the loaded modules and data before compilation.
type policySet struct {
	modules  map[string]*ast.Module
	defaults map[string]bool // the names in modules of the default's
	data     map[string]any
}

func loadPolicies(o engineOptions) (*policySet, error) {
	set := &policySet{modules: map[string]*ast.Module{}, defaults: map[string]bool{}, data: map[string]any{}}
	if !o.noDefault {
		res, err := newLoader().WithFS(defaultpolicy.FS).Filtered([]string{"."}, skipNonPolicy)
		if err != nil {
			return nil, fmt.Errorf("load default policy: %w", err)
		}
		if err := set.add(res, "rego/"); err != nil {
			return nil, err
		}
		for name := range set.modules {
			set.defaults[name] = true
		}
	}
	defaults := set.packages()
	for _, p := range o.paths {
		if err := set.addPath(p); err != nil {
			return nil, err
		}
	}
	if err := set.checkLayerPackages(defaults); err != nil {
		return nil, err
	}
	if len(set.modules) == 0 {
		return nil, errors.New("load policy: no policy modules")
	}
	return set, nil
}

// packages returns the set of the packages of the set's modules.
func (s *policySet) packages() map[string]bool {
	out := make(map[string]bool, len(s.modules))
	for _, m := range s.modules {
		out[m.Package.Path.String()] = true
	}
	return out
}

// checkLayerPackages refuses a layer's rule in a package of the default
// policy (given by packages), or in a package under it, whatever package
// line its module has (package skillsh with a rule named plain.commands
// is in skillsh.plain): a layer could otherwise add to or change the
// default's rules, which would not even be evaluated for plain commands
// (rego/skillsh/plain.rego).
func (s *policySet) checkLayerPackages(defaults map[string]bool) error {
	var pkgs []ast.Ref
	for p := range defaults {
		pkgs = append(pkgs, ast.MustParseRef(p))
	}
	for _, name := range slices.Sorted(maps.Keys(s.modules)) {
		if s.defaults[name] {
			continue
		}
		m := s.modules[name]
		for _, r := range m.Rules {
			path := rulePath(m, r)
			for _, pkg := range pkgs {
				if path.HasPrefix(pkg) || pkg.HasPrefix(path) {
					return fmt.Errorf("load policy %s: the rule %s is in package %s, which belongs to the default policy; a layer's rules go in package skillsh.org or skillsh.project (or use --policy-only to replace the default)",
						name, strings.TrimPrefix(path.String(), "data."), strings.TrimPrefix(pkg.String(), "data."))
				}
			}
		}
	}
	return nil
}

// rulePath is the path of the document r defines: its package and the
// ground part of its name (data.skillsh.plain.commands for plain.commands
// in package skillsh).
func rulePath(m *ast.Module, r *ast.Rule) ast.Ref {
	ref := r.Head.Ref().GroundPrefix()
	path := append(m.Package.Path.Copy(), ast.StringTerm(string(ref[0].Value.(ast.Var))))
	return append(path, ref[1:]...)
}

func newLoader() loader.FileLoader {
	return loader.NewFileLoader().WithProcessAnnotation(true).WithRegoVersion(ast.RegoV1)
}

// skipNonPolicy leaves out Rego tests and every data file not named data.*,
// such as schemas and corpora kept beside the policies.
func skipNonPolicy(_ string, info fs.FileInfo, _ int) bool {
	name := info.Name()
	if info.IsDir() {
		return false
	}
	switch path.Ext(name) {
	case ".rego":
		return strings.HasSuffix(name, "_test.rego")
	case ".json", ".yaml", ".yml":
		return strings.TrimSuffix(name, path.Ext(name)) != "data"
	}
	return true
}

func (s *policySet) addPath(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("load policy: %w", err)
	}
	if !fi.IsDir() && (strings.HasSuffix(p, ".tar.gz") || strings.HasSuffix(p, ".tgz")) {
		return s.addBundle(p)
	}
	res, err := newLoader().Filtered([]string{p}, skipNonPolicy)
	if err != nil {
		return fmt.Errorf("load policy %s: %w", p, err)
	}
	if err := s.add(res, ""); err != nil {
		return fmt.Errorf("load policy %s: %w", p, err)
	}
	return nil
}

func (s *policySet) addBundle(p string) error {
	b, err := newLoader().AsBundle(p)
	if err != nil {
		return fmt.Errorf("load policy bundle %s: %w", p, err)
	}
	for _, m := range b.Modules {
		if strings.HasSuffix(m.Path, "_test.rego") {
			continue
		}
		if err := s.addModule(p+":"+m.Path, m.Parsed); err != nil {
			return err
		}
	}
	if err := mergeData(s.data, b.Data, ""); err != nil {
		return fmt.Errorf("load policy bundle %s: %w", p, err)
	}
	return nil
}

func (s *policySet) add(res *loader.Result, prefix string) error {
	for _, f := range res.Modules {
		if err := s.addModule(prefix+f.Name, f.Parsed); err != nil { // Name as given: the keys lose a leading "/"
			return err
		}
	}
	return mergeData(s.data, res.Documents, "")
}

// addModule adds m under name, which must be new: a layer's file must not
// replace another module, the default's (rego/skillsh/...) above all.
func (s *policySet) addModule(name string, m *ast.Module) error {
	if _, ok := s.modules[name]; ok {
		return fmt.Errorf("module %s is loaded twice", name)
	}
	s.modules[name] = m
	return nil
}

// mergeData merges src into dst; the same leaf defined twice is an error,
// so no layer silently replaces another's data.
func mergeData(dst, src map[string]any, at string) error {
	for k, v := range src {
		where := at + "." + k
		old, ok := dst[k]
		if !ok {
			dst[k] = v
			continue
		}
		om, ok1 := old.(map[string]any)
		nm, ok2 := v.(map[string]any)
		if !ok1 || !ok2 {
			return fmt.Errorf("data%s is already defined by the default policy or an earlier --policy; a layer adds data, it does not replace it", where)
		}
		if err := mergeData(om, nm, where); err != nil {
			return err
		}
	}
	return nil
}

// prepare compiles the set, with its static facts folded (foldStatic),
// and prepares query, which answers what Query answers.
func (s *policySet) prepare(ctx context.Context, query string) (*Engine, error) {
	store := inmem.NewFromObject(s.data)
	modules, err := foldStatic(ctx, s.modules, store)
	if err != nil {
		return nil, err
	}
	return s.prepareModules(ctx, query, modules, store)
}

// prepareModules compiles modules, which stand for the set's, and prepares
// query over them and store.
func (s *policySet) prepareModules(ctx context.Context, query string, modules map[string]*ast.Module, store storage.Store) (*Engine, error) {
	compiler := ast.NewCompiler()
	opts := []func(*rego.Rego){rego.Store(store), rego.Compiler(compiler)}
	compile := slices.Clone(opts)
	for _, name := range slices.Sorted(maps.Keys(modules)) {
		compile = append(compile, rego.ParsedModule(modules[name]))
	}
	// Compiling happens once, for the first query; the other reuses the
	// compiler.
	exes, err := executables(ctx, compile)
	if err != nil {
		return nil, err
	}
	pq, err := rego.New(append(opts, rego.Query(query))...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare %s: %w", query, err)
	}
	return &Engine{query: pq, executables: exes, rules: ruleLocations(s.modules), modules: s.modules,
		revision: revision(s), grammars: grammars(s.data)}, nil
}

// executables compiles the policy with opts and evaluates
// ExecutablesQuery once.
func executables(ctx context.Context, opts []func(*rego.Rego)) ([]string, error) {
	opts = append(slices.Clip(opts), rego.Query(ExecutablesQuery))
	rs, err := rego.New(opts...).Eval(ctx)
	var compileErrs ast.Errors
	if errors.As(err, &compileErrs) {
		return nil, fmt.Errorf("compile policy: %w", err)
	} else if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", ExecutablesQuery, err)
	}
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, nil
	}
	list, ok := rs[0].Expressions[0].Value.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a set or array of strings", ExecutablesQuery)
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: want a set or array of strings, found %v", ExecutablesQuery, v)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out, nil
}

// Executables returns what the policy says jailed programs may execute:
// program names and absolute paths, sorted; nil when the policy does not
// say.
func (e *Engine) Executables() []string { return slices.Clone(e.executables) }

// ruleLocations maps each rule's custom "code" annotation to the file and
// line of the rule. Files are named as loaded: the embedded default as
// rego/..., others by the path they were loaded from.
func ruleLocations(modules map[string]*ast.Module) map[string]string {
	list := make([]*ast.Module, 0, len(modules))
	names := map[string]string{} // file as parsed → name as loaded
	for name, m := range modules {
		list = append(list, m)
		if m.Package != nil && m.Package.Location != nil {
			names[m.Package.Location.File] = name
		}
	}
	rules := map[string]string{}
	set, _ := ast.BuildAnnotationSet(list)
	if set == nil {
		return rules
	}
	for _, ref := range set.Flatten() {
		code, _ := ref.Annotations.Custom["code"].(string)
		if code == "" || ref.Location == nil {
			continue
		}
		file := ref.Location.File
		if name, ok := names[file]; ok {
			file = name
		}
		rules[code] = fmt.Sprintf("%s:%d", file, ref.Location.Row)
	}
	return rules
}

// revision identifies the loaded policy: a hash of its modules and data.
func revision(s *policySet) string {
	var buf bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(s.modules)) {
		buf.WriteString(name)
		buf.WriteString(s.modules[name].String())
	}
	data, _ := json.Marshal(s.data)
	buf.Write(data)
	sum := sha256.Sum256(buf.Bytes())
	return fmt.Sprintf("%x", sum[:8])
}

// Revision identifies the loaded policy, for decision logs.
func (e *Engine) Revision() string { return e.revision }

// Rule returns the "file:line" of the rule with the given code, or "".
func (e *Engine) Rule(code string) string { return e.rules[code] }

// Codes returns the codes of every annotated rule, sorted.
func (e *Engine) Codes() []string { return slices.Sorted(maps.Keys(e.rules)) }

// Complete fills in the facts of in that depend on the policy: each
// command's Options, parsed with the grammar of its allowlist entry (see
// [Grammar]). Commands that already have Options keep them. Decide calls
// it; call it to see the input document as the policy sees it.
func (e *Engine) Complete(in *Input) {
	for i := range in.Commands {
		c := &in.Commands[i]
		if c.Options == nil {
			c.Options = e.grammars[grammarKey{c.Kind, c.Base}].Parse(c.Argv)
		}
	}
}

// grammars builds the option grammar of every program and builtin the
// policy's data names: data.skillsh.programs and data.skillsh.builtins,
// each entry replaced by the project layer's
// (data.skillsh.layers.project.programs, .builtins) when it has one.
func grammars(data map[string]any) map[grammarKey]*Grammar {
	out := map[grammarKey]*Grammar{}
	root, _ := data["skillsh"].(map[string]any)
	project, _ := lookup(root, "layers", "project").(map[string]any)
	for kind, key := range map[string]string{"external": "programs", "builtin": "builtins"} {
		for _, layer := range []map[string]any{root, project} {
			entries, _ := layer[key].(map[string]any)
			for name, spec := range entries {
				if m, ok := spec.(map[string]any); ok {
					out[grammarKey{kind, name}] = grammarOf(m)
				}
			}
		}
	}
	return out
}

// grammarKey names a grammar by command kind ("external", "builtin") and
// base name.
type grammarKey struct{ kind, base string }

// isPlainAllow reports whether v is {"decision": "allow", "reasons": []},
// the most common answer, which needs no decoding.
func isPlainAllow(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 2 || m["decision"] != string(Allow) {
		return false
	}
	reasons, ok := m["reasons"].([]any)
	return ok && len(reasons) == 0
}

// lookup follows keys through nested objects; nil when one is missing.
func lookup(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// Decide evaluates the policy for in, after completing it (see Complete:
// in is changed, so one Input must not be decided from two goroutines at
// once; the Engine itself may be). It fails closed: when the policy cannot
// be evaluated or answers something malformed, the decision is Deny with a
// "policy.error" reason, and the error says why.
func (e *Engine) Decide(ctx context.Context, in *Input) (Decision, error) {
	d, err := e.decide(ctx, in)
	if err != nil {
		return Decision{Verdict: Deny, Reasons: []Reason{{
			Code:    "policy.error",
			Verdict: Deny,
			Message: "the policy could not be evaluated, so nothing runs: " + err.Error(),
			Allowed: "nothing until the policy is fixed",
		}}}, err
	}
	return d, nil
}

func (e *Engine) decide(ctx context.Context, in *Input) (Decision, error) {
	e.Complete(in)
	value, err := inputValue(in, &e.sessions)
	if err != nil {
		return Decision{}, err
	}
	rs, err := e.query.Eval(ctx, rego.EvalParsedInput(value), rego.EvalMetrics(metrics.NoOp()))
	if err != nil {
		return Decision{}, fmt.Errorf("evaluate %s: %w", Query, err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return Decision{}, fmt.Errorf("%s is undefined", Query)
	}
	return e.decodeDecision(rs[0].Expressions[0].Value)
}

// decodeDecision checks the shape of the policy's answer and fills in the
// rule locations of its reasons.
func (e *Engine) decodeDecision(v any) (Decision, error) {
	if isPlainAllow(v) {
		return Decision{Verdict: Allow, Reasons: []Reason{}}, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return Decision{}, fmt.Errorf("decode decision: %w", err)
	}
	var d Decision
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&d); err != nil {
		return Decision{}, fmt.Errorf("decode decision: %w", err)
	}
	switch d.Verdict {
	case Allow, Ask, Deny:
	default:
		return Decision{}, fmt.Errorf("decode decision: unknown decision %q", d.Verdict)
	}
	for i := range d.Reasons {
		r := &d.Reasons[i]
		if r.Rule == "" {
			r.Rule = e.rules[r.Code]
		}
		if r.Verdict == Deny {
			d.Verdict = Deny // a denying reason is never outvoted
		}
	}
	if d.Verdict != Allow && len(d.Reasons) == 0 {
		d.Reasons = []Reason{{Code: "policy.no_reason", Verdict: d.Verdict,
			Message: "the policy refused without giving a reason"}}
	}
	if d.Reasons == nil {
		d.Reasons = []Reason{}
	}
	return d, nil
}
