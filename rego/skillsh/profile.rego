# METADATA
# title: skillsh jail profiles
# description: |
#   The jail profile a decision carries. data.skillsh.profiles.programs
#   gives a profile per program base name, data.skillsh.profiles.scripts a
#   list of {"pattern": GLOB, "profile": {...}} matched against the script a
#   command runs (the program itself, or an interpreter's script); the
#   project layer's data.skillsh.layers.project.profiles is consulted first.
#   A matching script profile wins over the program's. In the exec phase the
#   profile is the one command's; in the static phase, the field-wise
#   maximum over the commands, so that no command gets less room than its
#   own profile.
package skillsh.profile

import data.skillsh.facts
import data.skillsh.static

# profile is {} or a policy.Profile object; {} without looking at the
# commands when no layer configures a profile.
profile := {k: max(vals) |
	some k in {k | some p in _profiles; some k, _ in p}
	vals := [v | some p in _profiles; v := p[k]]
} if {
	static.profiles_configured
} else := {}

_profiles := [p |
	some cmd in input.commands
	p := _command_profile(cmd)
	count(p) > 0
]

_command_profile(cmd) := object.union(_program_profile(cmd.base), _script_profile(cmd))

_program_profile(base) := p if {
	p := data.skillsh.layers.project.profiles.programs[base]
} else := p if {
	p := data.skillsh.profiles.programs[base]
} else := {}

# The first matching pattern wins, the project's before the default's.
_script_profile(cmd) := matches[0] if {
	matches := [e.profile |
		some path in _script_paths(cmd)
		some e in array.concat(_project_scripts, data.skillsh.profiles.scripts)
		glob.match(e.pattern, ["/"], path)
	]
	count(matches) > 0
} else := {}

default _project_scripts := []

_project_scripts := data.skillsh.layers.project.profiles.scripts

_script_paths(cmd) := {cmd.program} | {p.resolved |
	facts.spec[cmd.index].interpreter
	some p in cmd.paths
	p.arg == facts.parsed[cmd.index].operands[0]
}
