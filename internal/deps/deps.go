//go:build tools

package deps

import (
	_ "github.com/creack/pty"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/landlock-lsm/go-landlock/landlock"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/open-policy-agent/opa/v1/rego"
	_ "github.com/open-policy-agent/opa/v1/tester"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "golang.org/x/sys/unix"
	_ "gopkg.in/yaml.v3"
	_ "mvdan.cc/sh/v3/interp"
	_ "mvdan.cc/sh/v3/syntax"
)
