# METADATA
# title: skillsh program escapes
# description: |
#   Rules for allowlisted programs that can run other programs or hidden
#   code through their options or arguments.
package skillsh.escapes

import data.skillsh.facts
import data.skillsh.lib

_text(cmd) := lib.command_text(cmd, input.command)

# METADATA
# title: Option runs a program
# description: |
#   An option listed in the program's deny_options (sort
#   --compress-program, rg --pre, tar --to-command, ...): it makes the
#   program run another program, which the policy cannot see.
# custom:
#   code: exec.option
#   verdict: deny
deny contains lib.reason(
	"exec.option", "deny", cmd, cmd.span,
	sprintf("`%s`: %s", [_text(cmd), why]),
	sprintf("%s without %s", [cmd.base, option]),
) if {
	some cmd in input.commands
	cmd.kind == "external"
	deny_options := facts.spec[cmd.index].deny_options
	some option in facts.parsed[cmd.index].options
	why := deny_options[option]
}
