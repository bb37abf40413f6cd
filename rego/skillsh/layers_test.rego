package skillsh.layers_test

import data.skillsh.fixtures_test as fx

decide(d) := x if {
	x := data.skillsh.main.decision with input as d
}

skills := [
	{"name": "csv-summary", "dir": "/skills-root/csv-summary", "location": "/skills-root/csv-summary/SKILL.md", "allowed_tools": ["Bash(python3:*)", "Bash(git status:*)", "Read"]},
	{"name": "text-tools", "dir": "/skills-root/text-tools", "location": "/skills-root/text-tools/SKILL.md", "allowed_tools": []},
	{"name": "exact", "dir": "/skills-root/exact", "location": "/skills-root/exact/SKILL.md", "allowed_tools": ["Bash(ls)", "Bash(scripts/run.sh:*)"]},
	{"name": "any", "dir": "/skills-root/any", "location": "/skills-root/any/SKILL.md", "allowed_tools": ["Bash"]},
	{"name": "shell", "dir": "/skills-root/shell", "location": "/skills-root/shell/SKILL.md", "allowed_tools": ["shell"]},
	{"name": "shellpat", "dir": "/skills-root/shellpat", "location": "/skills-root/shellpat/SKILL.md", "allowed_tools": ["shell(jq:*)"]},
]

with_skills(lines, cwd) := object.union(fx.doc(lines), {"cwd": cwd, "session": {"home": "/ws", "skills": skills, "protections": []}})

tools_cases := {
	"script with allowed interpreter": [["python3 /skills-root/csv-summary/scripts/s.py ./a.csv"], "/ws", false],
	"script with other interpreter": [["bash /skills-root/csv-summary/scripts/s.sh"], "/ws", true],
	"cwd in skill, allowed prefix": [["git status --short"], "/skills-root/csv-summary", false],
	"cwd in skill, not allowed": [["cat ./SKILL.md"], "/skills-root/csv-summary", true],
	"cwd in skill, cd is exempt": [["cd /ws"], "/skills-root/csv-summary", false],
	"unrestricted skill": [["bash /skills-root/text-tools/scripts/t.sh"], "/ws", false],
	"not a skill command": [["cat ./a"], "/ws", false],
	"exact match": [["ls"], "/skills-root/exact", false],
	"exact mismatch": [["ls -la"], "/skills-root/exact", true],
	"skill script by path": [["/skills-root/exact/scripts/run.sh x"], "/ws", false],
	"Bash allows all": [["wc -l ./x"], "/skills-root/any", false],
	"shell allows all": [["python3 /skills-root/shell/scripts/s.py"], "/ws", false],
	"shell pattern allows": [["jq . ./x.json"], "/skills-root/shellpat", false],
	"shell pattern refuses": [["wc -l ./x"], "/skills-root/shellpat", true],
}

test_allowed_tools[note] if {
	some note, tc in tools_cases
	x := data.skillsh.main.decision with input as with_skills(tc[0], tc[1])
		with data.skillsh.config.enforce_allowed_tools as true
	_tools_reason(x) == tc[2]
}

_tools_reason(x) := "tools.not_allowed" in {r.code | some r in x.reasons}

test_allowed_tools_off_by_default if {
	decide(with_skills(["bash /skills-root/csv-summary/scripts/s.sh"], "/ws")).decision == "allow"
}

profiles := {
	"programs": {"python3": {"timeout_seconds": 60, "memory_bytes": 1000}},
	"scripts": [{"pattern": "/skills-root/*/scripts/heavy*.py", "profile": {"timeout_seconds": 600}}],
}

test_profile_per_program if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 ./a.py"])
		with data.skillsh.profiles as profiles
	x.profile == {"timeout_seconds": 60, "memory_bytes": 1000}
}

test_profile_per_script if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 /skills-root/csv-summary/scripts/heavy_sum.py", "sort"])
		with data.skillsh.profiles as profiles
	x.profile == {"timeout_seconds": 600, "memory_bytes": 1000}
}

test_profile_static_maximum if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 ./a.py", "/skills-root/csv-summary/scripts/heavy.py"])
		with data.skillsh.profiles as profiles
	x.profile == {"timeout_seconds": 600, "memory_bytes": 1000}
}

test_profile_project_first if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 ./a.py"])
		with data.skillsh.profiles as profiles
		with data.skillsh.layers.project.profiles as {"programs": {"python3": {"cpu_seconds": 5}}, "scripts": [{"pattern": "/ws/*.py", "profile": {"output_bytes": 10}}]}
	x.profile == {"cpu_seconds": 5, "output_bytes": 10}
}

# With the default's profiles empty, the project's still apply.
test_profile_project_only if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 ./a.py"])
		with data.skillsh.profiles as {"programs": {}, "scripts": []}
		with data.skillsh.layers.project.profiles as {"scripts": [{"pattern": "/ws/*.py", "profile": {"output_bytes": 10}}]}
	x.profile == {"output_bytes": 10}
}

test_no_profile if {
	not decide(fx.doc(["ls"])).profile
}

test_project_config_and_programs if {
	x := data.skillsh.main.decision with input as fx.doc(["shellcheck ./a.sh", "python3 -c 1"])
		with data.skillsh.layers.project as {"programs": {"shellcheck": {}}, "config": {"allow_inline_code": true}}
	x.decision == "allow"
}

test_org_config_wins if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 -c 1"])
		with data.skillsh.layers.project.config as {"allow_inline_code": true}
		with data.skillsh.layers.org.config as {"allow_inline_code": false}
	x.decision == "deny"
}

test_layer_rules if {
	x := data.skillsh.main.decision with input as fx.doc(["ls", "date"])
		with data.skillsh.org.deny as {{"code": "org.x", "verdict": "deny", "message": "m", "allowed": "a", "command": 0}}
		with data.skillsh.project.ask as {{"code": "project.y", "verdict": "ask", "message": "m", "allowed": "a", "command": 1}}
	x.decision == "deny"
	[r.code | some r in x.reasons] == ["org.x", "project.y"]
}

test_layer_ask if {
	x := data.skillsh.main.decision with input as fx.doc(["ls"])
		with data.skillsh.org.ask as {{"code": "org.x", "verdict": "ask", "message": "m", "allowed": "a", "command": 0}}
		with data.skillsh.project.deny as set()
	x.decision == "ask"
}
