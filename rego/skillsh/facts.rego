# METADATA
# title: skillsh command facts
# description: |
#   Facts derived once per evaluation from the input commands: each
#   command's allowlist entry, its parsed options, and which of its
#   path-like arguments it reads or writes. The rules in skillsh.shell and
#   skillsh.escapes judge these facts.
package skillsh.facts

import data.skillsh.lib

# spec[i] is the allowlist entry of command i ({} when it has none).
spec[cmd.index] := _spec(cmd) if some cmd in input.commands

_spec(cmd) := s if {
	cmd.kind == "external"
	s := lib.program_spec(cmd.base)
} else := s if {
	cmd.kind == "builtin"
	s := lib.builtin_spec(cmd.base)
} else := {}

# parsed[i] is command i's options fact (docs/policy-input.md) by argv
# index:
#   options   the options given ("-r", "--recursive")
#   operands  the argv indices of the operands, in order
#   values    argv index -> the options whose argument is at that index
#   attached  the indices in values whose word holds the option too
parsed[cmd.index] := {
	"options": cmd.options.names,
	"operands": cmd.options.operands,
	"values": {a.arg: a.options | some a in cmd.options.args},
	"attached": {a.arg | some a in cmd.options.args; a.attached},
} if {
	some cmd in input.commands
}

# options[i] is the set of options of command i: parsed[i].options, plus
# tar's old-style first argument (tar xzf: -x, -z, -f) and zip's two-letter
# options (-TT).
options[cmd.index] := _options(cmd, spec[cmd.index]) if some cmd in input.commands

_options(cmd, s) := {n | some n in cmd.options.names} | _old_style(cmd) if {
	s.tar
} else := {n | some n in cmd.options.names} | _zip_options(cmd) if {
	s.zip
} else := cmd.options.names

_old_style(cmd) := {concat("", ["-", c]) | some c in split(cmd.argv[1].value, "")} if {
	not cmd.argv[1].dynamic
	not startswith(cmd.argv[1].value, "-")
} else := set()

_zip_options(cmd) := {"-TT" | some w in cmd.argv; regex.match(`^-[^-]*TT`, w.value)}

# by_base[base] lists the commands with that base name, so that a rule about
# one program looks it up instead of scanning every command. A complete
# object, built once per evaluation: as a partial set, each lookup by a
# program's name scanned the commands again (12% of a decision).
by_base := {base: cmds |
	some c in input.commands
	base := c.base
	cmds := [cmd | some cmd in input.commands; cmd.base == base]
}

# arg_paths are the path-like arguments that matter, each with the access
# the program makes: {"command": index, "path": Path, "access": "read" |
# "write"}. Arguments that a program takes as text (echo's, grep's pattern,
# sed's script) are left out.
arg_paths contains {"command": cmd.index, "path": p, "access": access} if {
	some cmd in input.commands
	some p in cmd.paths
	p.arg > 0
	s := spec[cmd.index]
	not s.text
	access := _access(cmd, s, p.arg)
	access != "skip"
}

# redirect_paths are the redirection targets: {"command", "redirect",
# "path", "access"}.
redirect_paths contains {"command": cmd.index, "redirect": r, "path": r.path, "access": r.access} if {
	some cmd in input.commands
	some r in cmd.redirects
	r.path
}

# _access(cmd, s, i) is how the program with allowlist entry s uses its
# argument i: "skip" (text, or a command judged on its own), "write" or
# "read". An argument that no option takes, of a program whose entry has
# no other keys than _operand_reader_keys, is read: that is decided without
# the parsed options. Any other key (one that _skip or _write reads for
# operands, or a new one) takes the long way.
_access(cmd, s, i) := "read" if {
	count(object.keys(s) - _operand_reader_keys) == 0
	not _option_argument(cmd, i)
} else := "skip" if {
	_skip(cmd, s, parsed[cmd.index], i)
} else := "write" if {
	_write(cmd, s, parsed[cmd.index], i)
} else := "read"

# The keys that do not change how a program uses an operand: the option
# grammar, the options whose arguments are text or written (which concern
# option arguments only), and the markers other rules read.
_operand_reader_keys := {
	"short_args", "long_args", "pair_args", "optional_args", "flags", "posix", "abbrev", "deny_options",
	"text_options", "write_options", "target_options", "interpreter", "inline_options",
	"module_options", "shell", "subcommands", "network_subcommands", "zip", "unzip", "git",
	"sed", "awk", "cd",
}

_option_argument(cmd, i) if {
	some a in cmd.options.args
	a.arg == i
}

# An option whose argument is text.
_skip(_, s, parsed, i) if {
	some name in parsed.values[i]
	name in object.get(s, "text_options", [])
}

# The pattern or program operand (grep PATTERN, sed SCRIPT, jq FILTER).
_skip(_, s, parsed, i) if i == pattern_index(s, parsed)

# A wrapper's operands are the command it runs, judged on its own.
_skip(_, s, parsed, i) if {
	s.wrapper
	i in parsed.operands
}

# find: the arguments of tests that take text, and the command of -exec.
_skip(cmd, s, _, i) if {
	s.find
	i in find(cmd).text
}

_write(_, s, parsed, i) if {
	some name in parsed.values[i]
	name in array.concat(object.get(s, "write_options", []), object.get(s, "target_options", []))
}

_write(_, s, parsed, i) if {
	s.paths == "write"
	i in parsed.operands
}

_write(_, s, parsed, i) if {
	some o in object.get(s, "inplace_options", [])
	o in parsed.options
	i in parsed.operands
}

_write(_, s, parsed, i) if {
	s.last_write
	count(parsed.operands) > 1
	i == parsed.operands[count(parsed.operands) - 1]
	not _has_target(s, parsed)
}

_write(cmd, s, _, i) if {
	s.find
	i in find(cmd).write
}

_write(_, s, parsed, i) if {
	s.first_write
	i == parsed.operands[0]
}

# dd writes the file of its of= operand.
_write(cmd, s, _, i) if {
	s.dd
	startswith(cmd.argv[i].value, "of=")
}

# tar writes its archive (-f) when it creates or appends to one.
_write(cmd, s, parsed, i) if {
	s.tar
	tar_mode(options[cmd.index]) == "create"
	i in tar_files(cmd, parsed)
}

# tar -x writes into -C DIR.
_write(cmd, s, parsed, i) if {
	s.tar
	tar_mode(options[cmd.index]) == "extract"
	some n in parsed.values[i]
	n in {"-C", "--directory"}
}

# tar_mode(options) is "extract", "create" or "read" (list, diff).
tar_mode(opts) := "extract" if {
	some o in opts
	o in {"-x", "--extract", "--get"}
} else := "create" if {
	some o in opts
	o in {"-c", "-r", "-u", "-A", "--create", "--append", "--update", "--catenate", "--concatenate"}
} else := "read"

# tar_files(cmd, parsed) are the argv indices of tar's archive (-f FILE),
# in the new and the old style (tar cf FILE).
tar_files(cmd, parsed) := {i |
	some i, names in parsed.values
	some n in names
	n in {"-f", "--file"}
} | {i |
	not startswith(cmd.argv[1].value, "-")
	not cmd.argv[1].dynamic
	args := [c | some c in split(cmd.argv[1].value, ""); contains("fCbIFgHKLNTVX", c)]
	some k, c in args
	c == "f"
	i := k + 2
}

_has_target(s, parsed) if {
	some o in object.get(s, "target_options", [])
	o in parsed.options
}

# pattern_index(s, parsed) is the argv index of the pattern operand, if the
# program has one and no option supplies the pattern instead.
pattern_index(s, parsed) := parsed.operands[0] if {
	s.pattern_operand
	not _pattern_given(s, parsed)
}

_pattern_given(s, parsed) if {
	some o in object.get(s, "pattern_options", [])
	o in parsed.options
}

# find(cmd) describes a find command line: its start points, the argv
# indices that are text (test arguments, commands run by -exec), those it
# writes (-fprint FILE, start points under -delete), and its actions.
find(cmd) := {"starts": starts, "text": text, "write": write, "actions": actions} if {
	argv := cmd.argv
	first := min({i | some i, w in argv; i > 0; _find_expr_word(w.value)} | {count(argv)})
	starts := {i | some i, w in argv; i > 0; i < first; not _find_leading(argv, i)}
	execs := {i | some i, w in argv; w.value in _find_exec_actions}
	in_exec := {i | some i, _ in argv; _find_in_exec(argv, execs, i)}
	tests := {k | some i, w in argv; i >= first; not i in in_exec; _find_text_test(w.value); k := i + 1}
	formats := {k | some i, w in argv; i >= first; not i in in_exec; w.value == "-fprintf"; k := i + 2}
	actions := {w.value | some i, w in argv; i >= first; not i in in_exec; startswith(w.value, "-")}
	files := {k | some i, w in argv; i >= first; not i in in_exec; w.value in _find_file_actions; k := i + 1}
	text := (tests | formats) | in_exec
	write := files | _find_deleted(starts, actions)
}

_find_deleted(starts, actions) := starts if "-delete" in actions

_find_deleted(_, actions) := set() if not "-delete" in actions

_find_expr_word(v) if {
	startswith(v, "-")
	not v in {"-H", "-L", "-P", "-D"}
	not startswith(v, "-O")
}

_find_expr_word(v) if v in {"(", "!", ")", ","}

_find_leading(argv, i) if startswith(argv[i].value, "-")

_find_leading(argv, i) if argv[i - 1].value == "-D"

_find_exec_actions := {"-exec", "-execdir", "-ok", "-okdir"}

_find_file_actions := {"-fprint", "-fprint0", "-fprintf", "-fls"}

_find_text_tests := {
	"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
	"-regex", "-iregex", "-lname", "-ilname", "-type", "-xtype", "-user",
	"-group", "-uid", "-gid", "-perm", "-size", "-mtime", "-mmin", "-atime",
	"-amin", "-ctime", "-cmin", "-used", "-links", "-inum", "-maxdepth",
	"-mindepth", "-printf", "-regextype", "-context", "-fstype",
}

_find_text_test(v) if v in _find_text_tests

_find_text_test(v) if regex.match(`^-newer[amcB]t$`, v)

# Words after -exec up to its terminator (";" or "+") belong to the command
# it runs.
_find_in_exec(argv, execs, i) if {
	some j in execs
	j < i
	not _find_terminated(argv, j, i)
}

_find_terminated(argv, j, i) if {
	some k in numbers.range(j + 1, i - 1)
	k < i
	argv[k].value in {";", "+"}
}
