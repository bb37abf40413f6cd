package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxGlobFields bounds how many fields one pattern may expand to in the
// static phase; past it the pattern is kept as written.
const maxGlobFields = 1000

// words expands the words of a command that need no run-time state: quote
// removal, ~, braces, and globs whose fixed prefix lies inside a root.
// Dynamic words stay one Word each, marked dynamic. Substitutions inside
// any word are walked for the commands they run.
func (b *builder) words(ws []*syntax.Word) []Word {
	var out []Word
	for _, w := range ws {
		out = append(out, b.word(w)...)
	}
	return out
}

func (b *builder) word(w *syntax.Word) []Word {
	span := b.spanOf(w.Pos(), w.End())
	if exps := b.substitutions(w); len(exps) > 0 {
		return []Word{{Dynamic: true, Expansions: exps, Span: span}}
	}
	fields, glob := b.literalFields(w)
	out := make([]Word, len(fields))
	for i, f := range fields {
		out[i] = Word{Value: f, Glob: glob, Span: span}
	}
	return out
}

// literalFields expands a word without run-time state. A word that expands
// to no field (an empty brace expansion) yields none.
func (b *builder) literalFields(w *syntax.Word) ([]string, bool) {
	glob := hasGlob(w)
	cfg := &expand.Config{Env: b.env(), NullGlob: false}
	if glob && b.globInsideRoots(w) {
		cfg.ReadDir2 = b.readDir
	}
	fields, err := expand.Fields(cfg, w)
	if err != nil || len(fields) > maxGlobFields {
		lit, _ := expand.Literal(&expand.Config{Env: b.env()}, w)
		return []string{lit}, glob
	}
	return fields, glob
}

func (b *builder) env() expand.Environ {
	return expand.ListEnviron("HOME=" + b.facts.Session.Home)
}

// readDir lists a directory for glob expansion, only when it resolves
// inside the skills tree or the workspace: a pattern such as
// */../../../root/* must not list, as root, what lies outside them. A
// directory outside them lists as empty; the expander also reads the
// literal directories on the way to a pattern, to see that they exist,
// which reveals nothing the resolved paths do not.
func (b *builder) readDir(dir string) ([]os.DirEntry, error) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(b.cwd, dir)
	}
	if p := b.resolve(dir); p.Root != "skills" && p.Root != "workspace" {
		fi, err := os.Stat(dir)
		if err == nil && !fi.IsDir() {
			err = syscall.ENOTDIR
		}
		return nil, err
	}
	return os.ReadDir(dir)
}

// hasGlob reports whether an unquoted part of w holds a pattern character.
func hasGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") {
				return true
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}

// globInsideRoots reports whether the directory part before the first
// pattern character lies inside a root, so that expanding it reveals
// nothing outside them.
func (b *builder) globInsideRoots(w *syntax.Word) bool {
	lit, err := expand.Literal(&expand.Config{Env: b.env()}, w)
	if err != nil {
		return false
	}
	prefix := lit[:strings.IndexAny(lit+"*", "*?[")]
	dir := filepath.Dir(prefix + "x")
	p := b.resolve(dir)
	return p.Root == "skills" || p.Root == "workspace"
}

// substitutions walks a node for command and process substitutions,
// records the commands inside them, and returns what expansions the node
// holds, sorted; none means the node is literal.
func (b *builder) substitutions(node syntax.Node) []string {
	if node == nil {
		return nil
	}
	var exps []string
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			b.in.Features.CmdSubst = true
			exps = append(exps, "cmdsubst")
			b.within("cmdsubst", func() { b.stmts(n.Stmts) })
			return false
		case *syntax.ProcSubst:
			b.in.Features.ProcSubst = true
			exps = append(exps, "procsubst")
			b.within("procsubst", func() { b.stmts(n.Stmts) })
			return false
		case *syntax.ArithmExp:
			b.in.Features.Arithmetic = true
			exps = append(exps, "arith")
		case *syntax.ParamExp:
			exps = append(exps, paramExpansions(n)...)
		}
		return true
	})
	slices.Sort(exps)
	return slices.Compact(exps)
}

func paramExpansions(pe *syntax.ParamExp) []string {
	exps := []string{"param"}
	if pe.Excl {
		exps = append(exps, "indirect")
	}
	if pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps && pe.Exp.Word != nil &&
		strings.ContainsAny(pe.Exp.Word.Lit(), "PE") {
		exps = append(exps, "prompt")
	}
	return exps
}

// assigns records assignments with their literal values.
func (b *builder) assigns(as []*syntax.Assign) []Assign {
	var out []Assign
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		out = append(out, b.assign(a))
	}
	return out
}

func (b *builder) assign(a *syntax.Assign) Assign {
	as := Assign{Name: a.Name.Value, Span: b.spanOf(a.Pos(), a.End())}
	if a.Index != nil && len(b.substitutions(a.Index)) > 0 {
		as.Dynamic = true
	}
	if a.Array != nil {
		as.Array = true
		if len(b.substitutions(a.Array)) > 0 {
			as.Dynamic = true
		}
		return as
	}
	if a.Value == nil {
		return as
	}
	if len(b.substitutions(a.Value)) > 0 {
		as.Dynamic = true
		return as
	}
	as.Value, _ = expand.Literal(&expand.Config{Env: b.env()}, a.Value)
	return as
}

// redirects records redirections with their resolved targets.
func (b *builder) redirects(rs []*syntax.Redirect) []Redirect {
	var out []Redirect
	for _, r := range rs {
		out = append(out, b.redirect(r))
	}
	return out
}

func (b *builder) redirect(r *syntax.Redirect) Redirect {
	rd := Redirect{Op: r.Op.String(), Fd: defaultFd(r.Op), Span: b.spanOf(r.Pos(), r.End())}
	if r.N != nil {
		if n, err := strconv.Atoi(r.N.Value); err == nil {
			rd.Fd = n
		}
	}
	if r.Hdoc != nil {
		b.in.Features.Heredoc = true
		b.substitutions(r.Hdoc)
	}
	rd.Access = redirAccess(r.Op)
	if rd.Access == "here" {
		b.substitutions(r.Word)
		return rd
	}
	words := b.word(r.Word)
	target := words[0]
	if rd.Access == "dup" {
		if target.Dynamic || isFdWord(target.Value) {
			return rd
		}
		rd.Access = "write" // >&file writes both streams to file
	}
	p := b.pathOf(target)
	p.Arg = -1
	rd.Path = &p
	return rd
}

func isFdWord(s string) bool {
	if s == "-" {
		return true
	}
	_, err := strconv.Atoi(strings.TrimSuffix(s, "-"))
	return err == nil
}

func defaultFd(op syntax.RedirOperator) int {
	switch op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return 0
	}
	return 1
}

func redirAccess(op syntax.RedirOperator) string {
	switch op {
	case syntax.RdrIn:
		return "read"
	case syntax.RdrInOut:
		return "readwrite"
	case syntax.DplIn, syntax.DplOut:
		return "dup"
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return "here"
	}
	return "write"
}
