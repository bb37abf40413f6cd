package rego

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// typicalInput is `grep -n foo ./notes.txt | sort | head -n 5` as the
// builder and the engine describe it.
const typicalInput = `{"version":1,"phase":"static","command":"grep -n foo ./notes.txt | sort | head -n 5",
"cwd":"/ws","roots":{"skills":["/skills-root"],"workspace":"/ws"},
"session":{"home":"/ws","skills":[],"protections":[]},
"commands":[
{"index":0,"name":"grep","base":"grep","kind":"external","program":"/usr/bin/grep",
 "argv":[{"value":"grep","dynamic":false,"span":{"start":0,"end":4,"line":1,"col":1}},
  {"value":"-n","dynamic":false,"span":{"start":5,"end":7,"line":1,"col":6}},
  {"value":"foo","dynamic":false,"span":{"start":8,"end":11,"line":1,"col":9}},
  {"value":"./notes.txt","dynamic":false,"span":{"start":12,"end":23,"line":1,"col":13}}],
 "assigns":[],"redirects":[],
 "paths":[{"arg":3,"value":"./notes.txt","resolved":"/ws/notes.txt","root":"workspace","root_dir":"/ws","exists":true}],
 "options":{"names":["-n"],"operands":[2,3],"args":[]},
 "context":["pipeline"],"span":{"start":0,"end":23,"line":1,"col":1}},
{"index":1,"name":"sort","base":"sort","kind":"external","program":"/usr/bin/sort",
 "argv":[{"value":"sort","dynamic":false,"span":{"start":26,"end":30,"line":1,"col":27}}],
 "assigns":[],"redirects":[],"paths":[],"options":{"names":[],"operands":[],"args":[]},
 "context":["pipeline"],"span":{"start":26,"end":30,"line":1,"col":27}},
{"index":2,"name":"head","base":"head","kind":"external","program":"/usr/bin/head",
 "argv":[{"value":"head","dynamic":false,"span":{"start":33,"end":37,"line":1,"col":34}},
  {"value":"-n","dynamic":false,"span":{"start":38,"end":40,"line":1,"col":39}},
  {"value":"5","dynamic":false,"span":{"start":41,"end":42,"line":1,"col":42}}],
 "assigns":[],"redirects":[],"paths":[],
 "options":{"names":["-n"],"operands":[],"args":[{"arg":2,"options":["-n"],"value":"5","attached":false}]},
 "context":["pipeline"],"span":{"start":33,"end":42,"line":1,"col":34}}],
"features":{"background":false,"cmdsubst":false,"procsubst":false,"heredoc":false,"eval":false,"coproc":false,
 "functions":[],"opaque":false,"pipeline":true,"subshell":false,"arithmetic":false,"assignments":[]}}`

func prepare(tb testing.TB) rego.PreparedEvalQuery {
	tb.Helper()
	res, err := loader.NewFileLoader().WithFS(FS).WithProcessAnnotation(true).All([]string{"."})
	if err != nil {
		tb.Fatal(err)
	}
	opts := []func(*rego.Rego){
		rego.Query("data.skillsh.main.decision"),
		rego.Store(inmem.NewFromObjectWithOpts(res.Documents, inmem.OptReturnASTValuesOnRead(true))),
		rego.SetRegoVersion(ast.RegoV1),
	}
	for _, m := range res.ParsedModules() {
		opts = append(opts, rego.ParsedModule(m))
	}
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return pq
}

func TestTypicalDecision(t *testing.T) {
	pq := prepare(t)
	var input map[string]any
	if err := json.Unmarshal([]byte(typicalInput), &input); err != nil {
		t.Fatal(err)
	}
	rs, err := pq.Eval(context.Background(), rego.EvalInput(input))
	if err != nil {
		t.Fatal(err)
	}
	got := rs[0].Expressions[0].Value.(map[string]any)
	if got["decision"] != "allow" {
		t.Errorf("decision = %v, want allow: %v", got["decision"], got["reasons"])
	}
}

func BenchmarkDecision(b *testing.B) {
	pq := prepare(b)
	var input map[string]any
	if err := json.Unmarshal([]byte(typicalInput), &input); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := pq.Eval(ctx, rego.EvalInput(input)); err != nil {
			b.Fatal(err)
		}
	}
}
