package skillsh.static_test

import data.skillsh.fixtures_test as fx
import data.skillsh.static

test_plain_programs if {
	static.plain_programs.cat
	static.free_programs.cat
	static.plain_programs.python3.interpreter
	static.script_interpreters.python3
	not static.free_programs.python3
	not static.free_programs.sort # sort --compress-program runs a program
	not static.plain_programs.rm # judged by name
	not static.plain_programs.find # an entry some rule reads
	not static.plain_programs.curl # refused outright
}

test_unplain_names if {
	every name in ["rm", "git", "declare", "curl", "sudo", "less", "find"] {
		static.unplain_names[name]
	}
	not static.unplain_names.cat
	static.plain_builtins.echo
	not static.plain_builtins.cd
}

# The configuration's ask.programs and the project layer's entries are
# seen, whoever gives them.
test_layers_and_config if {
	not static.plain_programs.cat with data.skillsh.config.ask.programs as {"cat": "ask first"}
	static.unplain_names.cat with data.skillsh.config.ask.programs as {"cat": "ask first"}
	static.free_programs.mytool with data.skillsh.layers.project.programs.mytool as {"flags": ["-v"]}
	not static.plain_programs.mytool with data.skillsh.layers.project.programs.mytool as {"paths": "all"}
	static.unplain_names.mytool with data.skillsh.layers.project.programs.mytool as true
	not static.plain_programs.mytool with data.skillsh.layers.project.programs.mytool as true
	not static.plain_builtins.echo with data.skillsh.layers.project.builtins.echo as false
}

# A layer entry that is not an object is never plain, and the decision
# agrees with every rule.
test_malformed_entry_agrees if {
	d := fx.doc(["mytool ./a"])
	a := data.skillsh.main.decision with input as d with data.skillsh.layers.project.programs.mytool as true
	b := data.skillsh.main.full_decision with input as d with data.skillsh.layers.project.programs.mytool as true
	a == b
}

test_profiles_configured if {
	not static.profiles_configured
	static.profiles_configured with data.skillsh.profiles.scripts as [{"pattern": "*", "profile": {"timeout_ms": 1}}]
	static.profiles_configured with data.skillsh.profiles.programs as {"python3": {"timeout_ms": 1}}
	static.profiles_configured with data.skillsh.layers.project.profiles as {"programs": {}}
}

# Every layer's deny and ask reach layer_reasons.
test_layer_reasons if {
	count(static.layer_reasons) == 0
	static.layer_reasons == {1, 2, 3, 4} with data.skillsh.org.deny as {1}
		with data.skillsh.org.ask as {2}
		with data.skillsh.project.deny as {3}
		with data.skillsh.project.ask as {4}
}
