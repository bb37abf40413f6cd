# METADATA
# title: skillsh plain commands
# description: |
#   The short way to an allow. A plain command is one that no rule of the
#   default's skillsh.shell and skillsh.escapes can refuse or ask about:
#   an allowlisted program found through PATH, whose entry only describes
#   its options (plain_keys), with literal words, no assignments, no
#   redirections, no wrapper, and every path-like argument inside the
#   skills tree or the workspace. When every command is plain,
#   skillsh.main does not evaluate those rules; the allowed-tools rules
#   and the organisation's and the project's rules are still evaluated.
#   A rule added to skillsh.shell or skillsh.escapes must keep that true:
#   the Go tests decide every corpus command and fuzz input both ways
#   (data.skillsh.main.decision and data.skillsh.main.full_decision) and
#   fail on any difference.
package skillsh.plain

import data.skillsh.lib

# plain_keys are the allowlist entry keys that describe options, which
# words are text, and which options or operands make a program write or
# run something: a command of such a program is plain when it gives none
# of those options and no such operand (_judged_option, _writes_last).
# Any other key (paths, interpreter, wrapper, find, ...) is read by some
# rule, so its program is never plain.
plain_keys := {
	"short_args", "long_args", "pair_args", "optional_args", "flags", "posix", "abbrev",
	"text_options", "pattern_operand", "pattern_options", "text",
	"deny_options", "write_options", "last_write",
}

# commands holds when every command of the input is plain, and no
# assignment hides anywhere (arithmetic, read).
commands if not _some_unplain

_some_unplain if {
	some cmd in input.commands
	not _plain(cmd)
}

_some_unplain if count(input.features.assignments) > 0

_plain(cmd) if {
	cmd.kind == "external"
	not contains(cmd.name, "/")
	spec := lib.program_spec(cmd.base)
	count(object.keys(spec) - plain_keys) == 0
	count([o | some o in cmd.options.names; _judged_option(spec, o)]) == 0
	not _writes_last(cmd, spec)
	not lib.refused_outright(cmd.base)
	not lib.config.ask.programs[cmd.base]
	count(cmd.assigns) == 0
	count(cmd.redirects) == 0
	object.get(cmd, "opaque", "") == ""
	not cmd.wrapper
	count([w | some w in cmd.argv; w.dynamic]) == 0
	count([p | some p in cmd.paths; not _inside(p)]) == 0
}

_judged_option(spec, o) if spec.deny_options[o]

_judged_option(spec, o) if o in spec.write_options

# uniq IN OUT writes OUT.
_writes_last(cmd, spec) if {
	spec.last_write
	count(cmd.options.operands) > 1
}

_inside(p) if {
	p.root in {"skills", "workspace"}
	not p.dynamic
}
