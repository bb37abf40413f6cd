# METADATA
# title: skillsh static facts
# description: |
#   What the policy and its data say before any command is seen: the merged
#   configuration, the programs and builtins a plain command may run,
#   whether jail profiles are configured, and the layers' reasons when no
#   layer has rules. When the engine loads the policy, it evaluates each
#   rule here that reads no input and calls no builtin whose answer can
#   change (time, random numbers, http.send), and compiles the policy with
#   the rule replaced by its value: the rules that use these facts pay a
#   lookup, not the work. Functions, and rules that do read input (the
#   layers' reasons when a layer has rules), are kept as written.
#   Evaluated any other way (opa eval, opa test, skillsh policy test) the
#   package is evaluated like any other, to the same values. A Go test
#   checks that with the default policy alone every rule here is folded.
package skillsh.static

import data.skillsh.lib

# config is lib.config: the default configuration, then the project
# layer's, then the organisation's.
config := lib.config

# plain_keys are the allowlist entry keys that describe options, which
# words are text, and which options or operands make a program write or
# run something: a command of such a program is plain when it gives none
# of those options and no such operand (skillsh.plain's _judged_use). An
# interpreter is plain running a script file without options. Any other
# key (paths, shell, wrapper, find, ...) is read by some rule, so its
# program is never plain.
plain_keys := {
	"short_args", "long_args", "pair_args", "optional_args", "flags", "posix", "abbrev",
	"text_options", "pattern_operand", "pattern_options", "text",
	"deny_options", "write_options", "last_write",
	"interpreter", "inline_options", "module_options",
}

# printing_builtins are the builtins that only print, test or do nothing:
# no rule of the default is about them (printf -v and read assign, cd
# moves, declare, trap and the like have rules of their own).
printing_builtins := {":", "true", "false", "echo", "pwd", "test", "[", "[["}

# judged_names are the base names that some rule of skillsh.shell or
# skillsh.escapes judges by name, whatever the command's entry says (a
# layer's entry for rm, a skill's script named declare): never plain. A Go
# test checks that those rules name no other.
judged_names := {
	"cd", "pushd", "env", "export", "declare", "typeset", "local", "readonly", "let", "nameref",
	"read", "mapfile", "readarray", "getopts", "printf", "unset", "alias", "hash", "enable", "trap",
	"find", "rm", "sed", "awk", "gawk", "mawk", "nawk", "tar", "unzip", "git", "perl", "node",
}

# plain_programs maps each program a plain command may run through PATH
# to its allowlist entry (the project layer's when it has one): an entry
# with only plain keys (plain_keys), for a program that no rule
# judges by name (judged_names), that is not refused outright and
# that the configuration does not ask about.
plain_programs[name] := spec if {
	some name in _program_names
	not _unplain(name)
	spec := lib.program_spec(name)
}

# free_programs are the plain_programs whose entry has none of the keys
# that make some uses of a program judged (an option that runs or writes,
# an output operand, an interpreter's inline code): a command of theirs is
# plain whatever its options and operands.
free_programs contains name if {
	some name, spec in plain_programs
	count(object.keys(spec) & _use_keys) == 0
}

# script_interpreters are the plain_programs that are interpreters without
# an output operand: a command of theirs with no option and a script file
# as its first operand is plain.
script_interpreters contains name if {
	some name, spec in plain_programs
	spec.interpreter
	not spec.last_write
}

_use_keys := {"deny_options", "write_options", "last_write", "interpreter"}

# unplain_names are the base names under which no command is plain,
# whatever runs it (a program, or a skill's script of that name): judged
# by name, refused outright, asked about, or with an allowlist entry that
# has a key some rule reads.
unplain_names contains name if some name in judged_names

unplain_names contains name if some name, _ in data.skillsh.network_programs

unplain_names contains name if some name, _ in data.skillsh.privilege_programs

unplain_names contains name if some name, _ in data.skillsh.interactive_programs

unplain_names contains name if some name, _ in config.ask.programs

unplain_names contains name if {
	some name in _program_names
	not _plain_entry(lib.program_spec(name))
}

_plain_entry(spec) if {
	is_object(spec)
	count(object.keys(spec) - plain_keys) == 0
}

_unplain(name) if unplain_names[name]

_program_names contains name if some name, _ in data.skillsh.programs

_program_names contains name if some name, _ in data.skillsh.layers.project.programs

# plain_builtins are the printing_builtins that the allowlist allows.
plain_builtins contains name if {
	some name in printing_builtins
	lib.builtin_spec(name)
	not _unplain(name)
}

# profiles_configured holds when some layer configures a jail profile
# (skillsh.profile).
profiles_configured if some _ in data.skillsh.profiles.programs

profiles_configured if some _ in data.skillsh.profiles.scripts

profiles_configured if data.skillsh.layers.project.profiles

# layer_reasons are the reasons of the organisation's and the project's
# rules (skillsh.org, skillsh.project: deny and ask; a layer without a
# package adds none). With no layer rules loaded they read no input, and
# the engine folds them to the empty set; a loaded layer's rules are
# evaluated per decision.
layer_reasons contains r if some r in data.skillsh.org.deny

layer_reasons contains r if some r in data.skillsh.org.ask

layer_reasons contains r if some r in data.skillsh.project.deny

layer_reasons contains r if some r in data.skillsh.project.ask
