# METADATA
# title: skillsh allowed-tools pack
# description: |
#   Opt-in (config.enforce_allowed_tools): a command that runs a skill's
#   script, or runs while the working directory is inside a skill, must
#   match one of that skill's allowed-tools patterns from SKILL.md
#   (input.session.skills[].allowed_tools): Bash(python3:*) allows python3
#   with any arguments, Bash(git status:*) git status with any, Bash(ls)
#   exactly ls, Bash(*) and Bash anything. shell, the name of this tool,
#   is the same as Bash (shell and shell(python3:*) too). A skill without
#   allowed-tools is not restricted.
package skillsh.tools

import data.skillsh.facts
import data.skillsh.lib
import data.skillsh.static

# _skill_of[i] contains the skills whose rules apply to command i.
_skill_of[cmd.index] contains skill if {
	some cmd in input.commands
	some skill in input.session.skills
	count(skill.allowed_tools) > 0
	_touches(cmd, skill)
}

# The command runs a script of the skill: its program, or its first path
# argument for an interpreter.
_touches(cmd, skill) if lib.within(cmd.program, skill.dir)

_touches(cmd, skill) if {
	facts.spec[cmd.index].interpreter
	some p in cmd.paths
	p.arg == facts.parsed[cmd.index].operands[0]
	lib.within(p.resolved, skill.dir)
}

# The command runs inside the skill's directory.
_touches(_, skill) if lib.within(input.cwd, skill.dir)

# _bash_patterns(tools) are the Bash(...) patterns of an allowed-tools list,
# as lists of words; ["*"] allows everything.
_bash_patterns(tools) := {_pattern_words(inner) |
	some t in tools
	some inner in _bash_inner(t)
}

_bash_inner(t) := {"*"} if t in _tool_names

_bash_inner(t) := {m[1] | some m in regex.find_all_string_submatch_n(`^(?:Bash|shell)\((.*)\)$`, t, 1)} if not t in _tool_names

# The names a skill may give the shell tool: Bash, as other agents call
# it, or shell, as skillsh does.
_tool_names := {"Bash", "shell"}

_pattern_words(inner) := ["*"] if inner == "*"

_pattern_words(inner) := {"prefix": split(trim_space(trim_suffix(inner, ":*")), " ")} if {
	inner != "*"
	endswith(inner, ":*")
}

_pattern_words(inner) := {"exact": split(trim_space(inner), " ")} if {
	inner != "*"
	not endswith(inner, ":*")
}

_matches(_, _, ["*"])

_matches(cmd, skill, pattern) if {
	words := pattern.prefix
	count(cmd.argv) >= count(words)
	_words_match(cmd, skill, words)
}

_matches(cmd, skill, pattern) if {
	words := pattern.exact
	count(cmd.argv) == count(words)
	_words_match(cmd, skill, words)
}

_words_match(cmd, skill, words) if {
	_program_matches(cmd, skill, words[0])
	every k, w in words {
		_word_matches(cmd, k, w)
	}
}

_word_matches(_, 0, _)

_word_matches(cmd, k, w) if {
	k > 0
	cmd.argv[k].value == w
}

_program_matches(cmd, _, w) if w in {cmd.name, cmd.base}

_program_matches(cmd, skill, w) if cmd.program == concat("/", [skill.dir, trim_prefix(w, "./")])

_allowed_by(cmd, skill) if {
	some pattern in _bash_patterns(skill.allowed_tools)
	_matches(cmd, skill, pattern)
}

# Assignments, functions and the builtins that only print or move are not
# tools a skill has to list.
_exempt(cmd) if cmd.kind in {"assignment", "function"}

_exempt(cmd) if {
	cmd.kind == "builtin"
	cmd.base in {"cd", "echo", "printf", "pwd", "true", "false", ":", "test", "[", "[["}
}

# METADATA
# title: Not in the skill's allowed-tools
# description: |
#   With config.enforce_allowed_tools, a command that runs a skill's script
#   or runs inside a skill's directory does not match the skill's
#   allowed-tools.
# custom:
#   code: tools.not_allowed
#   verdict: deny
deny contains lib.reason(
	"tools.not_allowed", "deny", cmd, cmd.span,
	sprintf("`%s`: the skill %s allows only %s", [lib.command_text(cmd, input.command), skill.name, concat(" ", skill.allowed_tools)]),
	sprintf("commands matching the allowed-tools of %s: %s", [skill.name, concat(" ", skill.allowed_tools)]),
) if {
	static.config.enforce_allowed_tools
	some cmd in input.commands
	not _exempt(cmd)
	some skill in _skill_of[cmd.index]
	not _allowed_by(cmd, skill)
}
