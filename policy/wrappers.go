package policy

import (
	"os"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxSourceSize bounds the size of a sourced file the builder parses.
const maxSourceSize = 1 << 20

// unwrapped is what a wrapper runs.
type unwrapped struct {
	cmds    [][]Word // the commands it runs, if any
	assigns []Assign // env's NAME=value words, for the first command
	script  *Word    // a literal script it runs (bash -c, eval, flock -c)
	file    *Path    // a file it sources
	opaque  string   // why what it runs cannot be seen into
}

// wrapperFunc takes a wrapper's arguments (argv[1:]) and finds what it runs.
type wrapperFunc func(args []Word) unwrapped

// wrappers are the programs and builtins that run other commands.
var wrappers map[string]wrapperFunc

func init() {
	wrappers = map[string]wrapperFunc{
		"env":     unwrapEnv,
		"command": unwrapCommand,
		"builtin": afterOptions(optionSyntax{}),
		"exec":    afterOptions(optionSyntax{short: "a"}),
		"nice":    afterOptions(optionSyntax{short: "n", long: []string{"adjustment"}}),
		"nohup":   afterOptions(optionSyntax{}),
		"setsid":  afterOptions(optionSyntax{}),
		"stdbuf":  afterOptions(optionSyntax{short: "ioe", long: []string{"input", "output", "error"}}),
		"time":    afterOptions(optionSyntax{short: "fo", long: []string{"format", "output"}}),
		"timeout": unwrapTimeout,
		"sudo": afterOptions(optionSyntax{short: "ugChpDrtTU", long: []string{"user", "group", "close-from",
			"host", "prompt", "chdir", "role", "type", "command-timeout", "other-user"}}),
		"doas":   afterOptions(optionSyntax{short: "uC"}),
		"flock":  unwrapFlock,
		"xargs":  unwrapXargs,
		"find":   unwrapFind,
		"eval":   unwrapEval,
		"source": unwrapSource,
		".":      unwrapSource,
	}
	for _, sh := range []string{"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"} {
		wrappers[sh] = unwrapShell
	}
}

// codeFromArguments are programs that, given the right arguments, run
// other code: under xargs, whose arguments come from its input, what they
// run cannot be seen.
var codeFromArguments = map[string]bool{
	"sed": true, "awk": true, "gawk": true, "mawk": true, "nawk": true, "find": true,
	"tar": true, "git": true, "perl": true, "python3": true, "python": true, "node": true,
	"ruby": true, "php": true, "split": true, "sort": true, "rg": true, "zip": true,
	"make": true, "less": true, "more": true, "vi": true, "vim": true, "man": true,
}

// unwrap records the commands that the command at index runs.
func (b *builder) unwrap(index int) {
	cmd := b.in.Commands[index]
	if cmd.Wrapper != nil && cmd.Wrapper.Name == "xargs" && (wrappers[cmd.Base] != nil || codeFromArguments[cmd.Base]) {
		b.markOpaque(index, "xargs gives it arguments read from its input, which may make it run any command")
		return
	}
	fn, ok := wrappers[cmd.Base]
	if !ok || cmd.Kind == "function" || len(cmd.Argv) == 0 {
		return
	}
	u := fn(cmd.Argv[1:])
	wrapper := &Wrapper{Name: cmd.Base, Parent: index}
	switch {
	case u.opaque != "":
		b.in.Commands[index].Opaque = u.opaque
		b.in.Features.Opaque = true
	case u.script != nil:
		b.nested(u.script.Value, u.script.Span, wrapper)
	case u.file != nil:
		b.sourceFile(index, b.resolve(u.file.Value), wrapper)
	}
	for i, argv := range u.cmds {
		var assigns []Assign
		if i == 0 {
			assigns = u.assigns
		}
		b.addCommand(argv, assigns, nil, cmd.Span, wrapper)
	}
	if cmd.Base == "eval" {
		b.in.Features.Eval = true
	}
}

// nested parses a literal script run by a wrapper and records its commands
// as run by that wrapper. Positions inside it carry the span of the word
// that holds it.
func (b *builder) nested(script string, span Span, wrapper *Wrapper) {
	parent := wrapper.Parent
	if b.nesting >= maxNesting {
		b.markOpaque(parent, "scripts nested too deeply to check")
		return
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		b.markOpaque(parent, "the nested script does not parse: "+err.Error())
		return
	}
	override, src, cwd := b.override, b.nestedSrc, b.cwd
	defer func() { b.cwd = cwd }() // a nested script is a process of its own
	b.nesting++
	b.override, b.nestedSrc = &span, script
	b.collectFunctions(file)
	first := len(b.in.Commands)
	b.stmts(file.Stmts)
	for i := first; i < len(b.in.Commands); i++ {
		if b.in.Commands[i].Wrapper == nil {
			b.in.Commands[i].Wrapper = wrapper
		}
	}
	b.nesting--
	b.override, b.nestedSrc = override, src
}

// sourceFile parses a sourced file that lies inside a root; any other is
// opaque.
func (b *builder) sourceFile(index int, p Path, wrapper *Wrapper) {
	if p.Dynamic || p.Root == "" || p.Root == "device" {
		b.markOpaque(index, "sources a file outside the skills tree and the workspace")
		return
	}
	fi, err := os.Stat(p.Resolved)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSourceSize {
		b.markOpaque(index, "sources a file that cannot be read and checked")
		return
	}
	data, err := os.ReadFile(p.Resolved)
	if err != nil {
		b.markOpaque(index, "sources a file that cannot be read and checked")
		return
	}
	b.nested(string(data), b.in.Commands[index].Span, wrapper)
}

func (b *builder) markOpaque(index int, why string) {
	b.in.Commands[index].Opaque = why
	b.in.Features.Opaque = true
}

// afterOptions returns a wrapper whose command follows its options.
func afterOptions(syn optionSyntax) wrapperFunc {
	return func(args []Word) unwrapped {
		rest, ok := skipOptions(args, syn)
		if !ok {
			return unwrapped{opaque: "its options are not literal"}
		}
		return unwrapped{cmds: [][]Word{rest}}
	}
}

// optionSyntax names a wrapper's options that take a value, so that the
// value is not taken for the command it runs.
type optionSyntax struct {
	short string   // letters: the value is the rest of the word, or the next word
	long  []string // names without --: the value follows "=", or is the next word
}

// skipOptions skips leading options and a "--", and returns the words
// from the command on. ok is false when a word before the command is
// dynamic.
func skipOptions(args []Word, syn optionSyntax) (rest []Word, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.Dynamic:
			return nil, false
		case a.Value == "--":
			return args[i+1:], true
		case !strings.HasPrefix(a.Value, "-") || a.Value == "-":
			return args[i:], true
		case strings.HasPrefix(a.Value, "--"):
			if syn.longTakesNext(a.Value[2:]) {
				i++
			}
		case syn.shortTakesNext(a.Value[1:]):
			i++
		}
	}
	return nil, true
}

// shortTakesNext reports whether a cluster of short options ("iu", "0a")
// takes the next word: its first letter that takes a value is its last.
func (s optionSyntax) shortTakesNext(letters string) bool {
	for k, c := range letters {
		if strings.ContainsRune(s.short, c) {
			return k == len(letters)-1
		}
	}
	return false
}

// longTakesNext reports whether a long option without "=" takes the next
// word: it is, or abbreviates, one that takes a value. When it could also
// abbreviate a flag, the program refuses it as ambiguous.
func (s optionSyntax) longTakesNext(given string) bool {
	if strings.Contains(given, "=") {
		return false
	}
	for _, name := range s.long {
		if strings.HasPrefix(name, given) {
			return true
		}
	}
	return false
}

// unwrapEnv handles env [-i] [-u NAME] [-C DIR] [NAME=value]... [cmd...].
func unwrapEnv(args []Word) unwrapped {
	rest, ok := skipOptions(args, optionSyntax{short: "uCSa", long: []string{"unset", "chdir", "split-string", "argv0"}})
	if !ok {
		return unwrapped{opaque: "its options are not literal"}
	}
	var u unwrapped
	for len(rest) > 0 && !rest[0].Dynamic && strings.Contains(rest[0].Value, "=") {
		name, value, _ := strings.Cut(rest[0].Value, "=")
		u.assigns = append(u.assigns, Assign{Name: name, Value: value, Span: rest[0].Span})
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0].Dynamic {
		return unwrapped{opaque: "the program it runs is not literal"}
	}
	if len(rest) == 0 {
		return unwrapped{} // env [NAME=value] alone prints, it runs nothing
	}
	u.cmds = [][]Word{rest}
	return u
}

// unwrapCommand handles command [-p] cmd; -v and -V only look a name up.
func unwrapCommand(args []Word) unwrapped {
	for _, a := range args {
		if a.Dynamic || !strings.HasPrefix(a.Value, "-") {
			break
		}
		if strings.ContainsAny(a.Value, "vV") {
			return unwrapped{}
		}
	}
	return afterOptions(optionSyntax{})(args)
}

// unwrapTimeout handles timeout [options] DURATION cmd...
func unwrapTimeout(args []Word) unwrapped {
	rest, ok := skipOptions(args, optionSyntax{short: "sk", long: []string{"signal", "kill-after"}})
	if !ok || len(rest) == 0 {
		return unwrapped{opaque: "its options are not literal"}
	}
	return unwrapped{cmds: [][]Word{rest[1:]}}
}

// unwrapFlock handles flock [options] FILE cmd... and flock FILE -c SCRIPT.
func unwrapFlock(args []Word) unwrapped {
	rest, ok := skipOptions(args, optionSyntax{short: "wE", long: []string{"timeout", "wait", "conflict-exit-code"}})
	if !ok || len(rest) == 0 {
		return unwrapped{opaque: "its options are not literal"}
	}
	rest = rest[1:]
	if len(rest) >= 2 && (rest[0].Value == "-c" || rest[0].Value == "--command") {
		return scriptWord(rest[1])
	}
	return unwrapped{cmds: [][]Word{rest}}
}

// unwrapXargs handles xargs [options] [cmd [args]]; without cmd it runs
// echo.
func unwrapXargs(args []Word) unwrapped {
	// -e, -i and -l take an optional value, only in the same word.
	rest, ok := skipOptions(args, optionSyntax{short: "adEILnPs", long: []string{"arg-file", "delimiter",
		"max-args", "max-procs", "max-chars", "process-slot-var"}})
	if !ok {
		return unwrapped{opaque: "its options are not literal"}
	}
	if len(rest) == 0 {
		return unwrapped{cmds: [][]Word{{{Value: "echo"}}}}
	}
	return unwrapped{cmds: [][]Word{rest}}
}

// findExecs are the find actions that run a command.
var findExecs = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true}

// unwrapFind handles find ... -exec cmd args ; (or +), each such action.
func unwrapFind(args []Word) unwrapped {
	var u unwrapped
	for i := 0; i < len(args); i++ {
		if args[i].Dynamic || !findExecs[args[i].Value] {
			continue
		}
		end := i + 1
		for end < len(args) && !endsExec(args, end) {
			end++
		}
		if end > i+1 {
			u.cmds = append(u.cmds, args[i+1:end])
		}
		i = end
	}
	return u
}

// endsExec reports whether args[i] ends a find -exec: a ";", or a "+"
// right after "{}" (elsewhere a "+" is one of the command's arguments).
func endsExec(args []Word, i int) bool {
	switch args[i].Value {
	case ";":
		return true
	case "+":
		return args[i-1].Value == "{}"
	}
	return false
}

// unwrapEval handles eval with literal arguments, joined by spaces as eval
// does.
func unwrapEval(args []Word) unwrapped {
	if len(args) == 0 {
		return unwrapped{}
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if a.Dynamic {
			return unwrapped{opaque: "eval of a word known only at run time"}
		}
		parts[i] = a.Value
	}
	span := args[0].Span
	span.End = args[len(args)-1].Span.End
	return unwrapped{script: &Word{Value: strings.Join(parts, " "), Span: span}}
}

// unwrapSource handles source FILE and . FILE.
func unwrapSource(args []Word) unwrapped {
	if len(args) == 0 {
		return unwrapped{}
	}
	if args[0].Dynamic {
		return unwrapped{opaque: "sources a file known only at run time"}
	}
	return unwrapped{file: &Path{Value: args[0].Value}}
}

// unwrapShell handles sh -c SCRIPT and its relatives; a shell that runs a
// script file or reads stdin runs nothing the builder can see here.
func unwrapShell(args []Word) unwrapped {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.Dynamic:
			return unwrapped{opaque: "the shell's options are not literal"}
		case a.Value == "-o" || a.Value == "+o" || a.Value == "-O" || a.Value == "+O":
			i++ // skip the option name
		case !strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "+"), a.Value == "--":
			return unwrapped{}
		case !strings.HasPrefix(a.Value, "--") && strings.Contains(a.Value, "c"):
			if i+1 >= len(args) {
				return unwrapped{}
			}
			return scriptWord(args[i+1])
		}
	}
	return unwrapped{}
}

func scriptWord(w Word) unwrapped {
	if w.Dynamic {
		return unwrapped{opaque: "runs a script known only at run time"}
	}
	return unwrapped{script: &w}
}
