# METADATA
# title: skillsh default shell policy
# description: |
#   The default layer's core rules: which commands are allowed (the program
#   and builtin allowlists in data.skillsh), where they may read and write,
#   and what is refused outright (network, privilege, hidden code, sensitive
#   variables). Program-specific escapes are in skillsh.escapes.
package skillsh.shell

import data.skillsh.facts
import data.skillsh.lib
import data.skillsh.static

# unallowed is the set of command indices no rule allows. Such a command
# is denied by skillsh.main, with the reason of a rule below when one
# explains it.
unallowed contains cmd.index if {
	some cmd in input.commands
	not _allowed(cmd.kind, cmd)
}

# _allowed(kind, cmd): its bodies are tried in order until one holds, so
# the common kinds come first.
_allowed("external", cmd) if {
	lib.program_spec(cmd.base)
	_trusted_location(cmd)
}

_allowed("external", cmd) if runs_root_script(cmd)

_allowed("builtin", cmd) if lib.builtin_spec(cmd.base)

_allowed("assignment", _)

_allowed("function", _)

_allowed("dynamic", _) if static.config.allow_dynamic_program

# deny holds the reasons of the rules below: those about every command,
# written as deny contains ..., and those about one program or builtin,
# written as deny_for.NAME contains .... Only the names in the input are
# looked up, so a command meets its own program's rules and no others.
deny contains r if {
	some cmd in input.commands
	some r in deny_for[cmd.base]
}

# The reasons about commands no rule allows (_unallowed_deny) are worked
# out only when there is such a command.
deny contains r if {
	some _ in unallowed
	some r in _unallowed_deny
}

# A bare name is found through the jail's PATH; a name with a slash must be
# in a system directory.
_trusted_location(cmd) if not contains(cmd.name, "/")

_trusted_location(cmd) if data.skillsh.system_dirs[lib.dirname(cmd.program)]

# runs_root_script(cmd): cmd runs an executable inside the skills tree or
# the workspace (a skill's script) by its path.
runs_root_script(cmd) if {
	contains(cmd.name, "/")
	cmd.program != ""
	lib.within_any(cmd.program, array.concat(input.roots.skills, [input.roots.workspace]))
}

_text(cmd) := lib.command_text(cmd, input.command)

# METADATA
# title: Program not allowed
# description: |
#   A program that is not in the allowlist (data.skillsh.programs, extended
#   by data.skillsh.layers.project.programs) and not a script inside the skills
#   tree or the workspace, or an allowlisted name given as a path outside
#   the system directories.
# custom:
#   code: program.not_allowed
#   verdict: deny
_unallowed_deny contains lib.reason(
	"program.not_allowed", "deny", cmd, cmd.argv[0].span,
	sprintf("`%s`: %s", [_text(cmd), _not_allowed_why(cmd)]),
	"programs in the allowlist (cat, ls, grep, rg, sed, awk, jq, find, python3, ...) or scripts under the skills tree and the workspace",
) if {
	some i in unallowed
	cmd := input.commands[i]
	cmd.kind == "external"
	not lib.refused_outright(cmd.base)
}

_not_allowed_why(cmd) := sprintf("%s is run from %s, outside the system directories", [cmd.base, cmd.program]) if {
	lib.program_spec(cmd.base)
} else := sprintf("%s is not an allowed program", [cmd.name])

# METADATA
# title: Builtin not allowed
# description: A shell builtin that is not in data.skillsh.builtins.
# custom:
#   code: builtin.not_allowed
#   verdict: deny
_unallowed_deny contains lib.reason(
	"builtin.not_allowed", "deny", cmd, cmd.argv[0].span,
	sprintf("`%s`: the builtin %s is not allowed", [_text(cmd), cmd.name]),
	"the usual builtins: cd, echo, printf, test, read, export, set, ...",
) if {
	some i in unallowed
	cmd := input.commands[i]
	cmd.kind == "builtin"
}

# METADATA
# title: Network program
# description: |
#   Programs that reach the network (data.skillsh.network_programs) are
#   refused outright; the jail has no network either.
# custom:
#   code: network.program
#   verdict: deny
deny contains lib.reason(
	"network.program", "deny", cmd, cmd.argv[0].span,
	sprintf("`%s`: %s reaches the network, which commands may not use", [_text(cmd), cmd.base]),
	"work with files under the skills tree and the workspace; there is no network",
) if {
	some cmd in input.commands
	data.skillsh.network_programs[cmd.base]
	cmd.kind in {"external", "builtin"}
}

# METADATA
# title: Privilege program
# description: |
#   Programs that change user, root, namespaces, mounts or capabilities
#   (data.skillsh.privilege_programs) are refused outright.
# custom:
#   code: privilege.program
#   verdict: deny
deny contains lib.reason(
	"privilege.program", "deny", cmd, cmd.argv[0].span,
	sprintf("`%s`: %s changes privileges, namespaces or ownership", [_text(cmd), cmd.base]),
	"run commands as the session user, without sudo, su, chroot or similar",
) if {
	some cmd in input.commands
	data.skillsh.privilege_programs[cmd.base]
	cmd.kind in {"external", "builtin"}
}

# METADATA
# title: Interactive program
# description: |
#   Pagers and editors (less, more, man, vim, ...) can run shell commands
#   from inside (!cmd); there is no terminal either.
# custom:
#   code: program.interactive
#   verdict: deny
deny contains lib.reason(
	"program.interactive", "deny", cmd, cmd.argv[0].span,
	sprintf("`%s`: %s is interactive and can run shell commands", [_text(cmd), cmd.base]),
	"cat, head, tail, sed -n '1,20p' or grep to read files; sed -i or a script to edit them",
) if {
	some cmd in input.commands
	data.skillsh.interactive_programs[cmd.base]
	cmd.kind in {"external", "builtin"}
}

# METADATA
# title: Dynamic program name
# description: |
#   A command whose name is only known at run time ($cmd args). Unless
#   config.allow_dynamic_program is set, it is refused in the static phase;
#   the exec phase would see the expanded name.
# custom:
#   code: exec.dynamic_program
#   verdict: deny
_unallowed_deny contains lib.reason(
	"exec.dynamic_program", "deny", cmd, cmd.argv[0].span,
	sprintf("`%s`: the program name is computed at run time, so it cannot be checked before the command runs", [_text(cmd)]),
	"write the program name literally (the exec-phase check would see the expanded name, but this policy does not wait for it)",
) if {
	some i in unallowed
	cmd := input.commands[i]
	cmd.kind == "dynamic"
}

# METADATA
# title: Opaque code
# description: |
#   A command that runs code the policy cannot see into, such as
#   sh -c "$x" or eval "$y" (the input's opaque field says why).
# custom:
#   code: exec.opaque
#   verdict: deny
deny contains lib.reason(
	"exec.opaque", "deny", cmd, cmd.span,
	sprintf("`%s`: runs code that cannot be checked before it runs (%s)", [_text(cmd), cmd.opaque]),
	"write the commands literally instead of building them in variables or substitutions",
) if {
	some cmd in input.commands
	cmd.opaque != ""
	not static.config.allow_opaque
}

# A path is harmless when it is one of the roots or an allowed device.
_in_roots(p) if p.root in {"skills", "workspace", "device"}

_in_roots(p) if data.skillsh.devices[p.resolved]

_in_roots(p) if data.skillsh.devices[p.value]

_judged(p) if {
	not p.dynamic
	not network_device(p)
}

# network_device(p): the path names bash's /dev/tcp or /dev/udp, as
# written or resolved.
network_device(p) if regex.match(`^/dev/(tcp|udp)/`, p.value)

network_device(p) if regex.match(`^/dev/(tcp|udp)/`, p.resolved)

_writable(p) if p.root in {"workspace", "device"}

_writable(p) if data.skillsh.devices[p.resolved]

_writable(p) if data.skillsh.devices[p.value]

# METADATA
# title: Path outside the roots
# description: |
#   A path-like argument that resolves outside the skills tree, the
#   workspace and the harmless devices. Which arguments are paths is up to
#   each program's entry (echo's arguments, grep's pattern are not).
# custom:
#   code: path.outside_roots
#   verdict: deny
deny contains lib.reason(
	"path.outside_roots", "deny", cmd, lib.arg_span(cmd, f.path.arg),
	sprintf("`%s`: %s is outside %s", [_text(cmd), f.path.resolved, lib.roots_text(input.roots)]),
	lib.read_allowed_text(input.roots),
) if {
	some f in facts.arg_paths
	not _in_roots(f.path)
	_judged(f.path)
	cmd := input.commands[f.command]
	not cmd.base in {"cd", "pushd"}
}

# METADATA
# title: Write outside the workspace
# description: |
#   A program writes (creates, changes or removes) a path inside the
#   read-only skills tree.
# custom:
#   code: path.write_outside_workspace
#   verdict: deny
deny contains lib.reason(
	"path.write_outside_workspace", "deny", cmd, lib.arg_span(cmd, f.path.arg),
	sprintf("`%s`: %s writes %s, which is outside the workspace %s", [_text(cmd), cmd.base, f.path.resolved, input.roots.workspace]),
	lib.write_allowed_text(input.roots),
) if {
	some f in facts.arg_paths
	f.access == "write"
	_judged(f.path)
	_in_roots(f.path)
	not _writable(f.path)
	cmd := input.commands[f.command]
}

# METADATA
# title: Redirection outside the roots
# description: |
#   A redirection (< file, > file) whose target is outside the skills tree,
#   the workspace and the harmless devices.
# custom:
#   code: redirect.outside_roots
#   verdict: deny
deny contains lib.reason(
	"redirect.outside_roots", "deny", cmd, f.redirect.span,
	sprintf("`%s`: the redirection %s %s is outside %s", [_text(cmd), f.redirect.op, f.path.resolved, lib.roots_text(input.roots)]),
	_redirect_allowed_text(f.access),
) if {
	some f in facts.redirect_paths
	_judged(f.path)
	not _in_roots(f.path)
	cmd := input.commands[f.command]
}

# _redirect_allowed_text says where a redirection may point instead: a
# write may go only to the workspace.
_redirect_allowed_text(access) := lib.write_allowed_text(input.roots) if {
	access in {"write", "readwrite"}
} else := lib.read_allowed_text(input.roots)

# METADATA
# title: Redirection writes outside the workspace
# description: A redirection that writes (> file, >> file) into the skills tree.
# custom:
#   code: redirect.write_outside_workspace
#   verdict: deny
deny contains lib.reason(
	"redirect.write_outside_workspace", "deny", cmd, f.redirect.span,
	sprintf("`%s`: the redirection %s %s writes outside the workspace %s", [_text(cmd), f.redirect.op, f.path.resolved, input.roots.workspace]),
	lib.write_allowed_text(input.roots),
) if {
	some f in facts.redirect_paths
	f.access in {"write", "readwrite"}
	_judged(f.path)
	_in_roots(f.path)
	not _writable(f.path)
	cmd := input.commands[f.command]
}

# METADATA
# title: cd outside the roots
# description: cd and pushd may only move within the skills tree and the workspace.
# custom:
#   code: cd.outside_roots
#   verdict: deny
deny contains lib.reason(
	"cd.outside_roots", "deny", cmd, lib.arg_span(cmd, p.arg),
	sprintf("`%s`: %s is outside %s", [_text(cmd), p.resolved, lib.roots_text(input.roots)]),
	sprintf("cd within %s", [lib.roots_text(input.roots)]),
) if {
	some cmd in input.commands
	cmd.base in {"cd", "pushd"}
	cmd.kind == "builtin"
	some p in cmd.paths
	p.arg > 0
	not p.dynamic
	not p.root in {"skills", "workspace"}
}

# METADATA
# title: Network device
# description: |
#   bash's /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT open network
#   connections, as a redirection or an argument.
# custom:
#   code: network.dev_tcp
#   verdict: deny
deny contains lib.reason(
	"network.dev_tcp", "deny", cmd, _network_span(cmd, f),
	sprintf("`%s`: %s opens a network connection", [_text(cmd), f.path.value]),
	"work with files under the skills tree and the workspace; there is no network",
) if {
	some f in (facts.redirect_paths | facts.arg_paths)
	network_device(f.path)
	cmd := input.commands[f.command]
}

_network_span(_, f) := f.redirect.span

_network_span(cmd, f) := lib.arg_span(cmd, f.path.arg) if not f.redirect

# Sensitive variables: data.skillsh.sensitive_env.
_sensitive(name) if {
	data.skillsh.sensitive_env.names[name]
	not data.skillsh.sensitive_env.allowed[name]
}

_sensitive(name) if {
	some prefix in data.skillsh.sensitive_env.prefixes
	startswith(name, prefix)
	not data.skillsh.sensitive_env.allowed[name]
}

# _assigned are the variables a command sets: {"command", "name", "span"}.
# Assignments (X=1 cmd, export X=1), env's NAME=value operands, and the
# builtins that store into a named variable (read, mapfile, printf -v,
# getopts, let).
_assigned contains {"command": cmd.index, "name": a.name, "span": a.span} if {
	some cmd in input.commands
	some a in cmd.assigns
}

_assigned contains {"command": cmd.index, "name": name, "span": w.span} if {
	some cmd in input.commands
	cmd.base in {"env", "export", "declare", "typeset", "local", "readonly", "let"}
	some w in cmd.argv
	not w.dynamic
	name := regex.find_all_string_submatch_n(`^([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])?\+?=`, w.value, 1)[0][1]
}

_assigned contains {"command": cmd.index, "name": w.value, "span": w.span} if {
	some cmd in input.commands
	cmd.base in {"read", "mapfile", "readarray", "getopts", "printf", "unset", "declare", "typeset", "local", "readonly", "export", "let"}
	cmd.kind == "builtin"
	some i, w in cmd.argv
	i > 0
	not w.dynamic
	regex.match(`^[A-Za-z_][A-Za-z0-9_]*$`, w.value)
	_names_variable(cmd, i)
}

# read, mapfile, getopts: every plain word names a variable; printf and
# the declaration builtins only where -v or a bare name.
_names_variable(cmd, _) if cmd.base in {"read", "mapfile", "readarray", "getopts", "declare", "typeset", "local", "readonly", "export"}

_names_variable(cmd, i) if {
	cmd.base == "printf"
	cmd.argv[i - 1].value == "-v"
}

# Names assigned elsewhere in the command (for loops, arithmetic) that no
# command's own assignments explain.
_assigned contains {"command": 0, "name": name, "span": input.commands[0].span} if {
	some name in input.features.assignments
	count(input.commands) > 0
	not _assigned_by_command(name)
}

_assigned_by_command(name) if {
	some cmd in input.commands
	some a in cmd.assigns
	a.name == name
}

# METADATA
# title: Sensitive variable
# description: |
#   Assigning a variable that changes what programs load or run: PATH,
#   LD_PRELOAD and other LD_*, BASH_ENV, ENV, IFS, PS4, PROMPT_COMMAND,
#   HOME, CDPATH, PYTHON*, PERL*, NODE_OPTIONS, GIT_*, pagers and editors
#   (data.skillsh.sensitive_env) - in front of a command, with export or
#   declare, through env, or with read/printf -v/mapfile/getopts.
# custom:
#   code: env.sensitive_assignment
#   verdict: deny
deny contains lib.reason(
	"env.sensitive_assignment", "deny", cmd, a.span,
	sprintf("`%s`: assigning %s changes what programs load or run", [_text(cmd), a.name]),
	"ordinary variables (lower case names, or names not in the sensitive list); the session's PATH and HOME are fixed",
) if {
	some a in _assigned
	_sensitive(a.name)
	cmd := input.commands[a.command]
}

# METADATA
# title: Variable name computed at run time
# description: |
#   A declaration (declare, typeset, local, export, readonly, nameref) with
#   a word known only at run time ($n=value, "$n=$v"): the variable it sets
#   could be PATH, LD_PRELOAD or any other in the sensitive list, and the
#   shell runs declarations itself, so no later check sees the name.
# custom:
#   code: env.dynamic_name
#   verdict: deny
_dynamic_name_deny contains lib.reason(
	"env.dynamic_name", "deny", cmd, w.span,
	sprintf("`%s`: the variable %s sets is named at run time", [_text(cmd), cmd.base]),
	"declarations with literal names: declare NAME=value (the value may be computed: NAME=\"$x\")",
) if {
	some cmd in input.commands
	cmd.base in _declarations
	cmd.kind == "builtin"
	some i, w in cmd.argv
	i > 0
	w.dynamic
}

_declarations := {"declare", "typeset", "local", "export", "readonly", "nameref"}

deny_for.declare contains r if some r in _dynamic_name_deny

deny_for.typeset contains r if some r in _dynamic_name_deny

deny_for.local contains r if some r in _dynamic_name_deny

deny_for.export contains r if some r in _dynamic_name_deny

deny_for.readonly contains r if some r in _dynamic_name_deny

deny_for.nameref contains r if some r in _dynamic_name_deny

# METADATA
# title: alias definition
# description: alias NAME=VALUE makes a later command run something else than it says.
# custom:
#   code: builtin.alias
#   verdict: deny
deny_for.alias contains lib.reason(
	"builtin.alias", "deny", cmd, w.span,
	sprintf("`%s`: aliases make a command name run something else", [_text(cmd)]),
	"write the command out in full, or define a function",
) if {
	some cmd in facts.by_base.alias
	cmd.kind == "builtin"
	some i, w in cmd.argv
	i > 0
	_defines_alias(w)
}

_defines_alias(w) if w.dynamic

_defines_alias(w) if contains(w.value, "=")

# METADATA
# title: hash -p
# description: hash -p FILE NAME makes NAME run FILE, bypassing PATH lookup.
# custom:
#   code: builtin.hash_path
#   verdict: deny
deny_for.hash contains lib.reason(
	"builtin.hash_path", "deny", cmd, cmd.span,
	sprintf("`%s`: hash -p makes a command name run another file", [_text(cmd)]),
	"hash without -p, or run the program by its path",
) if {
	some cmd in facts.by_base.hash
	cmd.kind == "builtin"
	"-p" in cmd.options.names
}

# METADATA
# title: enable -f
# description: enable -f FILE loads a shared object into the shell as a builtin; enable -n hides builtins.
# custom:
#   code: builtin.enable
#   verdict: deny
deny_for.enable contains lib.reason(
	"builtin.enable", "deny", cmd, cmd.span,
	sprintf("`%s`: enable loads or hides shell builtins", [_text(cmd)]),
	"the builtins as they are (enable with no options lists them)",
) if {
	some cmd in facts.by_base.enable
	cmd.kind == "builtin"
	some o in cmd.options.names
	o in {"-f", "-d", "-n"}
}

# METADATA
# title: trap with code
# description: trap CODE SIGNAL runs CODE later, when the signal or EXIT arrives, out of sight of the check.
# custom:
#   code: builtin.trap
#   verdict: deny
deny_for.trap contains lib.reason(
	"builtin.trap", "deny", cmd, cmd.span,
	sprintf("`%s`: trap runs code later, when a signal arrives", [_text(cmd)]),
	"trap -l, trap -p, or trap - SIGNAL to reset; run cleanup commands directly",
) if {
	some cmd in facts.by_base.trap
	cmd.kind == "builtin"
	count(cmd.options.operands) > 1
	first := cmd.argv[cmd.options.operands[0]]
	_trap_code(first)
}

_trap_code(w) if w.dynamic

_trap_code(w) if not w.value in {"", "-"}

# METADATA
# title: Prompt expansion
# description: ${x@P} expands a variable as a prompt string, which runs command substitutions inside it.
# custom:
#   code: expansion.prompt
#   verdict: deny
deny contains lib.reason(
	"expansion.prompt", "deny", cmd, w.span,
	sprintf("`%s`: ${...@P} expands a prompt string, which can run commands", [_text(cmd)]),
	"plain ${name} expansions",
) if {
	some cmd in input.commands
	some w in cmd.argv
	"prompt" in object.get(w, "expansions", [])
}
