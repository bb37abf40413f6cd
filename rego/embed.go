// Package rego holds skillsh's default policy: Rego v1 modules and the data
// they read, embedded into the binary.
//
// FS is rooted at this directory. Load it with "." as the root, as
//
//	loader.NewFileLoader().WithFS(rego.FS).WithProcessAnnotation(true).All([]string{"."})
//
// does, so that skillsh/data.yaml lands at data.skillsh (data.skillsh.config,
// data.skillsh.programs, ...) next to the packages skillsh.main,
// skillsh.shell and the others. The entrypoint is the query
// data.skillsh.main.decision with the policy input document
// (policy.Input) as input; it evaluates to
//
//	{"decision": "allow"|"ask"|"deny", "reasons": [...], "profile": {...}}
//
// Layout:
//
//	skillsh/main.rego     package skillsh.main: the decision, combining layers
//	skillsh/lib.rego      package skillsh.lib: configuration, allowlist lookups, reasons
//	skillsh/facts.rego    package skillsh.facts: per-command facts
//	skillsh/shell.rego    package skillsh.shell: allowlist, paths, refusals
//	skillsh/escapes.rego  package skillsh.escapes: program-specific escapes
//	skillsh/tools.rego    package skillsh.tools: per-skill allowed-tools
//	skillsh/profile.rego  package skillsh.profile: jail profiles
//	skillsh/plain.rego    package skillsh.plain: commands no default rule can refuse
//	skillsh/static.rego   package skillsh.static: facts the engine computes once, at load
//	skillsh/data.yaml     data.skillsh: switches and the program allowlist
//
// The organisation and project layers (packages skillsh.org and
// skillsh.project) are not embedded; examples are in examples/. Every rule
// that can refuse a command carries a METADATA annotation with
// custom.code and custom.verdict; docs/writing-policies.md explains how
// to read them.
package rego

import "embed"

// FS holds the default policy modules and data files, without tests.
//
//go:embed skillsh/main.rego skillsh/lib.rego skillsh/facts.rego skillsh/shell.rego
//go:embed skillsh/escapes.rego skillsh/tools.rego skillsh/profile.rego skillsh/plain.rego
//go:embed skillsh/static.rego
//go:embed skillsh/data.yaml
var FS embed.FS

// InputSchema is the JSON Schema (draft-07) of the policy input document,
// input.schema.json. The policies are type-checked against it:
//
//	opa check --strict --schema rego/input.schema.json rego/skillsh
//
//go:embed input.schema.json
var InputSchema []byte

// TestFiles holds the Rego tests of the default policy (skillsh/*_test.rego),
// rooted like FS, for `skillsh policy test`.
//
//go:embed skillsh/*_test.rego
var TestFiles embed.FS
