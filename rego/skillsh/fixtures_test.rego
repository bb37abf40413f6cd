# METADATA
# title: Test fixtures
# description: |
#   A small stand-in for the Go builder, so that tests can be written as
#   command lines: doc(["cat a.txt", "rm -r /ws/x"]) is an input document
#   with one simple command per line, roots skills=/skills-root and
#   workspace=/ws, cwd /ws. Words are split on spaces (pass an array of
#   words to keep spaces); "$" makes a word dynamic unless the word is in
#   single quotes, which are removed; leading NAME=value words
#   are assignments; ">", ">>", "<", "2>", "&>" and "<>" take the next word
#   as a redirection target; arguments with a slash or starting with "." or
#   "~" are paths, resolved against /ws.
package skillsh.fixtures_test

roots := {"skills": ["/skills-root"], "workspace": "/ws"}

builtins := {
	"cd", "pushd", "popd", "echo", "printf", "pwd", "test", "[", "true", "false", ":",
	"read", "mapfile", "readarray", "export", "set", "shift", "exit", "return", "wait",
	"type", "command", "builtin", "eval", "source", ".", "alias", "hash", "enable",
	"trap", "declare", "typeset", "local", "readonly", "let", "unset", "getopts",
	"shopt", "exec", "kill", "jobs", "umask", "ulimit", "fc", "history", "compgen",
}

devices := {"/dev/null", "/dev/zero", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr"}

_redirect_ops := {">": ["write", 1], ">>": ["write", 1], "<": ["read", 0], "2>": ["write", 2], "&>": ["write", 1], "<>": ["readwrite", 0]}

# doc(lines) is an input document for the static phase.
doc(lines) := {
	"version": 1,
	"phase": "static",
	"command": concat("; ", [_line_text(l) | some l in lines]),
	"cwd": "/ws",
	"roots": roots,
	"session": {"home": "/ws", "skills": [], "protections": ["landlock"]},
	"commands": [command(i, l, _offset(lines, i)) | some i, l in lines],
	"features": {
		"background": false, "cmdsubst": false, "procsubst": false, "heredoc": false,
		"eval": false, "coproc": false, "functions": [], "opaque": false,
		"pipeline": false, "subshell": false, "arithmetic": false,
		"assignments": [a.name | some i, l in lines; some a in command(i, l, 0).assigns],
	},
}

# exec_doc(line) is an input document for the exec phase.
exec_doc(line) := object.union(doc([line]), {"phase": "exec"})

# with_cmd(d, i, patch) merges patch into command i of document d.
with_cmd(d, i, patch) := object.union(d, {"commands": [c |
	some j, c0 in d.commands
	c := _patched(c0, j, i, patch)
]})

_patched(c, j, i, patch) := object.union(c, patch) if j == i

_patched(c, j, i, _) := c if j != i

_line_text(l) := l if is_string(l)

_line_text(l) := concat(" ", l) if is_array(l)

_words(l) := split(l, " ") if is_string(l)

_words(l) := l if is_array(l)

_offset(lines, i) := sum([n | some j, l in lines; j < i; n := count(_line_text(l)) + 2])

_starts(words, base) := [s | some k, _ in words; s := base + sum([n | some j, w in words; j < k; n := count(w) + 1])]

_span(start, w) := {"start": start, "end": start + count(w), "line": 1, "col": start + 1}

_is_assign(w) if regex.match(`^[A-Za-z_][A-Za-z0-9_]*=`, w)

_is_redirect_op(w) if _redirect_ops[w]

# command(i, line, base) builds command i from a line starting at byte base.
command(i, l, base) := c if {
	words := _words(l)
	starts := _starts(words, base)
	first := min({k | some k, w in words; not _is_assign(w)} | {count(words)})
	redir := {k | some k, w in words; _is_redirect_op(w)} | {t | some k, w in words; _is_redirect_op(w); t := k + 1}
	argv := [_word(w, starts[k]) | some k, w in words; k >= first; not k in redir]
	name := _name(argv)
	c := {
		"index": i,
		"name": name,
		"base": _base(name),
		"kind": _kind(argv, name),
		"program": _program(argv, name),
		"argv": argv,
		"assigns": [_assign(w, starts[k]) | some k, w in words; k < first],
		"redirects": [_redirect(words[k], words[k + 1], starts[k]) | some k, w in words; _is_redirect_op(w)],
		"paths": [p | some a, w in argv; a > 0; p := _arg_path(a, w)],
		"context": [],
		"span": _span(base, _line_text(l)),
	}
}

_name(argv) := "" if count(argv) == 0

_name(argv) := argv[0].value if count(argv) > 0

_base(name) := regex.replace(name, `^.*/`, "")

_kind(argv, _) := "assignment" if count(argv) == 0

_kind(argv, _) := "dynamic" if argv[0].dynamic

_kind(argv, name) := "builtin" if {
	not argv[0].dynamic
	name in builtins
}

_kind(argv, name) := "external" if {
	count(argv) > 0
	not argv[0].dynamic
	not name in builtins
}

_program(argv, name) := "" if {
	count(argv) > 0
	name in builtins
} else := resolve(name) if {
	contains(name, "/")
} else := concat("", ["/usr/bin/", name]) if {
	name != ""
} else := ""

_word(w, start) := {"value": "", "dynamic": true, "expansions": _expansions(w), "span": _span(start, w)} if {
	contains(w, "$")
	not _quoted(w)
}

_word(w, start) := {"value": w, "dynamic": false, "span": _span(start, w)} if {
	not contains(w, "$")
	not _quoted(w)
}

_word(w, start) := {"value": trim(w, "'"), "dynamic": false, "span": _span(start, w)} if _quoted(w)

_quoted(w) if regex.match(`^'.*'$`, w)

_expansions(w) := ["prompt"] if contains(w, "@P}")

_expansions(w) := ["cmdsubst"] if {
	not contains(w, "@P}")
	contains(w, "$(")
}

_expansions(w) := ["param"] if {
	not contains(w, "@P}")
	not contains(w, "$(")
}

_assign(w, start) := {
	"name": split(w, "=")[0],
	"value": substring(w, indexof(w, "=") + 1, -1),
	"dynamic": contains(w, "$"),
	"span": _span(start, w),
}

_redirect(op, target, start) := {
	"op": op,
	"fd": _redirect_ops[op][1],
	"access": _redirect_ops[op][0],
	"path": path(-1, target),
	"span": _span(start, concat(" ", [op, target])),
}

_arg_path(a, w) := path(a, w.value) if {
	not w.dynamic
	not startswith(w.value, "-")
	_pathlike(w.value)
}

_arg_path(a, w) := path(a, substring(w.value, indexof(w.value, "=") + 1, -1)) if {
	not w.dynamic
	startswith(w.value, "--")
	contains(w.value, "=")
	contains(substring(w.value, indexof(w.value, "=") + 1, -1), "/")
}

_arg_path(a, w) := {"arg": a, "value": "", "resolved": "", "root": "", "exists": false, "dynamic": true} if w.dynamic

_pathlike(v) if contains(v, "/")

_pathlike(v) if startswith(v, ".")

_pathlike(v) if startswith(v, "~")

# path(arg, value) is a Path fact as the builder makes it.
path(a, v) := {
	"arg": a,
	"value": v,
	"resolved": r,
	"root": _root(r),
	"exists": false,
} if {
	r := resolve(v)
}

_root(r) := "skills" if startswith(concat("", [r, "/"]), "/skills-root/")

_root(r) := "workspace" if startswith(concat("", [r, "/"]), "/ws/")

_root(r) := "device" if r in devices

_root(r) := "" if {
	not startswith(concat("", [r, "/"]), "/skills-root/")
	not startswith(concat("", [r, "/"]), "/ws/")
	not r in devices
}

# resolve(v) makes v absolute against /ws and cleans . and .. (up to three).
resolve(v) := _clean(concat("", ["/ws", substring(v, 1, -1)])) if startswith(v, "~")

resolve(v) := _clean(v) if startswith(v, "/")

resolve(v) := _clean(concat("/", ["/ws", v])) if {
	not startswith(v, "~")
	not startswith(v, "/")
}

_clean(p) := _trim(_up(_up(_up(regex.replace(regex.replace(concat("", [p, "/"]), `/(\./)+`, "/"), `/+`, "/")))))

_up(p) := regex.replace(p, `^/\.\./`, "/") if startswith(p, "/../")

_up(p) := regex.replace(p, `/[^/]+/\.\./`, "/") if not startswith(p, "/../")

_trim(p) := "/" if p == "/"

_trim(p) := trim_suffix(p, "/") if p != "/"
