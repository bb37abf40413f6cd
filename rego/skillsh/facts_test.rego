package skillsh.facts_test

import data.skillsh.facts
import data.skillsh.fixtures_test as fx

# _reader_entries are the allowlist entries (programs and builtins) that
# facts._access calls readers without looking at the options.
_reader_entries[name] := s if {
	some name, s in object.union(data.skillsh.programs, data.skillsh.builtins)
	count(object.keys(s) - facts._reader_keys) == 0
}

# A command whose argument 1 is given to every option that makes an
# argument text or a write target somewhere in the data, and is also the
# first and last operand: whatever _skip or _write could look at is there.
_cmd := fx.doc([["prog", "of=./x", "./y"]]).commands[0]

_every_option := {o |
	some s in object.union(data.skillsh.programs, data.skillsh.builtins)
	some key in ["text_options", "write_options", "target_options", "inplace_options"]
	some o in object.get(s, key, [])
}

_parsed := {
	"options": _every_option,
	"operands": [1, 2],
	"values": {1: _every_option},
	"attached": set(),
}

# The same command without options.
_plain := {"options": set(), "operands": [1, 2], "values": {}, "attached": set()}

# The quick answer for reader entries must be the one the long way gives:
# no rule of _skip or _write may read a reader key. When one does, take the
# key out of facts._reader_keys.
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

# And the long way is taken for an entry with any other key: cp writes
# what -t names, dd its of= file.
test_other_entries_take_the_long_way if {
	facts._write(_cmd, data.skillsh.programs.cp, _parsed, 1)
	facts._write(_cmd, data.skillsh.programs.dd, _parsed, 1)
	count(object.keys(data.skillsh.programs.dd) - facts._reader_keys) > 0
}
