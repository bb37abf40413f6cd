package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"
)

// TestInputValueMatchesJSON: the Rego value built field by field is the
// value of the input's JSON encoding (the documented shape), for every
// corpus input and for one with every optional field set.
func TestInputValueMatchesJSON(t *testing.T) {
	t.Parallel()
	facts, roots := corpusFacts(t)
	inputs := []*Input{fullInput()}
	for _, c := range loadCorpus(t) {
		in := buildCase(t, c, facts, roots)
		engine(t).Complete(in)
		inputs = append(inputs, in)
	}
	for _, in := range inputs {
		got, err := inputValue(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := jsonValue(t, in)
		if got.Compare(want) != 0 {
			t.Errorf("%q:\n got %v\nwant %v", in.Command, got, want)
		}
	}
}

// fullInput sets every field, optional ones included.
func fullInput() *Input {
	p := &Path{Arg: -1, Value: "x", Resolved: "/ws/x", Root: "workspace", RootDir: "/ws", Exists: true, Dir: true, Dynamic: true}
	return &Input{
		Version: InputVersion, Phase: PhaseExec, Command: "x", Cwd: "/ws",
		Roots: Roots{Skills: []string{"/s"}, Workspace: "/ws"},
		Session: Session{Home: "/ws", Skills: []SkillFact{{Name: "a", Dir: "/s/a", Location: "/s/a/SKILL.md", AllowedTools: []string{"Bash(ls)"}}},
			Protections: []string{"landlock"}, Env: map[string]any{"LANG": "C", "n": 1.5}},
		Commands: []Command{{
			Index: 0, Name: "x", Base: "x", Kind: "external", Program: "/usr/bin/x",
			Argv:      []Word{{Value: "x", Dynamic: true, Expansions: []string{"param"}, Glob: true}},
			Assigns:   []Assign{{Name: "A", Value: "1", Dynamic: true, Array: true}},
			Redirects: []Redirect{{Op: ">", Fd: 1, Access: "write", Path: p}, {Op: ">&", Fd: 2, Access: "dup"}},
			Paths:     []Path{*p}, Wrapper: &Wrapper{Name: "env", Parent: 0},
			Options: &Options{Names: []string{"-f"}, Operands: []int{2}, Args: []OptionArg{{Arg: 1, Options: []string{"-f"}, Value: "x", Attached: true}}},
			Context: []string{"pipeline"}, Opaque: "why", Span: Span{1, 2, 3, 4},
		}},
		Features: Features{Background: true, CmdSubst: true, ProcSubst: true, Heredoc: true, Eval: true, Coproc: true,
			Functions: []string{"f"}, Opaque: true, Pipeline: true, Subshell: true, Arithmetic: true, Assignments: []string{"A"}},
	}
}

func jsonValue(t *testing.T, in *Input) ast.Value {
	t.Helper()
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := util.UnmarshalJSON(data, &doc); err != nil {
		t.Fatal(err)
	}
	v, err := ast.InterfaceToValue(doc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestInputValueEmpty: an input with nothing set still has every field
// the schema requires.
func TestInputValueEmpty(t *testing.T) {
	t.Parallel()
	got, err := inputValue(&Input{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := jsonValue(t, &Input{}); got.Compare(want) != 0 {
		t.Errorf("got %v, want %v", got, want)
	}
	if !strings.Contains(got.String(), `"commands": null`) {
		t.Errorf("a nil command list is not null: %v", got)
	}
}

// TestSessionCache: an input's roots and session are taken from the cache
// only when they are the same as the cached ones (nil and empty lists
// told apart), and changing the caller's lists afterwards does not change
// the cached values.
func TestSessionCache(t *testing.T) {
	t.Parallel()
	var cache sessionCache
	base := fullInput()
	base.Session.Env = nil
	check := func(name string, in *Input) {
		t.Helper()
		got, err := inputValue(in, &cache)
		if err != nil {
			t.Fatal(err)
		}
		if want := jsonValue(t, in); got.Compare(want) != 0 {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
	check("first", base)
	check("again", base)
	variants := map[string]func(*Input){
		"home":      func(in *Input) { in.Session.Home = "/other" },
		"skill dir": func(in *Input) { in.Session.Skills[0].Dir = "/s/b" },
		"allowed tools": func(in *Input) {
			in.Session.Skills[0].AllowedTools = append(in.Session.Skills[0].AllowedTools, "Bash(cat)")
		},
		"protections":   func(in *Input) { in.Session.Protections = nil },
		"skills":        func(in *Input) { in.Session.Skills = []SkillFact{} },
		"env":           func(in *Input) { in.Session.Env = map[string]any{"A": "1"} },
		"workspace":     func(in *Input) { in.Roots.Workspace = "/w2" },
		"skill roots":   func(in *Input) { in.Roots.Skills = []string{"/s", "/t"} },
		"no skill root": func(in *Input) { in.Roots.Skills = nil },
	}
	nilTools, emptyTools := fullInput(), fullInput()
	nilTools.Session.Env, emptyTools.Session.Env = nil, nil
	nilTools.Session.Skills[0].AllowedTools, emptyTools.Session.Skills[0].AllowedTools = nil, []string{}
	check("nil tools", nilTools)
	check("empty tools after nil", emptyTools)
	for name, change := range variants {
		in := fullInput()
		in.Session.Env = nil
		change(in)
		check(name, in)
		check("back from "+name, base)
	}
	// The cache holds copies: changing the lists it was built from does
	// not change what it gives.
	in := fullInput()
	in.Session.Env = nil
	in.Session.Home = "/new"
	check("before", in)
	in.Session.Skills[0].AllowedTools[0] = "Bash(rm)"
	check("after changing allowed tools", in)
	in.Session.Protections[0] = "none"
	check("after changing protections", in)
	in.Roots.Skills[0] = "/elsewhere"
	check("after changing roots", in)
}

// TestFeaturesTerm: the features values kept for reuse are those of the
// features asked for, switch by switch, nil and empty lists told apart.
func TestFeaturesTerm(t *testing.T) {
	t.Parallel()
	var cases []Features
	for key := range 1 << 12 {
		bit := func(i int) bool { return key&(1<<i) != 0 }
		f := Features{Background: bit(0), CmdSubst: bit(1), ProcSubst: bit(2), Heredoc: bit(3), Eval: bit(4), Coproc: bit(5),
			Opaque: bit(6), Pipeline: bit(7), Subshell: bit(8), Arithmetic: bit(9)}
		if !bit(10) {
			f.Functions = []string{}
		}
		if !bit(11) {
			f.Assignments = []string{}
		}
		cases = append(cases, f)
	}
	cases = append(cases, Features{Functions: []string{"f"}}, Features{Assignments: []string{"A"}, Pipeline: true})
	for range 2 { // the second time from the kept values
		for _, f := range cases {
			got := featuresTerm(f).Value
			want := jsonValue(t, &Input{Features: f}).(ast.Object).Get(ast.StringTerm("features")).Value
			if got.Compare(want) != 0 {
				t.Fatalf("%+v:\n got %v\nwant %v", f, got, want)
			}
		}
	}
}
