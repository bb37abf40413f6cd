package jail

import (
	"fmt"
	"os"
	"testing"
)

// sharedTmp is a world-searchable directory for the tests' workspaces and
// roots, so that programs running under the dropped uid can reach them.
var sharedTmp string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jailtest")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sharedTmp = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
