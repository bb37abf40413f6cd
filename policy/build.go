package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// DefaultPath is the search path programs are resolved through when Facts
// gives none; it is the PATH the jail gives every program.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// maxNesting bounds how deep nested scripts (bash -c, eval, source) are
// parsed; deeper ones are marked opaque.
const maxNesting = 8

// Facts is what the builder needs to know about the session. It is read,
// never modified.
type Facts struct {
	Cwd     string  // absolute working directory
	Roots   Roots   // absolute, symlink-resolved roots
	Session Session // copied into the input as is
	// Path is the search path for programs; empty means DefaultPath.
	Path string
	// Pipes is the directory of the interpreter's named pipes, if any:
	// its PipePrefix files are harmless devices to the policy.
	Pipes string
	// Functions reports whether a shell function of that name exists at
	// run time (the exec phase); nil means none do.
	Functions func(name string) bool
}

// Build turns a parsed command into the static-phase policy input. src is
// the command string file was parsed from; spans are byte offsets into it.
// Build never fails: what it cannot see into is recorded as a fact (an
// opaque command, a dynamic word) for the policy to judge. It is safe for
// concurrent use as long as facts is not modified.
func Build(src string, file *syntax.File, facts *Facts) *Input {
	b := newBuilder(src, facts, PhaseStatic)
	b.collectFunctions(file)
	b.stmts(file.Stmts)
	return b.finish()
}

// BuildExec turns one command, after expansion, into the exec-phase policy
// input: every word is literal. pos is where the command stands in src,
// when known.
func BuildExec(src string, args []string, pos syntax.Pos, facts *Facts) *Input {
	b := newBuilder(src, facts, PhaseExec)
	span := b.spanOf(pos, pos)
	words := make([]Word, len(args))
	for i, a := range args {
		words[i] = Word{Value: a, Span: span}
	}
	b.addCommand(words, nil, nil, span, nil)
	return b.finish()
}

type builder struct {
	src       string
	facts     *Facts
	in        *Input
	funcs     map[string]bool
	context   []string
	inherit   []Redirect // redirections of enclosing compound commands
	nesting   int
	override  *Span  // span of the word holding a nested script
	nestedSrc string // the nested script positions refer to
	// cwd is the working directory the commands being walked run in:
	// Facts.Cwd, moved by each literal cd the way the shell would.
	cwd string
}

func newBuilder(src string, facts *Facts, phase Phase) *builder {
	return &builder{
		src:   src,
		facts: facts,
		cwd:   facts.Cwd,
		funcs: map[string]bool{},
		in: &Input{
			Version:  InputVersion,
			Phase:    phase,
			Command:  src,
			Cwd:      facts.Cwd,
			Roots:    facts.Roots.normal(),
			Session:  facts.Session,
			Commands: []Command{},
			Features: Features{Functions: []string{}, Assignments: []string{}},
		},
	}
}

// normal returns r with an empty list, not null, when there are no skills
// roots, as the input schema says.
func (r Roots) normal() Roots {
	if r.Skills == nil {
		r.Skills = []string{}
	}
	return r
}

func (b *builder) finish() *Input {
	f := &b.in.Features
	slices.Sort(f.Assignments)
	f.Assignments = slices.Compact(f.Assignments)
	slices.Sort(f.Functions)
	f.Functions = slices.Compact(f.Functions)
	return b.in
}

// collectFunctions records every function declared anywhere, so calls to
// them are known as functions wherever they stand.
func (b *builder) collectFunctions(node syntax.Node) {
	syntax.Walk(node, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			b.funcs[fd.Name.Value] = true
			b.in.Features.Functions = append(b.in.Features.Functions, fd.Name.Value)
		}
		return true
	})
}

// within runs fn with ctx pushed on the context stack. In a context that
// runs in a process or at a time of its own (a subshell, a pipeline side,
// a substitution, a function body, a background job), a cd leaves the
// following commands' working directory as it was.
func (b *builder) within(ctx string, fn func()) {
	b.context = append(b.context, ctx)
	if ownDirectory[ctx] {
		defer func(cwd string) { b.cwd = cwd }(b.cwd)
	}
	fn()
	b.context = b.context[:len(b.context)-1]
}

// ownDirectory are the contexts whose cd does not outlive them.
var ownDirectory = map[string]bool{
	"subshell": true, "pipeline": true, "cmdsubst": true, "procsubst": true,
	"function": true, "background": true, "coproc": true,
}

// followCd moves the working directory for the commands after a literal
// cd. A cd the builder cannot follow (cd -, a dynamic directory) leaves it;
// the exec phase judges each command in the real directory anyway.
func (b *builder) followCd(cmd *Command) {
	if cmd.Kind != "builtin" || cmd.Name != "cd" {
		return
	}
	args := cmd.Argv[1:]
	for len(args) > 0 && !args[0].Dynamic && strings.HasPrefix(args[0].Value, "-") && args[0].Value != "-" {
		args = args[1:] // -L, -P, -e, --
	}
	switch {
	case len(args) == 0:
		b.cwd = b.facts.Session.Home
	case args[0].Dynamic || args[0].Value == "-" || args[0].Value == "":
	default:
		b.cwd = b.resolve(args[0].Value).Resolved
	}
}

func (b *builder) stmts(stmts []*syntax.Stmt) {
	for _, s := range stmts {
		b.stmt(s)
	}
}

func (b *builder) stmt(s *syntax.Stmt) {
	var wrap []string
	if s.Background {
		b.in.Features.Background = true
		wrap = append(wrap, "background")
		defer func(cwd string) { b.cwd = cwd }(b.cwd)
	}
	if s.Negated {
		wrap = append(wrap, "negated")
	}
	if s.Coprocess {
		b.in.Features.Coproc = true
		wrap = append(wrap, "coproc")
	}
	saved := len(b.context)
	b.context = append(b.context, wrap...)
	defer func() { b.context = b.context[:saved] }()

	redirs := b.redirects(s.Redirs)
	if call, ok := s.Cmd.(*syntax.CallExpr); ok || s.Cmd == nil {
		b.call(call, redirs, s)
		return
	}
	savedInherit := b.inherit
	b.inherit = append(slices.Clip(b.inherit), redirs...)
	defer func() { b.inherit = savedInherit }()
	b.compound(s.Cmd)
}

// compound walks a command that is not a simple command.
func (b *builder) compound(cmd syntax.Command) {
	switch c := cmd.(type) {
	case *syntax.Block:
		b.stmts(c.Stmts)
	case *syntax.Subshell:
		b.in.Features.Subshell = true
		b.within("subshell", func() { b.stmts(c.Stmts) })
	case *syntax.BinaryCmd:
		b.binary(c)
	case *syntax.IfClause:
		b.ifClause(c)
	case *syntax.WhileClause:
		b.within("condition", func() { b.stmts(c.Cond) })
		b.within("loop", func() { b.stmts(c.Do) })
	case *syntax.ForClause:
		b.forClause(c)
	case *syntax.CaseClause:
		b.caseClause(c)
	case *syntax.FuncDecl:
		b.within("function", func() { b.stmt(c.Body) })
	case *syntax.TimeClause:
		if c.Stmt != nil {
			b.within("time", func() { b.stmt(c.Stmt) })
		}
	case *syntax.CoprocClause:
		b.in.Features.Coproc = true
		b.within("coproc", func() { b.stmt(c.Stmt) })
	case *syntax.DeclClause:
		b.declClause(c)
	case *syntax.LetClause:
		b.letClause(c)
	case *syntax.ArithmCmd:
		b.in.Features.Arithmetic = true
		b.substitutions(c.X)
	case *syntax.TestClause:
		b.testClause(c)
	case *syntax.TestDecl:
		b.within("function", func() { b.stmt(c.Body) })
	}
}

func (b *builder) binary(c *syntax.BinaryCmd) {
	if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
		b.in.Features.Pipeline = true
		b.within("pipeline", func() { b.stmt(c.X); b.stmt(c.Y) })
		return
	}
	b.stmt(c.X)
	b.stmt(c.Y)
}

func (b *builder) ifClause(c *syntax.IfClause) {
	for ; c != nil; c = c.Else {
		b.within("condition", func() { b.stmts(c.Cond) })
		b.stmts(c.Then)
	}
}

func (b *builder) forClause(c *syntax.ForClause) {
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		if l.Name != nil { // for NAME in ...: an assignment on every turn
			b.in.Features.Assignments = append(b.in.Features.Assignments, l.Name.Value)
		}
		for _, w := range l.Items {
			b.substitutions(w)
		}
	case *syntax.CStyleLoop:
		b.in.Features.Arithmetic = true
		b.substitutions(l)
	}
	b.within("loop", func() { b.stmts(c.Do) })
}

func (b *builder) caseClause(c *syntax.CaseClause) {
	b.substitutions(c.Word)
	for _, item := range c.Items {
		for _, p := range item.Patterns {
			b.substitutions(p)
		}
		b.within("condition", func() { b.stmts(item.Stmts) })
	}
}

// call records a simple command, or the assignments of a command without
// arguments.
func (b *builder) call(c *syntax.CallExpr, redirs []Redirect, s *syntax.Stmt) {
	var assigns []Assign
	var args []Word
	span := b.spanOf(s.Pos(), s.End())
	if c != nil {
		assigns = b.assigns(c.Assigns)
		args = b.words(c.Args)
		span = b.spanOf(c.Pos(), c.End())
	}
	b.addCommand(args, assigns, redirs, span, nil)
}

// declClause records declare, export, local, readonly, typeset and nameref
// as builtin commands with their assignments.
func (b *builder) declClause(c *syntax.DeclClause) {
	args := []Word{{Value: c.Variant.Value, Span: b.spanOf(c.Variant.Pos(), c.Variant.End())}}
	var assigns []Assign
	for _, a := range c.Args {
		if a.Naked && a.Name == nil {
			args = append(args, b.words([]*syntax.Word{a.Value})...)
			continue
		}
		assigns = append(assigns, b.assigns([]*syntax.Assign{a})...)
		args = append(args, Word{Value: b.source(a.Pos(), a.End()), Span: b.spanOf(a.Pos(), a.End())})
	}
	b.addCommand(args, assigns, nil, b.spanOf(c.Pos(), c.End()), nil)
}

func (b *builder) letClause(c *syntax.LetClause) {
	b.in.Features.Arithmetic = true
	args := []Word{{Value: "let", Span: b.spanOf(c.Let, c.Let)}}
	for _, x := range c.Exprs {
		b.substitutions(x)
		args = append(args, Word{Value: b.source(x.Pos(), x.End()), Span: b.spanOf(x.Pos(), x.End())})
	}
	b.addCommand(args, nil, nil, b.spanOf(c.Pos(), c.End()), nil)
}

// testClause records [[ ... ]] as a builtin command whose operands are its
// words, so paths it tests are judged like any other argument.
func (b *builder) testClause(c *syntax.TestClause) {
	args := []Word{{Value: "[[", Span: b.spanOf(c.Left, c.Left)}}
	syntax.Walk(c.X, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			args = append(args, b.words([]*syntax.Word{w})...)
			return false
		}
		return true
	})
	b.addCommand(args, nil, nil, b.spanOf(c.Pos(), c.End()), nil)
}

// addCommand appends a command, classifies it and unwraps the commands it
// runs. It returns the new command's index.
func (b *builder) addCommand(argv []Word, assigns []Assign, redirs []Redirect, span Span, wrapper *Wrapper) int {
	if argv == nil {
		argv = []Word{}
	}
	cmd := Command{
		Index:     len(b.in.Commands),
		Argv:      argv,
		Assigns:   nonNil(assigns),
		Redirects: append(nonNil(redirs), b.inherit...),
		Wrapper:   wrapper,
		Context:   append([]string{}, b.context...),
		Span:      span,
	}
	for _, a := range assigns {
		b.in.Features.Assignments = append(b.in.Features.Assignments, a.Name)
	}
	b.classify(&cmd)
	cmd.Paths = b.argPaths(&cmd)
	b.in.Commands = append(b.in.Commands, cmd)
	b.unwrap(cmd.Index)
	if wrapper == nil {
		b.followCd(&cmd)
	}
	return cmd.Index
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// classify fills in Name, Base, Kind and Program.
func (b *builder) classify(cmd *Command) {
	switch {
	case len(cmd.Argv) == 0:
		cmd.Kind = "assignment"
		return
	case cmd.Argv[0].Dynamic:
		cmd.Kind = "dynamic"
		return
	}
	cmd.Name = cmd.Argv[0].Value
	cmd.Base = cmd.Name
	if i := strings.LastIndexByte(cmd.Name, '/'); i >= 0 {
		cmd.Base = cmd.Name[i+1:]
	}
	switch {
	case b.isFunction(cmd.Name):
		cmd.Kind = "function"
	case isBuiltin(cmd.Name):
		cmd.Kind = "builtin"
	default:
		cmd.Kind = "external"
		cmd.Program = b.lookPath(cmd.Name)
	}
}

func (b *builder) isFunction(name string) bool {
	if b.in.Phase == PhaseExec {
		return b.facts.Functions != nil && b.facts.Functions(name)
	}
	return b.funcs[name]
}

// isBuiltin reports the interpreter's builtins, plus "[[", which the parser
// gives its own node.
func isBuiltin(name string) bool {
	return name == "[[" || interp.IsBuiltin(name)
}

// spanOf converts a parser position range into a span of the command
// string. Inside a nested script the span is that of the enclosing word.
func (b *builder) spanOf(from, to syntax.Pos) Span {
	if b.override != nil {
		return *b.override
	}
	if !from.IsValid() {
		return Span{}
	}
	s := Span{Start: int(from.Offset()), End: int(from.Offset()), Line: int(from.Line()), Col: int(from.Col())}
	if to.IsValid() && int(to.Offset()) > s.Start {
		s.End = int(to.Offset())
	}
	return s
}

// source returns the text between two positions of the current script.
func (b *builder) source(from, to syntax.Pos) string {
	src := b.src
	if b.nesting > 0 {
		src = b.nestedSrc
	}
	start, end := int(from.Offset()), int(to.Offset())
	if start < 0 || end > len(src) || start > end {
		return ""
	}
	return src[start:end]
}
