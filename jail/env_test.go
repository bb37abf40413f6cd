package jail

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEnvironment(t *testing.T) {
	t.Parallel()
	host := []string{
		"AWS_SECRET_ACCESS_KEY=hunter2", "PATH=/root/.pyenv/shims:/usr/bin", "HOME=/root",
		"LC_ALL=de_DE.UTF-8", "TZ=UTC", "GITHUB_TOKEN=x", "GITHUB_TOKEN=y", "noequals", "TERM=xterm",
	}
	env, withheld := Environment(host, "/ws")
	wantEnv := []string{
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_KEY_0=safe.bareRepository", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_VALUE_0=explicit", "GIT_PAGER=cat", "HOME=/ws", "LANG=C.UTF-8", "LC_ALL=de_DE.UTF-8", "NO_COLOR=1",
		"PAGER=cat", "PATH=/usr/local/bin:/usr/bin:/bin", "PYTHONNOUSERSITE=1", "TERM=dumb", "TMPDIR=/ws/.tmp", "TZ=UTC",
	}
	if diff := cmp.Diff(wantEnv, env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	wantHeld := []string{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"}
	if diff := cmp.Diff(wantHeld, withheld); diff != "" {
		t.Errorf("withheld (-want +got):\n%s", diff)
	}
	env, _ = Environment([]string{"LANG=fr_FR.UTF-8"}, "/ws")
	if !slices.Contains(env, "LANG=fr_FR.UTF-8") {
		t.Errorf("host LANG not kept: %q", env)
	}
}
