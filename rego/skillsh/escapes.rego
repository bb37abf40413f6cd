# METADATA
# title: skillsh program escapes
# description: |
#   Rules for allowlisted programs that can run other programs or hidden
#   code through their options or arguments.
package skillsh.escapes

import data.skillsh.facts
import data.skillsh.lib
import data.skillsh.static

_text(cmd) := lib.command_text(cmd, input.command)

# deny and ask hold the reasons of the rules below: those about every
# command, written as deny or ask contains ..., and those about one
# program, written as deny_for.NAME or ask_for.NAME contains .... Only the
# programs in the input are looked up, so a command meets its own
# program's rules and no others.
deny contains r if {
	some cmd in input.commands
	some r in deny_for[cmd.base]
}

ask contains r if {
	some cmd in input.commands
	some r in ask_for[cmd.base]
}

# METADATA
# title: Option runs a program or hides what is read
# description: |
#   An option listed in the program's deny_options (sort
#   --compress-program, rg --pre, tar --to-command, ...): it makes the
#   program run another program, or read files named in a file (wc
#   --files0-from, tar -T), which the policy cannot see.
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
	some option in facts.options[cmd.index]
	why := deny_options[option]
}

# nested(cmd) is the number of commands the builder found run by cmd.
_nested(cmd) := count([c |
	some c in input.commands
	c.wrapper.parent == cmd.index
	c.index != cmd.index
])

_config := static.config

# METADATA
# title: find runs a command
# description: |
#   find -ok and -okdir (which prompt on a terminal) always, and -exec or
#   -execdir when the builder could not see the command they run. A command
#   run by -exec that the builder unwrapped is judged like any other.
# custom:
#   code: find.exec
#   verdict: deny
deny_for.find contains lib.reason(
	"find.exec", "deny", cmd, cmd.span,
	sprintf("`%s`: find %s runs a command the policy cannot check", [_text(cmd), concat(" ", sort(actions))]),
	"find ... -print0 | xargs -0 CMD with CMD written literally, or find -exec with a literal command",
) if {
	some cmd in facts.by_base.find
	f := facts.find(cmd)
	execs := [a | some a in f.actions; a in {"-exec", "-execdir"}]
	oks := {a | some a in f.actions; a in {"-ok", "-okdir"}}
	_find_hidden(cmd, execs, oks)
	actions := {a | some a in f.actions; a in {"-exec", "-execdir", "-ok", "-okdir"}}
}

_find_hidden(_, _, oks) if count(oks) > 0

_find_hidden(cmd, execs, _) if count(execs) > _nested(cmd)

# METADATA
# title: find deletes recursively
# description: find -delete removes every match below its start points; a person confirms it (config.ask.recursive_delete).
# custom:
#   code: find.delete
#   verdict: ask
ask_for.find contains lib.reason(
	"find.delete", "ask", cmd, cmd.span,
	sprintf("`%s`: find -delete removes every file it matches", [_text(cmd)]),
	"find without -delete to list the files first",
) if {
	_config.ask.recursive_delete
	some cmd in facts.by_base.find
	"-delete" in facts.find(cmd).actions
}

# METADATA
# title: Recursive delete
# description: rm -r (-R, --recursive) removes whole trees; a person confirms it (config.ask.recursive_delete).
# custom:
#   code: rm.recursive
#   verdict: ask
ask_for.rm contains lib.reason(
	"rm.recursive", "ask", cmd, cmd.span,
	sprintf("`%s`: removes directories recursively", [_text(cmd)]),
	"rm without -r for single files, or confirm the recursive delete",
) if {
	_config.ask.recursive_delete
	some cmd in facts.by_base.rm
	some o in facts.parsed[cmd.index].options
	o in {"-r", "-R", "--recursive"}
}

# METADATA
# title: Program needs confirmation
# description: A program listed in config.ask.programs; a person confirms every use.
# custom:
#   code: program.ask
#   verdict: ask
ask contains lib.reason(
	"program.ask", "ask", cmd, cmd.argv[0].span,
	sprintf("`%s`: %s", [_text(cmd), why]),
	"confirm the command, or do without it",
) if {
	some cmd in input.commands
	why := _config.ask.programs[cmd.base]
	cmd.kind == "external"
}

# sed: the scripts of a sed command, from its operand or -e/--expression.
_sed_scripts(cmd) := array.concat(
	[cmd.argv[i].value | i := facts.pattern_index(facts.spec[cmd.index], facts.parsed[cmd.index]); not cmd.argv[i].dynamic],
	lib.option_values(cmd, {"-e", "--expression"}),
)

_sed_sandboxed(cmd) if "--sandbox" in facts.parsed[cmd.index].options

# The s commands of a script with common delimiters: [whole, flags].
_sed_s_delims := ["/", "|", "#", ":", ",", "@", "!", "%", "_", "+", "~", "^", "=", ";"]

_sed_s_pattern(d) := sprintf(`s\%s((?:\\.|[^\\\%s\n])*)\%s((?:\\.|[^\\\%s\n])*)\%s([a-zA-Z0-9]*)`, [d, d, d, d, d])

_sed_y_pattern(d) := sprintf(`y\%s((?:\\.|[^\\\%s\n])*)\%s((?:\\.|[^\\\%s\n])*)\%s`, [d, d, d, d, d])

_sed_s_flags(script) := {m[3] |
	some d in _sed_s_delims
	some m in regex.find_all_string_submatch_n(_sed_s_pattern(d), script, -1)
}

# _sed_rest(script) is what is left of a script once s and y commands,
# addresses, labels, comments and the text of a/i/c are taken out: command
# letters and numbers. Labels go before text, so that the a of :a is no
# text command, and a/i/c count only where a command starts (after a
# separator, a brace, blanks or an address), so that a letter inside a
# \cREGEXc address or a file name hides nothing after it.
# An s or y command with a delimiter outside _sed_s_delims (a blank, a
# letter, a digit), or an address with its own delimiter (\cREGEXc), is not
# taken out: then nothing is, and the whole script counts, so that no e, r
# or w hides in it.
_sed_rest(script) := script if {
	_sed_unparsed(script)
} else := rest if {
	no_label := regex.replace(_sed_no_addr(script), `(?m)(?:[:btT][^;\n}]*|#[^\n]*$)`, ";")
	rest := regex.replace(no_label, `(?m)(^|[;{}!0-9$,~\s])\s*[aic](?:\\\n)?[^\n]*$`, "${1};")
}

_sed_unparsed(script) if regex.match(`(?m)(^|[;{}])[\s0-9$,~!+]*(\\|[sy][^/|#:,@!%_+~^=;\n\\])`, _sed_no_addr(script))

# A label or branch target that starts with s or y (ts;e cmd;s; branches to
# a label s): the s and y patterns would take it and what follows for a
# command to strip.
_sed_unparsed(script) if regex.match(`(^|[;{}\s!0-9$,~+/])[:btT]\s*[sy]`, script)

# A backslash-newline other than the one after a/i/c (inside an s
# replacement it is part of the command; after a # it is not, as a comment
# ends at the line's end): the patterns above see single lines, so the
# whole script counts.
_sed_unparsed(script) if {
	contains(regex.replace(script, `(?m)(^|[;{}!0-9$,~\s/])\s*[aic]\\\n`, "${1}"), "\\\n")
}

# _sed_no_addr(script) is the script without its s and y commands and its
# /regex/ addresses.
_sed_no_addr(script) := no_addr if {
	no_s := _strip_all(script, [p | some d in _sed_s_delims; p := _sed_s_pattern(d)])
	no_y := _strip_all(no_s, [p | some d in _sed_s_delims; p := _sed_y_pattern(d)])
	no_addr := regex.replace(no_y, `/(?:\\.|[^/\\\n])*/[IM]*`, ";")
}

_strip_all(s, patterns) := regex.replace(s, concat("|", patterns), ";")

_sed_executes(script) if {
	some flags in _sed_s_flags(script)
	contains(flags, "e")
}

_sed_executes(script) if contains(_sed_rest(script), "e")

_sed_files(script) if {
	some flags in _sed_s_flags(script)
	contains(flags, "w")
}

_sed_files(script) if regex.match(`[wWrR]`, _sed_rest(script))

# METADATA
# title: sed runs a command
# description: |
#   The sed e command and the e flag of s run the pattern space as a shell
#   command. Allowed under --sandbox, which refuses them.
# custom:
#   code: sed.execute
#   verdict: deny
deny_for.sed contains lib.reason(
	"sed.execute", "deny", cmd, cmd.span,
	sprintf("`%s`: the sed script runs shell commands (the e command or the e flag of s)", [_text(cmd)]),
	"sed scripts without e; run commands directly in the shell",
) if {
	some cmd in facts.by_base.sed
	not _sed_sandboxed(cmd)
	some script in _sed_scripts(cmd)
	_sed_executes(script)
}

# METADATA
# title: sed reads or writes other files
# description: |
#   The sed commands r, R, w, W and the w flag of s read or write files that
#   are not on the command line, so their paths cannot be checked.
# custom:
#   code: sed.file
#   verdict: deny
deny_for.sed contains lib.reason(
	"sed.file", "deny", cmd, cmd.span,
	sprintf("`%s`: the sed script reads or writes files of its own (r, R, w, W)", [_text(cmd)]),
	"sed reading the files on its command line and writing with > or -i inside the workspace",
) if {
	some cmd in facts.by_base.sed
	not _sed_sandboxed(cmd)
	some script in _sed_scripts(cmd)
	not _sed_executes(script)
	_sed_files(script)
}

# awk: the program text, from the operand or -e/--source.
_awk_programs(cmd) := array.concat(
	[cmd.argv[i].value | i := facts.pattern_index(facts.spec[cmd.index], facts.parsed[cmd.index]); not cmd.argv[i].dynamic],
	lib.option_values(cmd, {"-e", "--source"}),
)

_awk_bases := {"awk", "gawk", "mawk", "nawk"}

# The awk rules (_awk_deny) are looked up by the awk programs' names.
deny_for.awk contains r if some r in _awk_deny

deny_for.gawk contains r if some r in _awk_deny

deny_for.mawk contains r if some r in _awk_deny

deny_for.nawk contains r if some r in _awk_deny

# Tokens that matter in an awk program, read left to right so that strings
# and regular expressions hide what they contain: a pipe ("|" but not
# "||"), system(, and gawk's @load or indirect calls.
_awk_token := `"(?:\\.|[^"\\\n])*"|(?:^|[~(,{;!&|\n])\s*/(?:\\.|[^/\\\n])*/|\|\||\||@[A-Za-z_]*|\bsystem\s*\(`

_awk_runs(prog) if {
	some t in regex.find_n(_awk_token, prog, -1)
	_awk_bad_token(t)
}

_awk_bad_token("|")

_awk_bad_token(t) if startswith(t, "@")

_awk_bad_token(t) if startswith(t, "system")

# METADATA
# title: awk runs a command
# description: |
#   An awk program that calls system(), pipes to or from a command
#   (print | "cmd", "cmd" | getline, |&), or loads code (@load, indirect
#   calls).
# custom:
#   code: awk.system
#   verdict: deny
_awk_deny contains lib.reason(
	"awk.system", "deny", cmd, cmd.span,
	sprintf("`%s`: the awk program runs commands (system(), a pipe, or @load)", [_text(cmd)]),
	"awk programs that only read their input and print; pipe the output in the shell instead",
) if {
	some cmd in input.commands
	cmd.base in _awk_bases
	some prog in _awk_programs(cmd)
	_awk_runs(prog)
}

# METADATA
# title: awk network file
# description: gawk's special files /inet/tcp/... and /inet/udp/... open network connections.
# custom:
#   code: network.awk_inet
#   verdict: deny
_awk_deny contains lib.reason(
	"network.awk_inet", "deny", cmd, cmd.span,
	sprintf("`%s`: the awk program opens a network connection (/inet)", [_text(cmd)]),
	"work with files under the skills tree and the workspace; there is no network",
) if {
	some cmd in input.commands
	cmd.base in _awk_bases
	some prog in _awk_programs(cmd)
	regex.match(`/inet[46]?/`, prog)
}

# tar and unzip: where an extraction writes.
_extract_dest_ok(cmd, names) if {
	some f in facts.arg_paths
	f.command == cmd.index
	some n in facts.parsed[cmd.index].values[f.path.arg]
	n in names
}

_extract_dest_ok(_, _) if lib.within(input.cwd, input.roots.workspace)

_extracts(cmd) if {
	cmd.base == "tar"
	facts.tar_mode(facts.options[cmd.index]) == "extract"
}

_extracts(cmd) if {
	cmd.base == "unzip"
	not _unzip_lists(cmd)
}

_unzip_lists(cmd) if {
	some o in facts.parsed[cmd.index].options
	o in {"-l", "-t", "-p", "-v", "-Z", "-z", "-c"}
}

_dest_options := {"tar": {"-C", "--directory"}, "unzip": {"-d"}}

# The extraction rule (_extract_deny) is looked up by tar's and unzip's names.
deny_for.tar contains r if some r in _extract_deny

deny_for.unzip contains r if some r in _extract_deny

# METADATA
# title: Extraction outside the workspace
# description: |
#   tar -x and unzip write into the working directory (or -C, -d): that
#   must be inside the workspace. A -C or -d path is judged by the path
#   rules; without one, the working directory must be in the workspace.
# custom:
#   code: archive.extract_outside_workspace
#   verdict: deny
_extract_deny contains lib.reason(
	"archive.extract_outside_workspace", "deny", cmd, cmd.span,
	sprintf("`%s`: extracts into %s, which is outside the workspace %s", [_text(cmd), input.cwd, input.roots.workspace]),
	sprintf("extract inside the workspace: cd %s first, or tar -C DIR / unzip -d DIR with DIR under it", [input.roots.workspace]),
) if {
	some cmd in input.commands
	dest_options := _dest_options[cmd.base]
	_extracts(cmd)
	not _extract_dest_ok(cmd, dest_options)
}

# METADATA
# title: Remote tar archive
# description: tar -f HOST:FILE reads or writes the archive over a remote shell.
# custom:
#   code: tar.remote_archive
#   verdict: deny
deny_for.tar contains lib.reason(
	"tar.remote_archive", "deny", cmd, lib.arg_span(cmd, i),
	sprintf("`%s`: %s names a remote archive, which tar reaches through a remote shell", [_text(cmd), value]),
	"archives under the workspace, or --force-local for a file name with a colon",
) if {
	some cmd in facts.by_base.tar
	not "--force-local" in facts.options[cmd.index]
	some i in facts.tar_files(cmd, facts.parsed[cmd.index])
	value := _tar_file_value(cmd, i)
	regex.match(`^[^/]*:`, value)
}

_tar_file_value(cmd, i) := lib.option_value(cmd, i)

# git: the subcommand and the words after it.
_git_sub(cmd) := {"index": i, "name": cmd.argv[i].value, "args": [w.value | some j, w in cmd.argv; j > i]} if {
	i := facts.parsed[cmd.index].operands[0]
	not cmd.argv[i].dynamic
}

_git_spec := lib.program_spec("git")

# METADATA
# title: git command not allowed
# description: |
#   git subcommands outside the list in data (programs.git.subcommands):
#   aliases, which run whatever the configuration says, and commands such as
#   difftool, filter-branch or help that run other programs.
# custom:
#   code: git.subcommand
#   verdict: deny
deny_for.git contains lib.reason(
	"git.subcommand", "deny", cmd, cmd.argv[sub.index].span,
	sprintf("`%s`: git %s is not an allowed git command", [_text(cmd), sub.name]),
	"git status, log, diff, show, add, commit, branch, ... (programs.git.subcommands)",
) if {
	some cmd in facts.by_base.git
	sub := _git_sub(cmd)
	not _git_spec.subcommands[sub.name]
	not _git_spec.network_subcommands[sub.name]
}

# METADATA
# title: git reaches the network
# description: |
#   git fetch, pull, push, ls-remote, submodule and the like, git remote
#   beyond listing, and git clone from anything but a local path.
# custom:
#   code: git.network
#   verdict: deny
deny_for.git contains lib.reason(
	"git.network", "deny", cmd, cmd.argv[sub.index].span,
	sprintf("`%s`: git %s reaches the network", [_text(cmd), sub.name]),
	"local git commands in the workspace (status, log, diff, commit, ...); there is no network",
) if {
	some cmd in facts.by_base.git
	sub := _git_sub(cmd)
	_git_network(cmd, sub)
}

_git_network(_, sub) if _git_spec.network_subcommands[sub.name]

_git_network(_, sub) if {
	sub.name == "remote"
	some a in sub.args
	not a in {"-v", "--verbose"}
}

_git_network(_, sub) if {
	sub.name in {"clone", "archive"}
	some a in sub.args
	_url(a)
}

_url(a) if regex.match(`^[A-Za-z][A-Za-z0-9+.-]*://`, a)

_url(a) if regex.match(`^[^/:]+:[^/]`, a)

_url(a) if startswith(a, "--remote")

# METADATA
# title: git configuration injection
# description: |
#   git -c, --config-env, clone -c/--config, --template, and git config
#   writes set configuration that can run programs (core.fsmonitor,
#   core.pager, core.hooksPath, alias.*, diff.external, ...).
# custom:
#   code: git.config_injection
#   verdict: deny
deny_for.git contains lib.reason(
	"git.config_injection", "deny", cmd, cmd.span,
	sprintf("`%s`: sets git configuration, which can make git run programs (core.fsmonitor, core.pager, hooks, aliases)", [_text(cmd)]),
	"git with its existing configuration; git config --get or --list to read it",
) if {
	some cmd in facts.by_base.git
	_git_sets_config(cmd)
}

_git_sets_config(cmd) if {
	some o in facts.options[cmd.index]
	o in {"-c", "--config-env"}
}

_git_sets_config(cmd) if {
	sub := _git_sub(cmd)
	sub.name in {"clone", "init", "submodule", "worktree"}
	some a in sub.args
	regex.match(`^(-c|--config|--template)(=|$)|^-c.`, a)
}

_git_sets_config(cmd) if {
	sub := _git_sub(cmd)
	sub.name == "config"
	not _git_config_reads(sub.args)
}

# git config reads: --get*, --list, -l, or a single name.
_git_config_reads(args) if {
	some a in args
	regex.match(`^(--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|--list|-l|get|list)$`, a)
	not _git_config_writes(args)
}

_git_config_reads(args) if {
	names := [a | some a in args; not startswith(a, "-")]
	count(names) == 1
	not _git_config_writes(args)
}

_git_config_writes(args) if {
	some a in args
	regex.match(`^(--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|--edit|-e|set|unset|edit|rename-section|remove-section)$`, a)
}

# METADATA
# title: git --exec-path
# description: git --exec-path=DIR runs git's helper programs from DIR.
# custom:
#   code: git.exec_path
#   verdict: deny
deny_for.git contains lib.reason(
	"git.exec_path", "deny", cmd, cmd.span,
	sprintf("`%s`: --exec-path makes git run its helper programs from another directory", [_text(cmd)]),
	"git without --exec-path=DIR (git --exec-path alone prints it)",
) if {
	some cmd in facts.by_base.git
	some w in cmd.argv
	startswith(w.value, "--exec-path=")
}

# METADATA
# title: git runs a program
# description: |
#   git rebase --exec, bisect run, --upload-pack, --receive-pack, grep
#   --open-files-in-pager, --paginate and --help (which starts a pager or
#   man): options that make git run another program.
# custom:
#   code: git.exec
#   verdict: deny
deny_for.git contains lib.reason(
	"git.exec", "deny", cmd, cmd.span,
	sprintf("`%s`: makes git run another program (%s)", [_text(cmd), what]),
	"git without options that run programs; run the program directly",
) if {
	some cmd in facts.by_base.git
	some what in _git_runs[cmd.index]
}

_git_runs[cmd.index] contains "--paginate" if {
	some cmd in facts.by_base.git
	some o in facts.options[cmd.index]
	o in {"-p", "--paginate", "--help"}
}

_git_runs[cmd.index] contains what if {
	some cmd in facts.by_base.git
	sub := _git_sub(cmd)
	some a in sub.args
	what := _git_exec_arg(sub.name, a)
}

_git_runs[cmd.index] contains "bisect run" if {
	some cmd in facts.by_base.git
	sub := _git_sub(cmd)
	sub.name == "bisect"
	sub.args[0] == "run"
}

_git_exec_arg("rebase", a) := a if regex.match(`^-[A-Za-z0-9]*x`, a)

_git_exec_arg("grep", a) := a if startswith(a, "-O")

_git_exec_arg("grep", a) := a if _git_long(a, "open-files-in-pager")

_git_exec_arg(_, a) := a if regex.match(`^-[A-Za-z0-9]*u.`, a)

_git_exec_arg(_, a) := a if {
	some full in {"upload-pack", "receive-pack", "exec"}
	_git_long(a, full)
}

_git_exec_arg(sub, a) := a if {
	sub in {"clone", "fetch", "pull", "ls-remote", "archive"}
	regex.match(`^-[A-Za-z0-9]*u$`, a)
}

_git_exec_arg(_, "--help") := "--help"

_git_exec_arg(_, a) := a if regex.match(`^(ext|fd)::`, a)

# _git_long(a, full) holds when the word a is the long option --full, or
# abbreviates it as git accepts (--har for --hard), with or without =value.
_git_long(a, full) if {
	startswith(a, "--")
	name := split(substring(a, 2, -1), "=")[0]
	name != ""
	startswith(full, name)
}

# METADATA
# title: git outside the workspace
# description: |
#   git runs only on repositories in the workspace: a repository elsewhere
#   (a skill's) brings its own configuration and hooks.
# custom:
#   code: git.outside_workspace
#   verdict: deny
deny_for.git contains lib.reason(
	"git.outside_workspace", "deny", cmd, cmd.span,
	sprintf("`%s`: the repository (%s) is outside the workspace %s", [_text(cmd), dir, input.roots.workspace]),
	sprintf("git in %s (cd there, or git -C DIR with DIR under it)", [input.roots.workspace]),
) if {
	some cmd in facts.by_base.git
	_git_sub(cmd)
	some dir in _git_dirs[cmd.index]
	not lib.within(dir, input.roots.workspace)
}

_git_dirs[cmd.index] contains f.path.resolved if {
	some cmd in facts.by_base.git
	some f in facts.arg_paths
	f.command == cmd.index
	some n in facts.parsed[cmd.index].values[f.path.arg]
	n in {"-C", "--git-dir", "--work-tree"}
}

_git_dirs[cmd.index] contains input.cwd if {
	some cmd in facts.by_base.git
	not _git_moves(cmd)
}

_git_moves(cmd) if {
	some o in facts.options[cmd.index]
	o in {"-C", "--git-dir", "--work-tree"}
}

# METADATA
# title: git writes outside the workspace
# description: |
#   git init DIR, git clone SRC DIR, and --output/-o/--output-directory of
#   git log, diff, show and format-patch write where they are told: only
#   under the workspace.
# custom:
#   code: git.write_outside_workspace
#   verdict: deny
deny_for.git contains lib.reason(
	"git.write_outside_workspace", "deny", cmd, cmd.argv[p.arg].span,
	sprintf("`%s`: git writes %s, outside the workspace %s", [_text(cmd), p.resolved, input.roots.workspace]),
	lib.write_allowed_text(input.roots),
) if {
	some cmd in facts.by_base.git
	some f in facts.arg_paths
	f.command == cmd.index
	p := f.path
	_git_writes_to(cmd, _git_sub(cmd), p.arg)
	not lib.within(p.resolved, input.roots.workspace)
}

# git init DIR: the directory operand.
_git_writes_to(cmd, sub, i) if {
	sub.name == "init"
	i > sub.index
	not startswith(cmd.argv[i].value, "-")
}

# git clone SRC DIR: the last of two or more operands.
_git_writes_to(cmd, sub, i) if {
	sub.name == "clone"
	i == count(cmd.argv) - 1
	count([a | some a in sub.args; not startswith(a, "-")]) >= 2
}

# --output=FILE, --output FILE, -o DIR, --output-directory DIR.
_git_writes_to(cmd, sub, i) if {
	i > sub.index
	some full in {"output", "output-directory"}
	_git_long(cmd.argv[i].value, full)
	contains(cmd.argv[i].value, "=")
}

_git_writes_to(cmd, sub, i) if {
	i > sub.index + 1
	prev := cmd.argv[i - 1].value
	_git_output_option(prev)
}

_git_output_option("-o")

_git_output_option(a) if {
	some full in {"output", "output-directory"}
	_git_long(a, full)
	not contains(a, "=")
}

# METADATA
# title: Repository metadata outside .git
# description: |
#   A repository whose metadata is not in a directory named .git (git init
#   or clone with --bare, --mirror or --separate-git-dir; git --bare; git
#   --git-dir naming another directory): its config and hooks could be
#   written like any file, out of reach of git.metadata_write, and git
#   would run them.
# custom:
#   code: git.metadata_elsewhere
#   verdict: deny
deny_for.git contains lib.reason(
	"git.metadata_elsewhere", "deny", cmd, cmd.span,
	sprintf("`%s`: %s keeps the repository's metadata outside a .git directory", [_text(cmd), why]),
	"git init or git clone with the repository in DIR/.git, and no --git-dir",
) if {
	some cmd in facts.by_base.git
	some why in _git_elsewhere[cmd.index]
}

_git_elsewhere[cmd.index] contains a if {
	some cmd in facts.by_base.git
	sub := _git_sub(cmd)
	sub.name in {"init", "clone"}
	some a in sub.args
	some full in {"bare", "mirror", "separate-git-dir"}
	_git_long(a, full)
}

# git --bare COMMAND: the directory itself is the repository.
_git_elsewhere[cmd.index] contains "--bare" if {
	some cmd in facts.by_base.git
	"--bare" in facts.options[cmd.index]
}

_git_elsewhere[cmd.index] contains sprintf("--git-dir=%s", [dir]) if {
	some cmd in facts.by_base.git
	some dir in lib.option_values(cmd, {"--git-dir"})
	not regex.match(`(^|/)\.git/*$`, dir)
}

# METADATA
# title: Writes into .git
# description: |
#   Writing a repository's .git directory by other means than git (a hook,
#   the config file) plants code that git runs later.
# custom:
#   code: git.metadata_write
#   verdict: deny
deny contains lib.reason(
	"git.metadata_write", "deny", cmd, cmd.span,
	sprintf("`%s`: writes %s inside a .git directory", [_text(cmd), f.path.resolved]),
	"change a repository through git commands; .git/hooks and .git/config are off limits",
) if {
	some f in _writes
	regex.match(`(^|/)\.git(/|$)`, f.path.resolved)
	cmd := input.commands[f.command]
	cmd.base != "git"
}

# _writes are the paths commands write: arguments and redirections.
_writes contains f if {
	some f in facts.arg_paths
	f.access == "write"
}

_writes contains f if {
	some f in facts.redirect_paths
	f.access in {"write", "readwrite"}
}

# METADATA
# title: Destructive git command
# description: |
#   git reset --hard, clean, checkout -f/--force/--, restore, branch -D and
#   stash drop/clear discard work; a person confirms them
#   (config.ask.git_destructive).
# custom:
#   code: git.destructive
#   verdict: ask
ask_for.git contains lib.reason(
	"git.destructive", "ask", cmd, cmd.span,
	sprintf("`%s`: discards changes that cannot be recovered", [_text(cmd)]),
	"git status and git diff to see what would be lost, or git stash",
) if {
	_config.ask.git_destructive
	some cmd in facts.by_base.git
	_git_destroys(_git_sub(cmd))
}

_git_destroys(sub) if {
	sub.name == "reset"
	some a in sub.args
	_git_long(a, "hard")
}

_git_destroys(sub) if {
	sub.name == "clean"
	not _git_dry_run(sub.args)
}

_git_destroys(sub) if {
	sub.name in {"checkout", "switch"}
	some a in sub.args
	a in {"-f", "--", "."}
}

_git_destroys(sub) if {
	sub.name in {"checkout", "switch"}
	some a in sub.args
	some full in {"force", "discard-changes"}
	_git_long(a, full)
}

_git_destroys(sub) if sub.name == "restore"

_git_destroys(sub) if {
	sub.name == "branch"
	some a in sub.args
	a in {"-D", "--delete --force"}
}

_git_destroys(sub) if {
	sub.name == "stash"
	sub.args[0] in {"drop", "clear"}
}

_git_dry_run(args) if {
	some a in args
	a in {"-n", "--dry-run"}
}

# Interpreters.
_interpreters contains cmd if {
	some cmd in input.commands
	cmd.kind == "external"
	facts.spec[cmd.index].interpreter
}

# The interpreter rules (_interpreter_deny) are worked out only when a
# command runs an interpreter.
deny contains r if {
	some _ in _interpreters
	some r in _interpreter_deny
}

# An interpreter's options and operands are the engine's parsed ones
# (cmd.options): tar's and zip's quirks (facts.options) do not apply.
_inline_given(cmd) if {
	some o in facts.spec[cmd.index].inline_options
	o in cmd.options.names
}

_module_given(cmd) if {
	some o in object.get(facts.spec[cmd.index], "module_options", [])
	o in cmd.options.names
}

_version_only(cmd) if {
	some o in cmd.options.names
	o in {"-V", "--version", "-h", "--help"}
}

# perl -v and node -v print the version (python3 -v is verbose).
_version_only(cmd) if {
	cmd.base in {"perl", "node"}
	"-v" in cmd.options.names
}

# METADATA
# title: Inline interpreter code
# description: |
#   python3 -c, node -e/-p, perl -e/-E: code written on the command line,
#   which the policy cannot read. Allowed when config.allow_inline_code is
#   set. Shell -c scripts are judged command by command instead; a shell
#   -c script the builder could not unwrap is refused here.
# custom:
#   code: interpreter.inline_code
#   verdict: deny
_interpreter_deny contains lib.reason(
	"interpreter.inline_code", "deny", cmd, cmd.span,
	sprintf("`%s`: runs inline %s code, which cannot be checked", [_text(cmd), cmd.base]),
	sprintf("write the code to a file under %s and run it: %s %s/script", [input.roots.workspace, cmd.base, input.roots.workspace]),
) if {
	some cmd in _interpreters
	not _config.allow_inline_code
	_inline_given(cmd)
	_inline_hidden(cmd)
}

_inline_hidden(cmd) if not facts.spec[cmd.index].shell

_inline_hidden(cmd) if {
	facts.spec[cmd.index].shell
	_nested(cmd) == 0
	not cmd.opaque
	some v in lib.option_values(cmd, {"-c"})
	trim_space(v) != ""
}

# METADATA
# title: Interpreter reads code from standard input
# description: |
#   An interpreter or shell without a script (python3, bash -s, sh < file,
#   ... | bash) runs whatever arrives on standard input, which the policy
#   cannot read. Allowed when config.allow_inline_code is set.
# custom:
#   code: interpreter.stdin
#   verdict: deny
_interpreter_deny contains lib.reason(
	"interpreter.stdin", "deny", cmd, cmd.span,
	sprintf("`%s`: %s would run code read from standard input, which cannot be checked", [_text(cmd), cmd.base]),
	sprintf("run a script file: %s /skills/.../script or %s %s/script", [cmd.base, cmd.base, input.roots.workspace]),
) if {
	some cmd in _interpreters
	_reads_stdin(cmd)
	not _config.allow_inline_code
	not _inline_given(cmd)
	not _module_given(cmd)
	not _version_only(cmd)
}

_reads_stdin(cmd) if count(cmd.options.operands) == 0

_reads_stdin(cmd) if cmd.argv[cmd.options.operands[0]].value == "-"

_reads_stdin(cmd) if "-s" in cmd.options.names

# METADATA
# title: Python module not allowed
# description: python3 -m runs a module from the Python path; only those in data (python_modules) may run.
# custom:
#   code: interpreter.module
#   verdict: deny
_interpreter_deny contains lib.reason(
	"interpreter.module", "deny", cmd, cmd.span,
	sprintf("`%s`: python -m %s is not an allowed module", [_text(cmd), module]),
	sprintf("python3 -m %s, or a script under the skills tree or the workspace", [concat(" | ", sort(object.keys(data.skillsh.python_modules)))]),
) if {
	some cmd in _interpreters
	some module in lib.option_values(cmd, {"-m"})
	not data.skillsh.python_modules[module]
}
