package skillsh.facts_test

import data.skillsh.facts
import data.skillsh.fixtures_test as fx

# _reader_entries are the allowlist entries (programs and builtins) whose
# operands facts._access calls reads without looking at the options.
_reader_entries[name] := s if {
	some name, s in object.union(data.skillsh.programs, data.skillsh.builtins)
	count(object.keys(s) - facts._operand_reader_keys) == 0
}

# A command with two operands, 1 and 2, that no option takes, while every
# option that makes an argument text or a write target somewhere in the
# data is given: whatever _skip or _write could look at for an operand is
# there.
_cmd := fx.doc([["prog", "of=./x", "./y"]]).commands[0]

_every_option := {o |
	some s in object.union(data.skillsh.programs, data.skillsh.builtins)
	some key in ["text_options", "write_options", "target_options", "inplace_options"]
	some o in object.get(s, key, [])
}

_parsed := {"options": _every_option, "operands": [1, 2], "values": {}, "attached": set()}

# The same command without options.
_plain := {"options": set(), "operands": [1, 2], "values": {}, "attached": set()}

# The same, with argument 1 given to every such option.
_valued := object.union(_parsed, {"values": {1: _every_option}, "operands": [2]})

# The quick answer for the operands of reader entries must be the one the
# long way gives: no rule of _skip or _write may read such a key for an
# operand. When one does, take the key out of facts._operand_reader_keys.
test_reader_entries_only_read if {
	count(_reader_entries) > 10
	every _, s in _reader_entries {
		every parsed in [_parsed, _plain] {
			every i in [1, 2] {
				not facts._skip(_cmd, s, parsed, i)
				not facts._write(_cmd, s, parsed, i)
			}
		}
	}
}

# The long way is taken for an option's argument, and for an entry with
# any other key: cp writes what -t names, dd its of= file.
test_other_arguments_take_the_long_way if {
	facts._write(_cmd, data.skillsh.programs.cp, _valued, 1)
	facts._skip(_cmd, data.skillsh.programs.head, _valued, 1)
	facts._write(_cmd, data.skillsh.programs.dd, _plain, 1)
	count(object.keys(data.skillsh.programs.dd) - facts._operand_reader_keys) > 0
	cp := fx.doc([["cp", "-t", "/skills-root/x", "./a"]])
	facts.arg_paths[{"command": 0, "path": cp.commands[0].paths[0], "access": "write"}] with input as cp
}
