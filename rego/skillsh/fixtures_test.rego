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
	kind := _kind(argv, name)
	c := {
		"index": i,
		"name": name,
		"base": _base(name),
		"kind": kind,
		"program": _program(argv, name),
		"argv": argv,
		"assigns": [_assign(w, starts[k]) | some k, w in words; k < first],
		"redirects": [_redirect(words[k], words[k + 1], starts[k]) | some k, w in words; _is_redirect_op(w)],
		"paths": [p | some a, w in argv; a > 0; p := _arg_path(a, w)],
		"options": options(argv, _spec(kind, _base(name))),
		"context": [],
		"span": _span(base, _line_text(l)),
	}
}

# _spec is the allowlist entry whose grammar parses the options, as the
# engine chooses it.
_spec(kind, base) := s if {
	kind == "external"
	s := data.skillsh.lib.program_spec(base)
} else := s if {
	kind == "builtin"
	s := data.skillsh.lib.builtin_spec(base)
} else := {}

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

# Option parsing: the engine's option parser (policy.Grammar.Parse) in
# Rego, so that fixture commands carry the same "options" fact as real
# inputs. TestFixtureOptionsMatchGo compares the two over the corpus.

# options(argv, spec) is the "options" fact of a command with that argv,
# parsed with the grammar of its allowlist entry spec.
options(argv, spec) := {
	"names": sort(p.options),
	"operands": p.operands,
	"args": [a |
		some i in sort([k | some k, _ in p.values])
		a := {
			"arg": i,
			"options": sort(p.values[i]),
			"value": _option_value(argv, p, spec, i),
			"attached": i in p.attached,
		}
	],
} if {
	p := _parse(argv, spec)
}

_parse(argv, spec) := {"options": set(), "operands": [i | some i, _ in argv; i > 0], "values": {}, "attached": set()} if {
	not _has_option_word(argv)
} else := _parse_options(argv, spec)

_has_option_word(argv) if {
	some i, w in argv
	i > 0
	_is_option(w)
}

_parse_options(argv, spec) := {"options": opts, "operands": operands, "values": values, "attached": attached} if {
	needs := [_needs(i, w, spec) | some i, w in argv]
	chained := {i | some i, _ in argv; _consumed(needs, i)}
	second := {j |
		some i, w in argv
		i > 0
		not i in chained
		_takes_pair(w, spec)
		j := i + 2
		j < count(argv)
	}
	end := _end(argv, chained | second, spec)
	consumed := {i | some i in (chained | second); i <= end}
	optwords := {i | some i, w in argv; i > 0; i < end; not i in consumed; _is_option(w)}
	opts := {name | some i in optwords; some name in _names(argv[i].value, spec)}
	operands := [i |
		some i, _ in argv
		i > 0
		not i in consumed
		not i in optwords
		not _is_end_marker(argv, i, end)
	]
	attached := {i | some i in optwords; _has_value(argv[i].value, spec)}
	values := object.union(
		{i: _value_names(argv[i].value, spec) | some i in attached},
		object.union(
			{i: _arg_names(argv[i - 1].value, spec) | some i in (consumed - second)},
			{i: _arg_names(argv[i - 2].value, spec) | some i in (consumed & second)},
		),
	)
}

# _takes_pair: a long option of pair_args, given as its own word, takes the
# two words after it (the parity of _consumed counts the first).
_takes_pair(w, spec) if {
	_is_option(w)
	startswith(w.value, "--")
	not contains(w.value, "=")
	some name in _long_names(substring(w.value, 2, -1), spec)
	substring(name, 2, -1) in object.get(spec, "pair_args", [])
}

_is_option(w) if {
	not w.dynamic
	startswith(w.value, "-")
	w.value != "-"
}

_is_end_marker(argv, i, end) if {
	i == end
	argv[i].value == "--"
}

# _end is the index where options end: the first "--" that is not an
# option's argument, or for posix programs the first operand.
_end(argv, consumed, spec) := min({i |
	some i, w in argv
	i > 0
	not i in consumed
	_ends_options(w, spec)
} | {count(argv)})

_ends_options(w, _) if {
	not w.dynamic
	w.value == "--"
}

_ends_options(w, spec) if {
	spec.posix
	not _is_option(w)
}

_needs(i, w, spec) if {
	i > 0
	_takes_next(w, spec)
} else := false

_takes_next(w, spec) if {
	_is_option(w)
	startswith(w.value, "--")
	not contains(w.value, "=")
	some name in _long_names(substring(w.value, 2, -1), spec)
	substring(name, 2, -1) in array.concat(object.get(spec, "long_args", []), object.get(spec, "pair_args", []))
}

_takes_next(w, spec) if {
	_is_option(w)
	not startswith(w.value, "--")
	p := _arg_pos(w.value, spec)
	p == count(w.value) - 1
	contains(object.get(spec, "short_args", ""), substring(w.value, p, 1))
}

# A word is an option's argument when the run of argument-taking words
# before it has odd length.
_consumed(needs, i) if {
	needs[i - 1]
	j := max({k | some k, b in needs; k < i; b == false})
	((i - 1) - j) % 2 == 1
}

_arg_pos(v, spec) := min({k |
	some k, c in split(v, "")
	k > 0
	_takes_arg(c, spec)
})

_takes_arg(c, spec) if contains(object.get(spec, "short_args", ""), c)

_takes_arg(c, spec) if contains(object.get(spec, "optional_args", ""), c)

_long_names(given, spec) := {concat("", ["--", given])} if {
	given in _known_long(spec)
} else := {concat("", ["--", k]) | some k in _known_long(spec); startswith(k, given)} if {
	spec.abbrev
	given != ""
	some k in _known_long(spec)
	startswith(k, given)
} else := {concat("", ["--", given])}

_known_long(spec) := (({k | some k in array.concat(object.get(spec, "long_args", []), object.get(spec, "pair_args", []))} | {k | some k in object.get(spec, "flags", [])}) | {substring(o, 2, -1) |
	some key in ["text_options", "write_options", "target_options", "inplace_options", "pattern_options", "inline_options", "module_options"]
	some o in object.get(spec, key, [])
	startswith(o, "--")
}) | {substring(o, 2, -1) |
	some o, _ in object.get(spec, "deny_options", {})
	startswith(o, "--")
}

_names(v, spec) := _long_names(_long_name(v), spec) if startswith(v, "--")

_names(v, spec) := {concat("", ["-", c]) | some c in split(substring(v, 1, _cluster_len(v, spec)), "")} if {
	not startswith(v, "--")
}

_long_name(v) := split(substring(v, 2, -1), "=")[0]

_cluster_len(v, spec) := _arg_pos(v, spec) if {
	_arg_pos(v, spec)
} else := count(v) - 1

_has_value(v, _) if {
	startswith(v, "--")
	contains(v, "=")
}

_has_value(v, spec) if {
	not startswith(v, "--")
	_arg_pos(v, spec) < count(v) - 1
}

_value_names(v, spec) := _long_names(_long_name(v), spec) if startswith(v, "--")

_value_names(v, spec) := {concat("", ["-", substring(v, _arg_pos(v, spec), 1)])} if not startswith(v, "--")

_arg_names(v, spec) := _long_names(_long_name(v), spec) if startswith(v, "--")

_arg_names(v, _) := {concat("", ["-", substring(v, count(v) - 1, 1)])} if not startswith(v, "--")

_option_value(argv, p, _, i) := argv[i].value if not i in p.attached

_option_value(argv, p, _, i) := substring(v, indexof(v, "=") + 1, -1) if {
	i in p.attached
	v := argv[i].value
	startswith(v, "--")
}

_option_value(argv, p, spec, i) := substring(v, _arg_pos(v, spec) + 1, -1) if {
	i in p.attached
	v := argv[i].value
	not startswith(v, "--")
}
