# METADATA
# title: skillsh helpers
# description: |
#   Functions shared by the skillsh policies: the merged configuration, the
#   program and builtin allowlist lookups, option parsing and reasons.
#   Nothing here reads input; the rules that use these functions do.
package skillsh.lib

# Configuration: the default data, then the project layer's, then the
# organisation's (which wins).
config := object.union(object.union(data.skillsh.config, _project_config), _org_config)

default _project_config := {}

_project_config := data.skillsh.layers.project.config

default _org_config := {}

_org_config := data.skillsh.layers.org.config

# program_spec(base) is the allowlist entry for a program: the project
# layer's entry when it has one, else the default's. Undefined when the
# program is not allowed.
program_spec(base) := spec if {
	spec := data.skillsh.layers.project.programs[base]
} else := spec if {
	spec := data.skillsh.programs[base]
}

# builtin_spec(name) is the entry for a shell builtin.
builtin_spec(name) := spec if {
	spec := data.skillsh.layers.project.builtins[name]
} else := spec if {
	spec := data.skillsh.builtins[name]
}

# within(path, dir) is true when path is dir or below it.
within(path, dir) if path == dir

within(path, dir) if startswith(path, concat("", [trim_suffix(dir, "/"), "/"]))

# within_any(path, dirs) is true when path is within one of dirs.
within_any(path, dirs) if {
	some dir in dirs
	within(path, dir)
}

# dirname(path) is the directory part of an absolute path.
dirname(path) := "/" if {
	regex.match(`^/[^/]*$`, path)
} else := regex.replace(path, `/[^/]*$`, "")

# roots_text(roots) names the roots for messages.
roots_text(roots) := sprintf("the skills tree (%s) and the workspace (%s)", [concat(", ", skill_roots(roots)), roots.workspace])

# skill_roots(roots) is the list of skills roots; none ([]) when the input
# has no list there, so that messages about them are still defined.
skill_roots(roots) := roots.skills if is_array(roots.skills)

else := []

# read_allowed_text(roots) says where reads are allowed.
read_allowed_text(roots) := sprintf(
	"read files under %s (read-only) or %s (read-write), or /dev/null",
	[concat(", ", skill_roots(roots)), roots.workspace],
)

# write_allowed_text(roots) says where writes are allowed.
write_allowed_text(roots) := sprintf("write files under the workspace %s", [roots.workspace])

# word_text(word, command) is a word for a message: its value, or the text
# it was written as when it is dynamic.
word_text(word, _) := word.value if not word.dynamic

word_text(word, command) := substring(command, word.span.start, word.span.end - word.span.start) if word.dynamic

# command_text(cmd, command) is the command line for a message, cut to 120
# characters.
command_text(cmd, command) := _clip(concat(" ", array.concat(
	[sprintf("%s=%s", [a.name, a.value]) | some a in cmd.assigns],
	[word_text(w, command) | some w in cmd.argv],
)))

_clip(s) := concat("", [substring(s, 0, 117), "..."]) if {
	count(s) > 120
} else := s

# reason builds one reason about cmd, at span.
reason(code, verdict, cmd, span, message, allowed) := {
	"code": code,
	"verdict": verdict,
	"message": message,
	"allowed": allowed,
	"command": cmd.index,
	"span": span,
}

# arg_span(cmd, i) is the span of argv[i], or of the command when i is not
# an argv index (a redirection).
arg_span(cmd, i) := cmd.argv[i].span

arg_span(cmd, i) := cmd.span if not cmd.argv[i]

# parse(argv, spec) parses the options of one command the way getopt does,
# guided by the program's spec (short_args, optional_args, long_args,
# posix, abbrev). It returns:
#   options   the set of options given ("-r", "--recursive"); a cluster
#             "-rf" gives "-r" and "-f"; an abbreviated long option gives
#             every option it may stand for
#   operands  the argv indices of the operands, in order
#   values    argv index -> set of options whose argument is at that index
#             (the next word, or the word itself for --opt=value and -ovalue)
#   attached  the indices in values whose word holds the option too
# Dynamic words are operands: only the exec phase knows what they are.
parse(argv, spec) := {"options": set(), "operands": [i | some i, _ in argv; i > 0], "values": {}, "attached": set()} if {
	not _has_option_word(argv)
} else := _parse(argv, spec)

_has_option_word(argv) if {
	some i, w in argv
	i > 0
	_is_option(w)
}

_parse(argv, spec) := {"options": options, "operands": operands, "values": values, "attached": attached} if {
	needs := [_needs(i, w, spec) | some i, w in argv]
	consumed := {i | some i, _ in argv; _consumed(needs, i)}
	end := _end(argv, consumed, spec)
	optwords := {i | some i, w in argv; i > 0; i < end; not i in consumed; _is_option(w)}
	options := {name | some i in optwords; some name in _names(argv[i].value, spec)}
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
		{i: _arg_names(argv[i - 1].value, spec) | some i in consumed},
	)
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
	some name in long_names(substring(w.value, 2, -1), spec)
	substring(name, 2, -1) in object.get(spec, "long_args", [])
}

_takes_next(w, spec) if {
	_is_option(w)
	not startswith(w.value, "--")
	p := _arg_pos(w.value, spec)
	p == count(w.value) - 1
	contains(object.get(spec, "short_args", ""), substring(w.value, p, 1))
}

# A word is an option's argument when the run of argument-taking words
# before it has odd length: the first of the run takes the second, the third
# takes the fourth, and so on.
_consumed(needs, i) if {
	needs[i - 1]
	j := max({k | some k, b in needs; k < i; b == false})
	((i - 1) - j) % 2 == 1
}

# _arg_pos(v, spec) is the position in the cluster -abc of the first option
# that takes an argument.
_arg_pos(v, spec) := min({k |
	some k, c in split(v, "")
	k > 0
	_takes_arg(c, spec)
})

_takes_arg(c, spec) if contains(object.get(spec, "short_args", ""), c)

_takes_arg(c, spec) if contains(object.get(spec, "optional_args", ""), c)

# long_names(given, spec) is the set of long options ("--name") that the
# given name (without --) stands for.
long_names(given, spec) := {concat("", ["--", given])} if {
	given in _known_long(spec)
} else := {concat("", ["--", k]) | some k in _known_long(spec); startswith(k, given)} if {
	spec.abbrev
	given != ""
	some k in _known_long(spec)
	startswith(k, given)
} else := {concat("", ["--", given])}

_known_long(spec) := (({k | some k in object.get(spec, "long_args", [])} | {k | some k in object.get(spec, "flags", [])}) | {substring(o, 2, -1) |
	some key in ["text_options", "write_options", "target_options", "inplace_options", "pattern_options", "inline_options", "module_options"]
	some o in object.get(spec, key, [])
	startswith(o, "--")
}) | {substring(o, 2, -1) |
	some o, _ in object.get(spec, "deny_options", {})
	startswith(o, "--")
}

# _names(v, spec) is the set of options in one option word.
_names(v, spec) := long_names(_long_name(v), spec) if startswith(v, "--")

_names(v, spec) := {concat("", ["-", c]) | some c in split(substring(v, 1, _cluster_len(v, spec)), "")} if {
	not startswith(v, "--")
}

_long_name(v) := split(substring(v, 2, -1), "=")[0]

# _cluster_len is how many option characters a cluster holds: up to and
# including the first one that takes an argument.
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

_value_names(v, spec) := long_names(_long_name(v), spec) if startswith(v, "--")

_value_names(v, spec) := {concat("", ["-", substring(v, _arg_pos(v, spec), 1)])} if not startswith(v, "--")

_arg_names(v, spec) := long_names(_long_name(v), spec) if startswith(v, "--")

_arg_names(v, _) := {concat("", ["-", substring(v, count(v) - 1, 1)])} if not startswith(v, "--")

# option_value(argv, parsed, spec, i) is the argument at argv index i of
# parsed.values: the part after "=" or after the option letter when it is
# attached, else the whole word.
option_value(argv, parsed, _, i) := argv[i].value if not i in parsed.attached

option_value(argv, parsed, _, i) := substring(v, indexof(v, "=") + 1, -1) if {
	i in parsed.attached
	v := argv[i].value
	startswith(v, "--")
}

option_value(argv, parsed, spec, i) := substring(v, _arg_pos(v, spec) + 1, -1) if {
	i in parsed.attached
	v := argv[i].value
	not startswith(v, "--")
}

# option_values(argv, parsed, spec, names) lists the arguments given to any
# of the options in names.
option_values(argv, parsed, spec, names) := [option_value(argv, parsed, spec, i) |
	some i, given in parsed.values
	some n in names
	n in given
	not argv[i].dynamic
]
