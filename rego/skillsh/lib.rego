# METADATA
# title: skillsh helpers
# description: |
#   Functions shared by the skillsh policies: the merged configuration, the
#   program and builtin allowlist lookups, option arguments and reasons.
#   Nothing here reads input; the rules that use these functions do.
package skillsh.lib

# Configuration: the default data, then the project layer's, then the
# organisation's (which wins).
config := data.skillsh.config if {
	not data.skillsh.layers.project.config
	not data.skillsh.layers.org.config
} else := object.union(object.union(data.skillsh.config, _project_config), _org_config)

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

# refused_outright(name) holds for the programs refused whatever layer
# allows them: network, privilege and interactive programs.
refused_outright(name) if data.skillsh.network_programs[name]

refused_outright(name) if data.skillsh.privilege_programs[name]

refused_outright(name) if data.skillsh.interactive_programs[name]

# roots_wellformed(roots) holds when roots is what the schema says: skills
# a list of absolute paths, workspace an absolute path (startswith is
# undefined for anything but a string).
roots_wellformed(roots) if {
	startswith(roots.workspace, "/")
	is_array(roots.skills)
	not _relative_root(roots.skills)
}

_relative_root(skills) if {
	some s in skills
	not startswith(s, "/")
}

# options_wellformed(o) holds when o is a command's options fact as the
# engine fills it in.
options_wellformed(o) if {
	is_array(o.names)
	is_array(o.operands)
	is_array(o.args)
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

# roots_text(roots) names the roots for messages; without a skills root,
# only the workspace.
roots_text(roots) := sprintf("the skills tree (%s) and the workspace (%s)", [concat(", ", skill_roots(roots)), roots.workspace]) if {
	count(skill_roots(roots)) > 0
} else := sprintf("the workspace (%s)", [roots.workspace])

# skill_roots(roots) is the list of skills roots; none ([]) when the input
# has no list there, so that messages about them are still defined.
skill_roots(roots) := roots.skills if is_array(roots.skills)

else := []

# read_allowed_text(roots) says where reads are allowed.
read_allowed_text(roots) := sprintf(
	"read files under %s (read-only) or %s (read-write), or /dev/null",
	[concat(", ", skill_roots(roots)), roots.workspace],
) if {
	count(skill_roots(roots)) > 0
} else := sprintf("read files under %s (read-write), or /dev/null", [roots.workspace])

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

# option_value(cmd, i) is the argument at argv index i of an option of
# cmd (the part after "=" or after the option letter when attached), or
# the whole word when no option takes it.
option_value(cmd, i) := a.value if {
	some a in cmd.options.args
	a.arg == i
} else := cmd.argv[i].value

# option_values(cmd, names) lists the literal arguments given to any of the
# options in names.
option_values(cmd, names) := [a.value |
	some a in cmd.options.args
	some n in names
	n in a.options
	not cmd.argv[a.arg].dynamic
]
