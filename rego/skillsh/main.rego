# METADATA
# title: skillsh decision
# description: |
#   The entrypoint: data.skillsh.main.decision, evaluated with the policy
#   input document as input. It combines the reasons of every layer: the
#   organisation (skillsh.org), the default (skillsh.shell,
#   skillsh.escapes, skillsh.tools) and the project (skillsh.project).
#   Deny wins over ask, ask over allow, and a command that no rule allows is
#   denied: no later layer can lift a denial.
package skillsh.main

import data.skillsh.lib
import data.skillsh.plain
import data.skillsh.profile
import data.skillsh.static

# decision is {"decision": "allow" | "ask" | "deny", "reasons": [...],
# "profile": {...}}; profile is left out when no rule chose one. When every
# command is plain (skillsh.plain), the default's shell and escapes rules
# cannot give a reason, so only the other rules are evaluated; otherwise
# it is full_decision, which evaluates them all.
decision := _allowed if {
	plain.commands
	count(static.layer_reasons) == 0
	count(data.skillsh.tools.deny) == 0
	count(profile.profile) == 0
} else := full_decision

_allowed := {"decision": "allow", "reasons": []}

# full_decision is the decision with every rule evaluated. Its first body
# is the plain allow: no layer's rule gave a reason, the input is well
# formed and every command is allowed, so there is nothing to sort or
# weigh.
full_decision := _allowed if {
	count(_judged) == 0
	_wellformed
	count(data.skillsh.shell.unallowed) == 0
	count(profile.profile) == 0
} else := {"decision": verdict, "reasons": reasons, "profile": profile.profile} if {
	count(profile.profile) > 0
} else := {"decision": verdict, "reasons": reasons}

# reasons are sorted: deny first, then ask; by command; by code.
reasons := [x[5] | some x in sort([array.concat(_sort_key(r), [r]) | some r in _reasons])]

_sort_key(r) := [object.get(_rank, object.get(r, "verdict", "deny"), 0), object.get(r, "command", -1), object.get(r, "code", ""), object.get(r, "message", ""), object.get(r, "span", {})]

_rank := {"deny": 0, "ask": 1}

# verdict: deny wins over ask, ask over allow.
verdict := "deny" if {
	some r in _reasons
	r.verdict == "deny"
} else := "ask" if {
	some r in _reasons
	r.verdict == "ask"
} else := "allow"

_reasons contains r if some r in _judged

_reasons contains r if some r in _fallback

# _judged are the reasons of the layers' rules: the default's, then the
# organisation's and the project's (a layer without a package adds none).
_judged contains r if some r in data.skillsh.shell.deny

_judged contains r if some r in data.skillsh.escapes.deny

_judged contains r if some r in data.skillsh.escapes.ask

_judged contains r if some r in data.skillsh.tools.deny

_judged contains r if some r in static.layer_reasons

# METADATA
# title: Malformed input
# description: |
#   An input whose roots are not what the schema says (skills a list of
#   paths, workspace a path), or with a command without its options fact:
#   the rules that confine paths and judge options cannot judge it, so it
#   is denied rather than let through.
# custom:
#   code: input.malformed
#   verdict: deny
_fallback contains lib.reason(
	"input.malformed", "deny", {"index": -1}, {"start": 0, "end": 0, "line": 0, "col": 0},
	sprintf("the policy input is malformed (%s), so nothing is judged safe", [why]),
	"nothing until the caller sends a well-formed input (docs/policy-input.md)",
) if {
	not _wellformed
	some why in _malformed
}

# _wellformed is the quick check that nothing is malformed; _malformed says
# what is, and is evaluated only when something is.
_wellformed if not _some_malformed

_some_malformed if not lib.roots_wellformed(object.get(input, "roots", null))

_some_malformed if {
	some cmd in input.commands
	not lib.options_wellformed(object.get(cmd, "options", null))
}

_malformed contains "roots.skills must be a list of paths, roots.workspace a path" if not lib.roots_wellformed(object.get(input, "roots", null))

_malformed contains sprintf("command %d has no options fact, which the engine fills in", [cmd.index]) if {
	some cmd in input.commands
	not lib.options_wellformed(object.get(cmd, "options", null))
}

# METADATA
# title: No rule allows the command
# description: |
#   A command that no rule allows and no other rule explains is still
#   denied: nothing allowed means deny.
# custom:
#   code: policy.not_allowed
#   verdict: deny
_fallback contains lib.reason(
	"policy.not_allowed", "deny", cmd, cmd.span,
	sprintf("`%s`: no rule allows this command", [lib.command_text(cmd, input.command)]),
	"commands in the program allowlist; `skillsh explain` shows why a command is refused",
) if {
	some i in data.skillsh.shell.unallowed
	not i in _denied_commands
	cmd := input.commands[i]
}

# _denied_commands are the commands some rule denies, with its own reason.
_denied_commands contains r.command if {
	some r in _judged
	r.verdict == "deny"
}

# executables are the programs a jailed program may execute (the jail's
# exec rules): the allowlist, the project's additions, and the helpers
# allowlisted programs start themselves (data.skillsh.helper_programs),
# less what is refused outright. It reads no input.
executables contains name if {
	some name, _ in data.skillsh.programs
	not lib.refused_outright(name)
}

executables contains name if {
	some name, _ in data.skillsh.layers.project.programs
	not lib.refused_outright(name)
}

executables contains name if some name in data.skillsh.helper_programs
