# METADATA
# title: skillsh plain commands
# description: |
#   The short way to an allow. A plain command is one that no rule of the
#   default's skillsh.shell and skillsh.escapes can refuse or ask about:
#   an allowlisted program found through PATH whose entry only describes
#   its options (static.plain_keys), an interpreter running a script file, a
#   skill's script, or one of static.plain_builtins; with literal words, no
#   assignments, no redirections, no wrapper, and every path-like
#   argument inside the skills tree or the workspace. When every command
#   is plain,
#   skillsh.main does not evaluate those rules; the allowed-tools rules
#   and the organisation's and the project's rules are still evaluated.
#   A rule added to skillsh.shell or skillsh.escapes must keep that true:
#   the Go tests decide every corpus command and fuzz input both ways
#   (data.skillsh.main.decision and data.skillsh.main.full_decision) and
#   fail on any difference.
package skillsh.plain

import data.skillsh.shell
import data.skillsh.static

# commands holds when every command of the input is plain, no assignment
# hides anywhere (arithmetic, read), and the input is well formed. The
# checks of lib.roots_wellformed and lib.options_wellformed are written
# out here and in _plain: a call per command cost a tenth of a plain
# decision. plain_test.rego holds them to the same inputs. What depends
# on the command's name alone (its entry, static.judged_names, the programs
# refused outright or asked about) is looked up in skillsh.static.
commands if {
	startswith(input.roots.workspace, "/")
	is_array(input.roots.skills)
	not _some_unplain
}

_some_unplain if {
	some s in input.roots.skills
	not startswith(s, "/")
}

_some_unplain if {
	some cmd in input.commands
	not _plain(cmd)
}

_some_unplain if count(input.features.assignments) > 0

_plain(cmd) if {
	is_array(cmd.options.names)
	is_array(cmd.options.operands)
	is_array(cmd.options.args)
	_plain_kind(cmd.kind, cmd)
	count(cmd.assigns) == 0
	count(cmd.redirects) == 0
	object.get(cmd, "opaque", "") == ""
	not cmd.wrapper
	not _judged_word(cmd)
}

# A program found through PATH, with the entry static.plain_programs
# gives it. The first two bodies are quick ways to the answer of the
# third for the programs most commands run.
_plain_kind("external", cmd) if {
	not contains(cmd.name, "/")
	static.free_programs[cmd.base]
} else if {
	not contains(cmd.name, "/")
	static.script_interpreters[cmd.base]
	count(cmd.options.names) == 0
	cmd.argv[cmd.options.operands[0]].value != "-"
} else if {
	not contains(cmd.name, "/")
	spec := static.plain_programs[cmd.base]
	not _judged_use(cmd, spec)
}

# A skill's script run by its path, judged with the entry of its name if
# there is one (what skillsh.facts.spec says): a script named python3 is
# judged as python3 is.
_plain_kind("external", cmd) if {
	contains(cmd.name, "/")
	not static.unplain_names[cmd.base]
	shell.runs_root_script(cmd)
	not _judged_script_use(cmd)
}

# A script with an entry's name is judged by that entry; other scripts'
# entry is {}, which judges no use.
_judged_script_use(cmd) if _judged_use(cmd, static.plain_programs[cmd.base])

_plain_kind("builtin", cmd) if static.plain_builtins[cmd.base]

# _judged_use: an option given that runs a program or writes (sort
# --compress-program, sort -o), uniq's output operand, or an interpreter
# with options or without a script file.
_judged_use(cmd, spec) if {
	spec.deny_options
	some o in cmd.options.names
	spec.deny_options[o]
}

_judged_use(cmd, spec) if {
	spec.write_options
	some o in cmd.options.names
	o in spec.write_options
}

_judged_use(cmd, spec) if {
	spec.last_write
	count(cmd.options.operands) > 1
}

_judged_use(cmd, spec) if {
	spec.interpreter
	count(cmd.options.names) > 0
}

_judged_use(cmd, spec) if {
	spec.interpreter
	count(cmd.options.operands) == 0
}

_judged_use(cmd, spec) if {
	spec.interpreter
	cmd.argv[cmd.options.operands[0]].value == "-"
}

# _judged_word: a word known only at run time, or a path outside the
# skills tree and the workspace.
_judged_word(cmd) if {
	some w in cmd.argv
	w.dynamic
}

_judged_word(cmd) if {
	some p in cmd.paths
	not p.root in {"skills", "workspace"}
}

_judged_word(cmd) if {
	some p in cmd.paths
	p.dynamic
}

# /dev/tcp/h/80/../../ws/x resolves into the workspace, but names a
# network device (network.dev_tcp).
_judged_word(cmd) if {
	some p in cmd.paths
	shell.network_device(p)
}
