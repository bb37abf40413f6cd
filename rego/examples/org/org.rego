# METADATA
# title: Example organisation layer
# description: |
#   An organisation layer: its denials hold whatever the default and the
#   project layers allow. This one refuses inline interpreter code even
#   when a project turns config.allow_inline_code on, and locks that switch
#   off in data.yaml (data.skillsh.layers.org.config wins over the
#   project's).
package skillsh.org

import data.skillsh.lib

# METADATA
# title: Inline code refused by the organisation
# description: python3 -c, node -e and perl -e are refused whatever a project allows.
# custom:
#   code: org.inline_code
#   verdict: deny
deny contains lib.reason(
	"org.inline_code", "deny", cmd, cmd.span,
	sprintf("`%s`: the organisation does not allow inline %s code", [lib.command_text(cmd, input.command), cmd.base]),
	"a script file under the workspace",
) if {
	some cmd in input.commands
	cmd.base in {"python3", "python", "node", "perl"}
	some w in cmd.argv
	w.value in {"-c", "-e", "-E", "--eval", "-p", "--print"}
}
