package policy

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// TestStaticKeepsWhatReadsInput: a rule of data.skillsh.static that reads
// input, directly or through a rule or function it uses, or calls a
// builtin whose answer changes, is not folded (its value could differ
// between decisions): it is kept as written, and decides per input.
func TestStaticKeepsWhatReadsInput(t *testing.T) {
	t.Parallel()
	main := "package skillsh.main\n\nimport data.skillsh.static\n\ndecision := {\"decision\": \"allow\", \"reasons\": []} if static.ok\n"
	// rm is the verdict for the command rm: Deny when ok is false for it
	// (the decision is then undefined, which the engine denies).
	tests := map[string]struct {
		static, want string
		rm           Verdict
	}{
		"input":    {"ok if input.command == \"ls\"\n", "reads input", Deny},
		"whole":    {"ok if input.command == \"ls\"\n\nok if input == 1\n", "reads input", Deny},
		"rule":     {"import data.skillsh.helper\n\nok if helper.quiet\n", "reads input", Deny},
		"function": {"import data.skillsh.helper\n\nok if helper.f(\"ls\")\n", "reads input", Deny},
		"time":     {"ok if time.now_ns() > 0\n", "calls time.now_ns", Allow},
		"dynamic":  {"ok if {\n\tsome k\n\tdata.skillsh.helper[k] == true\n}\n", "reads input", Deny},
		"nested":   {"ok if count([x | some x in numbers.range(1, 2); rand.intn(\"k\", 3) >= 0]) > 0\n", "calls rand.intn", Allow},
		"with":     {"ok if data.skillsh.helper.quiet with input as {\"command\": \"ls\"}\n", "reads input", Allow},
	}
	helper := "package skillsh.helper\n\nquiet if input.command == \"ls\"\n\nf(x) if x == input.command\n"
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeModules(t, map[string]string{
				"main.rego":   main,
				"helper.rego": helper,
				"static.rego": "package skillsh.static\n\n" + tc.static,
			})
			set, err := loadPolicies(engineOptions{noDefault: true, paths: []string{dir}})
			if err != nil {
				t.Fatal(err)
			}
			c := ast.NewCompiler()
			if c.Compile(set.modules); c.Failed() {
				t.Fatal(c.Errors)
			}
			if err := readsInput(c, ast.MustParseRef("data.skillsh.static.ok")); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("readsInput: %v; want an error that %s", err, tc.want)
			}
			if folded, kept := foldedRules(t, set); len(folded) > 0 || !kept["ok"] {
				t.Errorf("folded %v, kept %v; want ok kept as written", folded, kept)
			}
			e, err := set.prepare(context.Background(), Query)
			if err != nil {
				t.Fatal(err)
			}
			for cmd, want := range map[string]Verdict{"ls": Allow, "rm": tc.rm} {
				if d, _ := e.Decide(context.Background(), &Input{Version: InputVersion, Command: cmd}); d.Verdict != want {
					t.Errorf("%s: %v, want %v", cmd, d.Verdict, want)
				}
			}
		})
	}
	// A layer cannot add static facts to the default's (a plain program
	// of its own choosing, say): its package is the default's.
	t.Run("layer", func(t *testing.T) {
		t.Parallel()
		dir := writeModules(t, map[string]string{"static.rego": "package skillsh.static\n\nfree_programs contains \"curl\"\n"})
		_, err := NewEngine(context.Background(), WithPolicy(dir))
		if err == nil || !strings.Contains(err.Error(), "is in package skillsh.static, which belongs to the default policy") {
			t.Errorf("a layer's skillsh.static: %v", err)
		}
	})
	t.Run("pure", func(t *testing.T) {
		t.Parallel()
		dir := writeModules(t, map[string]string{
			"main.rego":   main,
			"static.rego": "package skillsh.static\n\nok if count(data.skillsh.names) == 2\n",
			"data.json":   `{"skillsh": {"names": ["a", "b"]}}`,
		})
		e, err := NewEngine(context.Background(), WithoutDefault(), WithPolicy(dir))
		if err != nil {
			t.Fatal(err)
		}
		if d, err := e.Decide(context.Background(), &Input{Version: InputVersion}); err != nil || d.Verdict != Allow {
			t.Errorf("decision %+v, %v", d, err)
		}
	})
}

// TestStaticValue: the folded static facts are what the default policy's
// skillsh.static evaluates to as written, whatever the input; they are
// constants, not rules; and they hold what the plain check relies on.
func TestStaticValue(t *testing.T) {
	t.Parallel()
	set, err := loadPolicies(engineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	facts := testFacts(t)
	var inputs []*Input
	for _, src := range []string{"ls", "rm -rf / ; curl x | sh", "cat <(env) > /etc/x"} {
		inputs = append(inputs, build(t, src, facts))
	}
	value := checkStaticFolds(t, set, inputs)
	programs, _ := value["plain_programs"].(map[string]any)
	if programs["cat"] == nil || programs["rm"] != nil {
		t.Errorf("plain_programs = %v; want cat and not rm", programs)
	}
	if names, _ := value["unplain_names"].([]any); !slices.Contains(names, any("curl")) {
		t.Errorf("unplain_names = %v; want curl", names)
	}
	folded, kept := foldedRules(t, set)
	if len(kept) > 0 || !folded["plain_programs"] || !folded["config"] || !folded["layer_reasons"] || !folded["profiles_configured"] {
		t.Errorf("folded %v, kept %v; want every rule folded", folded, kept)
	}
}

// TestStaticFoldsEveryKind: complete, partial set, partial object, default,
// else, boolean and undefined rules and functions of a static package
// fold to what they evaluate to, and a folded policy decides as written.
func TestStaticFoldsEveryKind(t *testing.T) {
	t.Parallel()
	dir := writeModules(t, map[string]string{
		"main.rego": `package skillsh.main

import data.skillsh.static

decision := {"decision": "allow", "reasons": [static.f(input.command)]} if static.b

decision := {"decision": "deny", "reasons": [static.undefined_number]} if not static.b
`,
		"static.rego": `package skillsh.static

import data.skillsh.helper

complete := {"a": [1, 2.5, "x"], "b": set()}

s contains x if some x in data.skillsh.names

o[x] := count(x) if some x in data.skillsh.names

default d := 7

e := 1 if false else := 2

b if count(data.skillsh.names) > 1

never if count(data.skillsh.names) > 5

undefined_number := 3 if false

f(x) := y if y := concat("-", [x, helper.k])

nested.deep.value := "n"
`,
		"static2.rego": "package skillsh.static\n\nother := {\"quote\": \"\\\"\\u0000\\u007f\\t\"}\n",
		"helper.rego":  "package skillsh.helper\n\nk := \"h\"\n",
		"data.json":    `{"skillsh": {"names": ["ab", "c"]}}`,
	})
	set, err := loadPolicies(engineOptions{noDefault: true, paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	value := checkStaticFolds(t, set, []*Input{{Version: InputVersion, Command: "ls"}})
	want := map[string]any{
		"complete": map[string]any{"a": []any{json.Number("1"), json.Number("2.5"), "x"}, "b": []any{}},
		"s":        []any{"ab", "c"}, "o": map[string]any{"ab": json.Number("2"), "c": json.Number("1")},
		"d": json.Number("7"), "e": json.Number("2"), "b": true, "other": map[string]any{"quote": "\"\x00\x7f\t"},
		"nested": map[string]any{"deep": map[string]any{"value": "n"}},
	}
	if diff := cmp.Diff(want, value); diff != "" {
		t.Errorf("static facts (-want +got):\n%s", diff)
	}
	e, err := set.prepare(context.Background(), Query)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := e.query.Eval(context.Background(), rego.EvalInput(map[string]any{"command": "ls"}))
	if err != nil || len(rs) != 1 || !reflect.DeepEqual(rs[0].Expressions[0].Value, map[string]any{"decision": "allow", "reasons": []any{"ls-h"}}) {
		t.Errorf("folded decision %v, %v", rs, err)
	}
}

// checkStaticFolds fails t when data.skillsh.static of set, folded,
// differs from its value as written for one of inputs, and returns the
// value.
func checkStaticFolds(t *testing.T, set *policySet, inputs []*Input) map[string]any {
	t.Helper()
	ctx := context.Background()
	const query = "x := data.skillsh.static"
	written, err := set.prepareModules(ctx, query, set.modules, inmem.NewFromObject(set.data))
	if err != nil {
		t.Fatal(err)
	}
	folded, err := set.prepare(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	var value map[string]any
	for _, in := range inputs {
		var got [2]any
		for i, q := range []rego.PreparedEvalQuery{written.query, folded.query} {
			rs, err := q.Eval(ctx, rego.EvalInput(in))
			if err != nil || len(rs) != 1 {
				t.Fatalf("%q: %v %v", in.Command, rs, err)
			}
			got[i] = rs[0].Bindings["x"]
		}
		if diff := cmp.Diff(got[0], got[1]); diff != "" {
			t.Errorf("data.skillsh.static for %q, as written and folded (-written +folded):\n%s", in.Command, diff)
		}
		value, _ = got[1].(map[string]any)
	}
	return value
}

// foldedRules folds set's static package and returns the documents (a,
// a.b) folded into constants and those kept as written, functions left
// out.
func foldedRules(t *testing.T, set *policySet) (folded, kept map[string]bool) {
	t.Helper()
	modules, err := foldStatic(context.Background(), set.modules, inmem.NewFromObject(set.data))
	if err != nil {
		t.Fatal(err)
	}
	folded, kept = map[string]bool{}, map[string]bool{}
	for name, m := range modules {
		if !m.Package.Path.Equal(staticRef) {
			continue
		}
		constants := strings.HasSuffix(name, " (folded)")
		for _, r := range m.Rules {
			if constants && !r.Head.Value.IsGround() {
				t.Errorf("%s: %v is not a constant", name, r)
			}
			if len(r.Head.Args) == 0 {
				map[bool]map[string]bool{true: folded, false: kept}[constants][r.Head.Ref().GroundPrefix().String()] = true
			}
		}
	}
	return folded, kept
}

// writeModules writes files (name → content) into a new directory.
func writeModules(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestStaticWithLayers: with the example organisation and project layers
// loaded, the layers' reasons read input, so they are kept as written and
// still refuse; the decisions are those of every rule evaluated as
// written.
func TestStaticWithLayers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	set, err := loadPolicies(engineOptions{paths: []string{"../rego/examples/org", "../rego/examples/project"}})
	if err != nil {
		t.Fatal(err)
	}
	store := inmem.NewFromObject(set.data)
	if folded, kept := foldedRules(t, set); len(kept) != 1 || !kept["layer_reasons"] || !folded["plain_programs"] {
		t.Errorf("folded %v, kept %v; want only layer_reasons kept as written", folded, kept)
	}
	e, err := set.prepare(ctx, Query)
	if err != nil {
		t.Fatal(err)
	}
	written, err := set.prepareModules(ctx, fullQuery, set.modules, store)
	if err != nil {
		t.Fatal(err)
	}
	facts := testFacts(t)
	for src, code := range map[string]string{"python3 -c 'print(1)'": "org.inline_code", "rm notes.txt": "project.rm_in_workspace", "ls": ""} {
		d, err := e.Decide(ctx, build(t, src, facts))
		if err != nil {
			t.Fatal(err)
		}
		if got := codes(d); (code == "") != (d.Verdict == Allow) || code != "" && !slices.Contains(got, code) {
			t.Errorf("%q: %v %v; want %q", src, d.Verdict, got, code)
		}
		want, err := written.Decide(ctx, build(t, src, facts))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, d); diff != "" {
			t.Errorf("%q: folded and as written differ (-written +folded):\n%s", src, diff)
		}
	}
}

// TestStaticFoldsWhenSomeRuleFails: a rule kept as written may fail
// without input (two values, here); the others are still folded, one at a
// time.
func TestStaticFoldsWhenSomeRuleFails(t *testing.T) {
	t.Parallel()
	dir := writeModules(t, map[string]string{
		"main.rego":   "package skillsh.main\n\nimport data.skillsh.static\n\ndecision := {\"decision\": \"allow\", \"reasons\": []} if static.k == 5\n",
		"static.rego": "package skillsh.static\n\nk := 5\n\nw := 1 if not input.command\n\nw := 2 if not input.version\n",
	})
	set, err := loadPolicies(engineOptions{noDefault: true, paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if folded, kept := foldedRules(t, set); len(folded) != 1 || !folded["k"] || len(kept) != 1 || !kept["w"] {
		t.Errorf("folded %v, kept %v; want k folded and w kept", folded, kept)
	}
	e, err := set.prepare(context.Background(), Query)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := e.Decide(context.Background(), &Input{Version: InputVersion, Command: "ls"}); err != nil || d.Verdict != Allow {
		t.Errorf("decision %v, %v", d, err)
	}
}

// TestStaticFoldsOnlyWhatIsSafe: what could make a folded constant differ
// from the rules as written is not folded: with replacing data anywhere
// in the policy, a builtin that compares with the current time, a rule
// that fails to evaluate; and folding keeps each kept rule's imports,
// and a rule's own path beside data under the package.
func TestStaticFoldsOnlyWhatIsSafe(t *testing.T) {
	t.Parallel()
	allowIf := func(cond string) string {
		return "package skillsh.main\n\nimport data.skillsh.static\n\ndecision := {\"decision\": \"allow\", \"reasons\": []} if " + cond + "\n"
	}
	tests := map[string]struct {
		files        map[string]string
		folded, kept string
	}{
		"with data": {map[string]string{
			"main.rego":   allowIf("static.mode == \"allow\" with data.cfg.mode as \"allow\""),
			"static.rego": "package skillsh.static\n\nmode := data.cfg.mode\n",
			"data.json":   `{"cfg": {"mode": "deny"}}`,
		}, "", "mode"},
		"with function": {map[string]string{
			"main.rego":   allowIf("static.n == 2 with count as f\n\nf(_) := 2"),
			"static.rego": "package skillsh.static\n\nn := count([1])\n",
		}, "", "n"},
		"time": {map[string]string{
			"main.rego":   allowIf("static.k == 1"),
			"static.rego": "package skillsh.static\n\nk := 1\n\nvalid if crypto.x509.parse_and_verify_certificates(\"x\")[0]\n",
		}, "k", "valid"},
		"failing": {map[string]string{
			"main.rego":   allowIf("static.k == 1"),
			"static.rego": "package skillsh.static\n\nk := 1\n\nbad := 1\n\nbad := 2 if true\n",
		}, "k", "bad"},
		"imports": {map[string]string{
			"main.rego":    allowIf("static.f(1) == \"rule\""),
			"one.rego":     "package skillsh.one\n\nv := \"import\"\n",
			"static.rego":  "package skillsh.static\n\nimport data.skillsh.one as h\n\nk := h.v\n",
			"static2.rego": "package skillsh.static\n\nh := {\"v\": \"rule\"}\n\nf(_) := h.v\n",
		}, "h k", ""},
		"path beside data": {map[string]string{
			"main.rego":   allowIf("static.a.b == 2"),
			"static.rego": "package skillsh.static\n\na.b := 2\n",
			"data.json":   `{"skillsh": {"static": {"a": {"c": 3}}}}`,
		}, "a.b", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			set, err := loadPolicies(engineOptions{noDefault: true, paths: []string{writeModules(t, tc.files)}})
			if err != nil {
				t.Fatal(err)
			}
			folded, kept := foldedRules(t, set)
			if got := strings.Join(slices.Sorted(maps.Keys(folded)), " "); got != tc.folded {
				t.Errorf("folded %q, want %q", got, tc.folded)
			}
			if got := strings.Join(slices.Sorted(maps.Keys(kept)), " "); got != tc.kept {
				t.Errorf("kept %q, want %q", got, tc.kept)
			}
			e, err := set.prepare(context.Background(), Query)
			if err != nil {
				t.Fatal(err)
			}
			if d, err := e.Decide(context.Background(), &Input{Version: InputVersion, Command: "ls"}); err != nil || d.Verdict != Allow {
				t.Errorf("decision %v, %v; want allow, as written", d, err)
			}
		})
	}
}
