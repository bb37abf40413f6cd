# METADATA
# title: Example project layer
# description: |
#   A project layer: it may add denials and asks, and extend the program
#   allowlist through data (data.yaml beside this file). This one refuses
#   rm in the workspace, so that files are only ever moved aside.
package skillsh.project

import data.skillsh.lib

# METADATA
# title: rm refused in this project
# description: Files in this project's workspace are not deleted with rm; move them to ./trash instead.
# custom:
#   code: project.rm_in_workspace
#   verdict: deny
deny contains lib.reason(
	"project.rm_in_workspace", "deny", cmd, cmd.span,
	sprintf("`%s`: this project does not delete files with rm", [lib.command_text(cmd, input.command)]),
	"mv FILE ./trash/",
) if {
	some cmd in input.commands
	cmd.base == "rm"
}
