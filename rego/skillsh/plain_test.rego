package skillsh.plain_test

import data.skillsh.fixtures_test as fx

plain(d) if data.skillsh.plain.commands with input as d

# both(d) is the decision with and without the plain short way, which
# must agree.
both(d) := [a, b] if {
	a := data.skillsh.main.decision with input as d
	b := data.skillsh.main.full_decision with input as d
}

agrees(d) if {
	[a, b] := both(d)
	a == b
}

test_plain_commands if {
	every line in ["ls -la", "cat ./a.txt", "head -n 5 ./a.txt", "uniq ./a.txt", "python3 /skills-root/x/scripts/s.py ./in.csv", "echo hi"] {
		d := fx.doc([line])
		plain(d)
		agrees(d)
	}
}

test_not_plain if {
	every line in [
		"uniq ./a.txt ./b.txt", "sort -o ./out.txt ./a.txt", "python3 -c x", "python3",
		"cat /etc/passwd", "cat $f", "cat ./a > ./b", "X=1 cat ./a", "cd /ws", "read x",
	] {
		d := fx.doc([line])
		not plain(d)
		agrees(d)
	}
}

# A skill's script named like an allowlisted program is judged with that
# program's entry, as skillsh.facts does.
test_script_named_like_a_program if {
	d := fx.doc(["/ws/bin/sort -o /skills-root/x ./a"])
	not plain(d)
	agrees(d)
	plain(fx.doc(["/ws/bin/sort ./a"]))
}

# A path known only at run time is not plain, even with a literal word.
test_dynamic_path_not_plain if {
	d := fx.doc(["cat ./a"])
	p := object.union(d.commands[0].paths[0], {"dynamic": true})
	dyn := fx.with_cmd(d, 0, {"paths": [p]})
	not plain(dyn)
	agrees(dyn)
}

# A layer can refuse a program outright: plain commands then fall back.
test_refused_by_a_layer_not_plain if {
	d := fx.doc(["cat ./a"])
	not plain(d) with data.skillsh.interactive_programs.cat as true
	[a, b] := both(d) with data.skillsh.interactive_programs.cat as true
	a == b
	a.decision == "deny"
}

# Malformed roots or a missing options fact never take the short way.
test_malformed_not_plain if {
	d := fx.doc(["cat ./a"])
	every roots in [
		{"skills": ["rel"], "workspace": "/ws"},
		{"skills": "/skills-root", "workspace": "/ws"},
		{"skills": ["/skills-root"], "workspace": "ws"},
	] {
		bad := object.union(object.remove(d, ["roots"]), {"roots": roots})
		not plain(bad)
		agrees(bad)
	}
	not plain(object.remove(d, ["roots"]))
	without := object.remove(d.commands[0], ["options"])
	not plain(object.union(d, {"commands": [object.union(without, {"options": {"names": []}})]}))
	not plain(object.union(d, {"commands": [without]}))
}

# A layer's entry for a program the default judges by name (rm, sed, git)
# does not make it plain: those rules fire whatever the entry says.
test_layer_entry_of_a_judged_program_not_plain if {
	every line in ["rm -r ./a", "sed -n p ./a", "git status"] {
		d := fx.doc([line])
		not plain(d) with data.skillsh.layers.project.programs as {"rm": {}, "sed": {}, "git": {}}
		[a, b] := both(d) with data.skillsh.layers.project.programs as {"rm": {}, "sed": {}, "git": {}}
		a == b
	}
}
