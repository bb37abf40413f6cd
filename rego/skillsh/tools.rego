# METADATA
# title: skillsh allowed-tools pack
# description: |
#   Opt-in (config.enforce_allowed_tools): a command that runs a skill's
#   script, or runs inside a skill's directory, must match one of the
#   skill's allowed-tools patterns (Bash(python3:*)).
package skillsh.tools
