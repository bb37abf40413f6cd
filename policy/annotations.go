package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// CheckAnnotations checks that every rule of modules that produces a
// reason with lib.reason(CODE, VERDICT, ...) says so in its METADATA:
// custom.code CODE and custom.verdict VERDICT, so that a refusal can name
// the rule's file and line (see Engine.Rule). No two rules may share a
// code. Modules in files ending in _test.rego are not checked. It returns
// how many rules give reasons, and one message per problem, by file and line; no
// problems means the annotations are complete. modules must be parsed with
// annotations processed, as the engine and the test runner do.
func CheckAnnotations(modules map[string]*ast.Module) (rules int, problems []string) {
	seen := map[string]string{} // code → where
	for _, name := range slices.Sorted(maps.Keys(modules)) {
		if strings.HasSuffix(name, "_test.rego") {
			continue
		}
		for _, r := range modules[name].Rules {
			if _, ok := reasonCall(r); !ok {
				continue
			}
			rules++
			if p := checkRule(r, name, seen); p != "" {
				problems = append(problems, p)
			}
		}
	}
	return rules, problems
}

// checkRule returns the problem with the annotations of a rule that gives
// reasons, or "".
func checkRule(r *ast.Rule, file string, seen map[string]string) string {
	call, _ := reasonCall(r)
	where := fmt.Sprintf("%s:%d", file, r.Location.Row)
	code, verdict := ruleCode(r)
	if code == "" || verdict == "" {
		return where + ": the rule gives reasons but has no METADATA with custom.code and custom.verdict"
	}
	if prev, ok := seen[code]; ok {
		return fmt.Sprintf("%s: code %s is also the code of the rule at %s", where, code, prev)
	}
	seen[code] = where
	if len(call) < 3 || !call[1].Equal(ast.StringTerm(code)) || !call[2].Equal(ast.StringTerm(verdict)) {
		return fmt.Sprintf("%s: METADATA says code %s, verdict %s; the rule gives %s", where, code, verdict, call)
	}
	return ""
}

// reasonCall returns the rule's head when it is a call of lib.reason: the
// element a set rule adds, or a rule's value.
func reasonCall(r *ast.Rule) (ast.Call, bool) {
	term := r.Head.Key
	if term == nil {
		term = r.Head.Value
	}
	if term == nil {
		return nil, false
	}
	call, ok := term.Value.(ast.Call)
	return call, ok && strings.HasSuffix(call[0].String(), "lib.reason")
}

// ruleCode returns the custom code and verdict of the rule's annotations.
func ruleCode(r *ast.Rule) (code, verdict string) {
	for _, a := range r.Annotations {
		if c, ok := a.Custom["code"].(string); ok {
			code = c
		}
		if v, ok := a.Custom["verdict"].(string); ok {
			verdict = v
		}
	}
	return code, verdict
}
