package skillsh.project_test

import data.skillsh.fixtures_test as fx

decide(lines) := x if {
	x := data.skillsh.main.decision with input as fx.doc(lines)
}

test_rm_refused if {
	x := decide(["rm ./notes.txt"])
	x.decision == "deny"
	[r.code | some r in x.reasons] == ["project.rm_in_workspace"]
	x.reasons[0].allowed == "mv FILE ./trash/"
}

test_mv_allowed if decide(["mv ./notes.txt ./trash/"]).decision == "allow"

test_added_program if decide(["shellcheck -f gcc ./a.sh"]).decision == "allow"

test_git_asks if decide(["git status"]).decision == "ask"
