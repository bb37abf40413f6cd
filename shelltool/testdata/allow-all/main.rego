# METADATA
# title: Allow everything
# description: |
#   A policy that allows every command, so that tests prove what the
#   interpreter's handlers and the jail enforce on their own.
package skillsh.main

decision := {"decision": "allow", "reasons": []}
