package policy

import (
	"context"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	defaultpolicy "github.com/skillsh/skillsh/rego"
)

// words makes an argv; a word starting with "$" is dynamic.
func words(s string) []Word {
	var argv []Word
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "$") {
			argv = append(argv, Word{Dynamic: true})
			continue
		}
		argv = append(argv, Word{Value: f})
	}
	return argv
}

func TestGrammarParse(t *testing.T) {
	t.Parallel()
	grep := grammarOf(map[string]any{"short_args": "efm", "long_args": []any{"regexp", "file", "max-count"},
		"text_options": []any{"--color"}, "abbrev": true})
	sed := grammarOf(map[string]any{"short_args": "ef", "optional_args": "i", "long_args": []any{"expression"}})
	py := grammarOf(map[string]any{"short_args": "cmW", "posix": true})
	arg := func(i int, v string, attached bool, opts ...string) OptionArg {
		return OptionArg{Arg: i, Options: opts, Value: v, Attached: attached}
	}
	tests := []struct {
		name string
		g    *Grammar
		argv string
		want Options
	}{
		{"no options", grep, "grep foo a", Options{Names: []string{}, Operands: []int{1, 2}, Args: []OptionArg{}}},
		{"cluster", nil, "rm -rf x", Options{Names: []string{"-f", "-r"}, Operands: []int{2}, Args: []OptionArg{}}},
		{"separate and cluster alike", nil, "rm -r -f x", Options{Names: []string{"-f", "-r"}, Operands: []int{3}, Args: []OptionArg{}}},
		{"argument next word", grep, "grep -e foo a", Options{Names: []string{"-e"}, Operands: []int{3}, Args: []OptionArg{arg(2, "foo", false, "-e")}}},
		{"argument attached", grep, "grep -efoo a", Options{Names: []string{"-e"}, Operands: []int{2}, Args: []OptionArg{arg(1, "foo", true, "-e")}}},
		{"cluster ends at argument", grep, "grep -nm5 a", Options{Names: []string{"-m", "-n"}, Operands: []int{2}, Args: []OptionArg{arg(1, "5", true, "-m")}}},
		{"argument may look like an option", grep, "grep -e -e a", Options{Names: []string{"-e"}, Operands: []int{3}, Args: []OptionArg{arg(2, "-e", false, "-e")}}},
		{"long with =", grep, "grep --file=x a", Options{Names: []string{"--file"}, Operands: []int{2}, Args: []OptionArg{arg(1, "x", true, "--file")}}},
		{"long next word", grep, "grep --regexp x a", Options{Names: []string{"--regexp"}, Operands: []int{3}, Args: []OptionArg{arg(2, "x", false, "--regexp")}}},
		{"abbreviation", grep, "grep --reg x a", Options{Names: []string{"--regexp"}, Operands: []int{3}, Args: []OptionArg{arg(2, "x", false, "--regexp")}}},
		{"ambiguous abbreviation", grep, "grep --co a", Options{Names: []string{"--color"}, Operands: []int{2}, Args: []OptionArg{}}},
		{"unknown long", grep, "grep --zzz a", Options{Names: []string{"--zzz"}, Operands: []int{2}, Args: []OptionArg{}}},
		{"double dash ends options", nil, "rm -- -rf", Options{Names: []string{}, Operands: []int{2}, Args: []OptionArg{}}},
		{"double dash as an argument", grep, "grep -e -- -rf", Options{Names: []string{"-e", "-f", "-r"}, Operands: []int{}, Args: []OptionArg{arg(2, "--", false, "-e")}}},
		{"lone dash is an operand", nil, "cat - x", Options{Names: []string{}, Operands: []int{1, 2}, Args: []OptionArg{}}},
		{"options after operands", nil, "rm x -r", Options{Names: []string{"-r"}, Operands: []int{1}, Args: []OptionArg{}}},
		{"posix ends at first operand", py, "python3 s.py -c x", Options{Names: []string{}, Operands: []int{1, 2, 3}, Args: []OptionArg{}}},
		{"posix options before", py, "python3 -W ignore s.py", Options{Names: []string{"-W"}, Operands: []int{3}, Args: []OptionArg{arg(2, "ignore", false, "-W")}}},
		{"optional argument attached", sed, "sed -i.bak s a", Options{Names: []string{"-i"}, Operands: []int{2, 3}, Args: []OptionArg{arg(1, ".bak", true, "-i")}}},
		{"optional argument absent", sed, "sed -i s a", Options{Names: []string{"-i"}, Operands: []int{2, 3}, Args: []OptionArg{}}},
		{"dynamic word is an operand", nil, "rm $x", Options{Names: []string{}, Operands: []int{1}, Args: []OptionArg{}}},
		{"dynamic argument", sed, "sed -e $x a", Options{Names: []string{"-e"}, Operands: []int{3}, Args: []OptionArg{arg(2, "", false, "-e")}}},
		{"argument missing at the end", grep, "grep -e", Options{Names: []string{"-e"}, Operands: []int{}, Args: []OptionArg{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.g.Parse(words(tt.argv))
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.argv, diff)
			}
		})
	}
}

// TestFixtureOptionsMatchGo: the Rego tests build their inputs with a Rego
// copy of the option parser (fixtures_test.rego); over every command of
// the corpus it gives what the engine gives.
func TestFixtureOptionsMatchGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	res, err := loader.NewFileLoader().WithFS(defaultpolicy.FS).WithRegoVersion(ast.RegoV1).Filtered([]string{"."}, skipNonPolicy)
	if err != nil {
		t.Fatal(err)
	}
	fixtures, err := loader.NewFileLoader().WithFS(defaultpolicy.TestFiles).WithRegoVersion(ast.RegoV1).
		Filtered([]string{"."}, func(p string, info fs.FileInfo, _ int) bool {
			return !info.IsDir() && strings.TrimPrefix(p, "/") != fixturesFile
		})
	if err != nil {
		t.Fatal(err)
	}
	opts := []func(*rego.Rego){
		rego.Query("data.skillsh.fixtures_test.options(input.argv, input.spec)"),
		rego.Store(inmem.NewFromObject(res.Documents)),
	}
	for _, mods := range []map[string]*ast.Module{res.ParsedModules(), fixtures.ParsedModules()} {
		for _, m := range mods {
			opts = append(opts, rego.ParsedModule(m))
		}
	}
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := engine(t)
	facts, roots := corpusFacts(t)
	specs, _ := res.Documents["skillsh"].(map[string]any)
	for _, c := range loadCorpus(t) {
		in := buildCase(t, c, facts, roots)
		e.Complete(in)
		for _, cmd := range in.Commands {
			spec := specFor(specs, cmd)
			rs, err := pq.Eval(ctx, rego.EvalInput(map[string]any{"argv": cmd.Argv, "spec": spec}))
			if err != nil || len(rs) != 1 {
				t.Fatalf("%q: %v %v", c.Command, rs, err)
			}
			var fixture Options
			roundTrip(t, rs[0].Expressions[0].Value, &fixture)
			if diff := cmp.Diff(*cmd.Options, fixture); diff != "" {
				t.Errorf("%q, command %d (-engine +fixture):\n%s", c.Command, cmd.Index, diff)
			}
		}
	}
}

// specFor is the allowlist entry the engine parses cmd's options with.
func specFor(data map[string]any, cmd Command) map[string]any {
	key := map[string]string{"external": "programs", "builtin": "builtins"}[cmd.Kind]
	spec, _ := lookup(data, key, cmd.Base).(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	return spec
}

// roundTrip decodes v, a value from Rego, into out through JSON.
func roundTrip(t *testing.T, v any, out any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		t.Fatal(err)
	}
}
