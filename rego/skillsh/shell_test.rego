package skillsh.shell_test

import data.skillsh.fixtures_test as fx

decide(d) := x if {
	x := data.skillsh.main.decision with input as d
}

codes(d) := {r.code | some r in decide(d).reasons}

# One line per case: the command lines, the decision, the reason codes.
cases := {
	"ls": [["ls -la"], "allow", []],
	"cat in workspace": [["cat ./notes.txt"], "allow", []],
	"cat a skill file": [["cat /skills-root/csv-summary/SKILL.md"], "allow", []],
	"cat /etc/passwd": [["cat /etc/passwd"], "deny", ["path.outside_roots"]],
	"cat ../ escape": [["cat ../etc/passwd"], "deny", ["path.outside_roots"]],
	"home is the workspace": [["cat ~/notes.txt"], "allow", []],
	"head -n": [["head -n 5 ./a.csv"], "allow", []],
	"wc pipeline": [["cat ./a.txt", "wc -l"], "allow", []],
	"grep pattern is not a path": [["grep /etc/passwd ./a.txt"], "allow", []],
	"grep -e pattern": [["grep -e /etc/x -r ./src"], "allow", []],
	"grep a file outside": [["grep root /etc/passwd"], "deny", ["path.outside_roots"]],
	"echo is text": [["echo /etc/passwd"], "allow", []],
	"printf is text": [["printf %s\\n /etc/shadow"], "allow", []],
	"cut -d /": [["cut -d / -f 2 ./a.txt"], "allow", []],
	"mkdir in workspace": [["mkdir -p ./out/x"], "allow", []],
	"mkdir in skills": [["mkdir /skills-root/x"], "deny", ["path.write_outside_workspace"]],
	"mkdir outside": [["mkdir /tmp/x"], "deny", ["path.outside_roots"]],
	"touch in skills": [["touch /skills-root/csv-summary/x"], "deny", ["path.write_outside_workspace"]],
	"cp from skills": [["cp /skills-root/csv-summary/scripts/a.py ./a.py"], "allow", []],
	"cp into skills": [["cp ./a.py /skills-root/csv-summary/a.py"], "deny", ["path.write_outside_workspace"]],
	"cp -t into skills": [["cp -t /skills-root/x ./a"], "deny", ["path.write_outside_workspace"]],
	"cp --target-directory=": [["cp --target-directory=/skills-root/x ./a"], "deny", ["path.write_outside_workspace"]],
	"mv out of skills": [["mv /skills-root/a ./a"], "deny", ["path.write_outside_workspace"]],
	"sort -o skills": [["sort -o /skills-root/x ./a"], "deny", ["path.write_outside_workspace"]],
	"sort --output=": [["sort --output=/skills-root/x ./a"], "deny", ["path.write_outside_workspace"]],
	"sort --out abbreviated": [["sort --out /skills-root/x ./a"], "deny", ["path.write_outside_workspace"]],
	"tee in workspace": [["tee ./log.txt"], "allow", []],
	"tee in skills": [["tee /skills-root/log.txt"], "deny", ["path.write_outside_workspace"]],
	"read a device": [["head -c 16 /dev/urandom"], "allow", []],
	"redirect to workspace": [["echo hi > ./out.txt"], "allow", []],
	"redirect to /dev/null": [["ls 2> /dev/null"], "allow", []],
	"redirect outside": [["echo hi > /etc/x"], "deny", ["redirect.outside_roots"]],
	"redirect into skills": [["echo hi >> /skills-root/x"], "deny", ["redirect.write_outside_workspace"]],
	"redirect read skills": [["wc -l < /skills-root/csv-summary/SKILL.md"], "allow", []],
	"redirect read outside": [["wc -l < /etc/passwd"], "deny", ["redirect.outside_roots"]],
	"dev tcp redirect": [["cat < /dev/tcp/example.com/80"], "deny", ["network.dev_tcp"]],
	"dev udp arg": [["cat /dev/udp/1.2.3.4/53"], "deny", ["network.dev_tcp"]],
	"cd in workspace": [["cd ./src"], "allow", []],
	"cd skills": [["cd /skills-root/csv-summary"], "allow", []],
	"cd /": [["cd /"], "deny", ["cd.outside_roots"]],
	"cd ..": [["cd .."], "deny", ["cd.outside_roots"]],
	"pushd /etc": [["pushd /etc"], "deny", ["cd.outside_roots"]],
	"curl": [["curl https://example.com"], "deny", ["network.program"]],
	"wget": [["wget -q http://x"], "deny", ["network.program"]],
	"nc by path": [["/usr/bin/nc -l 80"], "deny", ["network.program"]],
	"sudo": [["sudo ls"], "deny", ["privilege.program"]],
	"chroot": [["chroot / sh"], "deny", ["privilege.program", "path.outside_roots"]],
	"less": [["less ./a.txt"], "deny", ["program.interactive"]],
	"unknown program": [["frobnicate"], "deny", ["program.not_allowed"]],
	"program by odd path": [["/tmp/x/cat ./a"], "deny", ["program.not_allowed"]],
	"program by system path": [["/usr/bin/cat ./a"], "allow", []],
	"skill script": [["/skills-root/csv-summary/scripts/run.sh ./a.csv"], "allow", []],
	"workspace script": [["./run.sh"], "allow", []],
	"dynamic program": [["$tool ./a"], "deny", ["exec.dynamic_program"]],
	"dynamic argument": [["cat $f"], "allow", []],
	"sort compress program": [["sort --compress-program=sh ./a"], "deny", ["exec.option"]],
	"sort abbreviated compress": [["sort --compress-prog sh ./a"], "deny", ["exec.option"]],
	"rg --pre": [["rg --pre ./x.sh foo"], "deny", ["exec.option"]],
	"rg --pre-glob is fine": [["rg --pre-glob *.gz foo"], "allow", []],
	"assignment only": [["X=1"], "allow", []],
	"builtins": [["true", "pwd", "export A=b"], "allow", []],
	"unknown builtin": [["fc -e vi"], "deny", ["builtin.not_allowed"]],
	"empty": [[], "allow", []],
	"find": [["find . -name *.py -type f"], "allow", []],
	"find -path pattern": [["find ./src -path */test/* -print"], "allow", []],
	"find outside": [["find /etc -name passwd"], "deny", ["path.outside_roots"]],
	"find -L options": [["find -L ./src -D tree -O2 -name x"], "allow", []],
	"find -fprint skills": [["find . -fprint /skills-root/x"], "deny", ["path.write_outside_workspace"]],
	"find -fprintf": [["find . -fprintf ./out %p/x"], "allow", []],
	"find -delete skills": [["find /skills-root/csv-summary -name *.tmp -delete"], "deny", ["path.write_outside_workspace", "find.delete"]],
	"find -newermt": [["find . -newermt 2024/01/01"], "allow", []],
}

test_decisions[note] if {
	some note, tc in cases
	d := fx.doc(tc[0])
	decide(d).decision == tc[1]
	codes(d) == {c | some c in tc[2]}
}

test_reason_shape if {
	d := decide(fx.doc(["ls", "cat /etc/passwd"]))
	[r] := d.reasons
	r.code == "path.outside_roots"
	r.verdict == "deny"
	r.command == 1
	r.span == {"start": 8, "end": 19, "line": 1, "col": 9}
	r.message == "`cat /etc/passwd`: /etc/passwd is outside the skills tree (/skills-root) and the workspace (/ws)"
	r.allowed == "read files under /skills-root (read-only) or /ws (read-write), or /dev/null"
}

test_dynamic_program_switch if {
	d := data.skillsh.main.decision with input as fx.doc(["$tool ./a"])
		with data.skillsh.config.allow_dynamic_program as true
	d.decision == "allow"
}

test_opaque if {
	d := fx.with_cmd(fx.doc(["bash -c $x"]), 0, {"opaque": "bash -c runs a script built at run time"})
	codes(d) == {"exec.opaque"}
}

test_dynamic_path_is_left_to_exec_phase if {
	d := fx.with_cmd(fx.doc(["cat $f"]), 0, {"paths": [{"arg": 1, "value": "", "resolved": "", "root": "", "exists": false, "dynamic": true}]})
	decide(d).decision == "allow"
}

test_exec_phase if {
	decide(fx.exec_doc("cat /etc/passwd")).decision == "deny"
	decide(fx.exec_doc("cat ./a")).decision == "allow"
}

test_fallback_denies_unexplained if {
	d := fx.with_cmd(fx.doc(["ls"]), 0, {"kind": "weird"})
	codes(d) == {"policy.not_allowed"}
}

# Without skills roots the confinement rules still judge (no message is
# left undefined), and roots that are not what the schema says deny.
test_no_skills_roots if {
	d := object.union(fx.doc(["cat /etc/passwd"]), {"roots": {"skills": [], "workspace": "/ws"}})
	codes(d) == {"path.outside_roots"}
	x := decide(d)
	x.reasons[0].message == "`cat /etc/passwd`: /etc/passwd is outside the workspace (/ws)"
	x.reasons[0].allowed == "read files under /ws (read-write), or /dev/null"
	decide(object.union(fx.doc(["cat ./a"]), {"roots": {"skills": [], "workspace": "/ws"}})).decision == "allow"
}

test_malformed_roots_deny if {
	every roots in [
		{"skills": null, "workspace": "/ws"},
		{"workspace": "/ws"},
		{"skills": ["/skills-root"], "workspace": 3},
		{"skills": ["relative"], "workspace": "/ws"},
		{"skills": [3], "workspace": "/ws"},
		{"skills": "/skills-root", "workspace": "/ws"},
		{"skills": {"a": "/skills-root"}, "workspace": "/ws"},
	] {
		d := object.union(object.remove(fx.doc(["ls"]), ["roots"]), {"roots": roots})
		"input.malformed" in codes(d)
		decide(d).decision == "deny"
	}
	no_roots := object.remove(fx.doc(["ls"]), ["roots"])
	"input.malformed" in codes(no_roots)
	decide(no_roots).decision == "deny"
}

# A command without the options fact the engine fills in cannot be judged
# (rules about options would be undefined): it is denied, not let through.
test_missing_options_deny if {
	doc := fx.doc(["rm -rf /skills-root/x"])
	without := object.remove(doc.commands[0], ["options"])
	every options in [null, {}, {"names": [], "operands": []}, "x"] {
		d := object.union(doc, {"commands": [object.union(without, {"options": options})]})
		"input.malformed" in codes(d)
		decide(d).decision == "deny"
	}
	d := object.union(doc, {"commands": [without]})
	"input.malformed" in codes(d)
}

test_long_command_text_is_clipped if {
	long := concat(" ", [x | some _ in numbers.range(1, 40); x := "./abcd"])
	d := decide(fx.doc([concat(" ", ["frobnicate", long])]))
	endswith(d.reasons[0].message, "...`: frobnicate is not an allowed program")
}

test_executables if {
	exes := data.skillsh.main.executables
	"python3" in exes
	"grep" in exes
	"gzip" in exes
	not "curl" in exes
	not "less" in exes
}

test_executables_project if {
	exes := data.skillsh.main.executables with data.skillsh.layers.project.programs as {"shellcheck": {}, "curl": {}}
	"shellcheck" in exes
	not "curl" in exes
}

test_redirect_outside_says_where_writes_go if {
	d := decide(fx.doc(["echo hi > /etc/x"]))
	[r] := d.reasons
	r.allowed == "write files under the workspace /ws"
}

test_redirect_read_outside_says_where_reads_go if {
	d := decide(fx.doc(["wc -l < /etc/passwd"]))
	[r] := d.reasons
	startswith(r.allowed, "read files under /skills-root")
}
