package jail

import (
	"path/filepath"
	"sort"
	"strings"
)

// SystemPath is the PATH every program gets.
const SystemPath = "/usr/local/bin:/usr/bin:/bin"

// passedVars are the host variables that reach programs unchanged.
var passedVars = map[string]bool{
	"LANG": true, "LANGUAGE": true, "TZ": true,
}

// fixedVars are set for every program, overriding the host.
var fixedVars = []string{
	"PATH=" + SystemPath,
	"TERM=dumb",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"NO_COLOR=1",
	// git reads no system or user configuration: /etc/gitconfig is outside
	// the jail, and a ~/.gitconfig in the workspace could name programs
	// (pagers, aliases, hooks) that git would run.
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_GLOBAL=/dev/null",
	// Nor does it take a directory for a bare repository unless told so
	// with --git-dir: a hand-made one in the workspace would bring its own
	// config file, written like any other file.
	"GIT_CONFIG_COUNT=1",
	"GIT_CONFIG_KEY_0=safe.bareRepository",
	"GIT_CONFIG_VALUE_0=explicit",
	// Python reads no .pth files from ~/.local, which is in the workspace:
	// code planted there would run unseen in every later python3.
	"PYTHONNOUSERSITE=1",
}

// Environment builds a program's environment from the host's (as from
// os.Environ) and the workspace. Only LANG, LANGUAGE, TZ and LC_* pass
// through; on top of them: PATH=/usr/local/bin:/usr/bin:/bin,
// HOME=workspace, TMPDIR=workspace/.tmp, LANG=C.UTF-8 unless the host sets
// it, TERM=dumb, PAGER=cat, GIT_PAGER=cat, NO_COLOR=1, GIT_CONFIG_NOSYSTEM=1,
// GIT_CONFIG_GLOBAL=/dev/null, git's safe.bareRepository=explicit (through
// GIT_CONFIG_COUNT/KEY_0/VALUE_0), PYTHONNOUSERSITE=1. withheld lists the
// names (never the values) of the host variables left out, sorted and
// without duplicates. The result is sorted by name.
func Environment(host []string, workspace string) (env []string, withheld []string) {
	vars := map[string]string{}
	held := map[string]bool{}
	for _, kv := range host {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if passedVars[name] || strings.HasPrefix(name, "LC_") {
			vars[name] = value
			continue
		}
		held[name] = true
	}
	for _, kv := range fixedVars {
		name, value, _ := strings.Cut(kv, "=")
		vars[name] = value
		delete(held, name)
	}
	if workspace != "" {
		vars["HOME"] = workspace
		vars["TMPDIR"] = filepath.Join(workspace, TmpDirName)
		delete(held, "HOME")
		delete(held, "TMPDIR")
	}
	if vars["LANG"] == "" {
		vars["LANG"] = "C.UTF-8"
	}
	return sortedPairs(vars), sortedKeys(held)
}

// TmpDirName is the workspace subdirectory that is the programs' TMPDIR.
const TmpDirName = ".tmp"

func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, k+"="+m[k])
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
