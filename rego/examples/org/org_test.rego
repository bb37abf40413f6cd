package skillsh.org_test

import data.skillsh.fixtures_test as fx

test_inline_code_refused_even_when_the_project_allows_it if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 -c print(1)"])
		with data.skillsh.layers.project.config as {"allow_inline_code": true}
	x.decision == "deny"
	{r.code | some r in x.reasons} == {"org.inline_code", "interpreter.inline_code"}
}

test_scripts_still_run if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 ./a.py"])
	x.decision == "allow"
}
