package policy

import (
	"slices"
	"strings"
)

// Options are a command's options parsed the way getopt_long does, with
// the option grammar the policy gives for the program (see [Grammar]).
// Dynamic words are operands: only the exec phase knows what they are.
type Options struct {
	// Names are the options given, sorted, each once: a cluster "-rf"
	// gives "-r" and "-f"; an abbreviated long option gives every long
	// option it may stand for.
	Names []string `json:"names"`
	// Operands are the argv indices of the operands, in order.
	Operands []int `json:"operands"`
	// Args are the option arguments, in argv order.
	Args []OptionArg `json:"args"`
}

// OptionArg is the argument of an option.
type OptionArg struct {
	// Arg is the argv index of the word holding the argument: the word
	// after the option, or the option's own word (--file=x, -fx).
	Arg int `json:"arg"`
	// Options are the options it is the argument of (more than one for an
	// ambiguous abbreviation).
	Options []string `json:"options"`
	// Value is the argument: the whole word, or the part after "=" or after
	// the option letter when attached; empty when the word is dynamic.
	Value string `json:"value"`
	// Attached is true when the word holds the option too.
	Attached bool `json:"attached"`
}

// Grammar describes one program's options, as the policy's data gives it
// (data.skillsh.programs[name] and data.skillsh.builtins[name], the
// project layer's entries first). The zero Grammar knows no option that
// takes an argument. It is immutable once built.
type Grammar struct {
	shortArgs    string          // short options that take the next word or the rest of theirs
	optionalArgs string          // short options whose argument is optional and attached
	longArgs     map[string]bool // long options (without --) that take an argument
	pairArgs     map[string]bool // long options (without --) that take two words (jq --arg NAME VALUE)
	known        []string        // every long option the grammar names, for abbreviations
	posix        bool            // options end at the first operand
	abbrev       bool            // long options may be abbreviated
}

// optionListKeys are the spec keys listing option names; their long names
// count as known for abbreviations.
var optionListKeys = []string{"text_options", "write_options", "target_options", "inplace_options", "pattern_options", "inline_options", "module_options"}

// grammarOf builds a Grammar from one allowlist entry. Fields of the wrong
// type are ignored, as the Rego helpers that read them ignore them.
func grammarOf(spec map[string]any) *Grammar {
	g := &Grammar{longArgs: map[string]bool{}, pairArgs: map[string]bool{}}
	g.shortArgs, _ = spec["short_args"].(string)
	g.optionalArgs, _ = spec["optional_args"].(string)
	g.posix, _ = spec["posix"].(bool)
	g.abbrev, _ = spec["abbrev"].(bool)
	known := map[string]bool{}
	for _, name := range stringList(spec["long_args"]) {
		g.longArgs[name] = true
		known[name] = true
	}
	for _, name := range stringList(spec["pair_args"]) {
		g.longArgs[name], g.pairArgs[name] = true, true
		known[name] = true
	}
	for _, name := range stringList(spec["flags"]) {
		known[name] = true
	}
	for _, key := range optionListKeys {
		for _, o := range stringList(spec[key]) {
			if name, ok := strings.CutPrefix(o, "--"); ok {
				known[name] = true
			}
		}
	}
	if deny, ok := spec["deny_options"].(map[string]any); ok {
		for o := range deny {
			if name, ok := strings.CutPrefix(o, "--"); ok {
				known[name] = true
			}
		}
	}
	delete(known, "")
	for name := range known {
		g.known = append(g.known, name)
	}
	slices.Sort(g.known)
	return g
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Parse parses argv (argv[0] is the program). A nil Grammar is the zero
// Grammar.
func (g *Grammar) Parse(argv []Word) *Options {
	if g == nil {
		g = &Grammar{}
	}
	opts := &Options{Operands: []int{}, Args: []OptionArg{}}
	names := map[string]bool{}
	ended := false
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		switch {
		case ended || !isOptionWord(w):
			opts.Operands = append(opts.Operands, i)
			ended = ended || g.posix
		case w.Value == "--":
			ended = true
		case strings.HasPrefix(w.Value, "--"):
			i = g.long(argv, i, opts, names)
		default:
			i = g.short(argv, i, opts, names)
		}
	}
	opts.Names = sortedKeys(names)
	return opts
}

// isOptionWord is a literal word starting with "-" other than "-".
func isOptionWord(w Word) bool {
	return !w.Dynamic && strings.HasPrefix(w.Value, "-") && w.Value != "-"
}

// long parses the long option at argv[i] and returns the index of the last
// word it used.
func (g *Grammar) long(argv []Word, i int, opts *Options, names map[string]bool) int {
	given, value, attached := strings.Cut(argv[i].Value[2:], "=")
	expanded := g.longNames(given)
	for _, n := range expanded {
		names[n] = true
	}
	if attached {
		opts.Args = append(opts.Args, OptionArg{Arg: i, Options: expanded, Value: value, Attached: true})
		return i
	}
	if !g.takesArg(expanded) || i+1 >= len(argv) {
		return i
	}
	opts.Args = append(opts.Args, OptionArg{Arg: i + 1, Options: expanded, Value: literal(argv[i+1])})
	if !g.takesPair(expanded) || i+2 >= len(argv) {
		return i + 1
	}
	opts.Args = append(opts.Args, OptionArg{Arg: i + 2, Options: expanded, Value: literal(argv[i+2])})
	return i + 2
}

// takesPair reports whether an option given as its own word takes the two
// words after it (--rawfile NAME FILE): both are its arguments.
func (g *Grammar) takesPair(expanded []string) bool {
	for _, n := range expanded {
		if g.pairArgs[n[2:]] {
			return true
		}
	}
	return false
}

func (g *Grammar) takesArg(expanded []string) bool {
	for _, n := range expanded {
		if g.longArgs[n[2:]] {
			return true
		}
	}
	return false
}

// longNames are the long options ("--name") that given (without --)
// stands for: itself when known or not a known prefix, else every known
// option it abbreviates when the grammar allows abbreviations.
func (g *Grammar) longNames(given string) []string {
	if g.abbrev && given != "" && !slices.Contains(g.known, given) {
		var out []string
		for _, k := range g.known {
			if strings.HasPrefix(k, given) {
				out = append(out, "--"+k)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return []string{"--" + given}
}

// short parses the cluster of short options at argv[i] ("-rf", "-n5",
// "-i.bak") and returns the index of the last word it used. The cluster
// ends at the first option that takes an argument: the rest of the word,
// or the next word when nothing is left, is that argument.
func (g *Grammar) short(argv []Word, i int, opts *Options, names map[string]bool) int {
	v := argv[i].Value
	for k := 1; k < len(v); k++ {
		c := v[k : k+1]
		names["-"+c] = true
		required := strings.Contains(g.shortArgs, c)
		if !required && !strings.Contains(g.optionalArgs, c) {
			continue
		}
		switch {
		case k+1 < len(v):
			opts.Args = append(opts.Args, OptionArg{Arg: i, Options: []string{"-" + c}, Value: v[k+1:], Attached: true})
		case required && i+1 < len(argv):
			opts.Args = append(opts.Args, OptionArg{Arg: i + 1, Options: []string{"-" + c}, Value: literal(argv[i+1])})
			return i + 1
		}
		return i
	}
	return i
}

// literal is a word's value, or "" when it is dynamic.
func literal(w Word) string {
	if w.Dynamic {
		return ""
	}
	return w.Value
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
