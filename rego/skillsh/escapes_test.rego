package skillsh.escapes_test

import data.skillsh.fixtures_test as fx

decide(d) := x if {
	x := data.skillsh.main.decision with input as d
}

# Program escapes, one line per case: the command lines (a line given as a
# list of words keeps spaces inside words), the decision, the reason codes.
cases := {
	"find -exec hidden": [["find . -exec cat {} ;"], "deny", ["find.exec"]],
	"find -ok": [["find . -ok rm {} ;"], "deny", ["find.exec"]],
	"find -delete": [["find ./build -name *.o -delete"], "ask", ["find.delete"]],
	"rm -r": [["rm -r ./build"], "ask", ["rm.recursive"]],
	"rm -r -f": [["rm -r -f ./build"], "ask", ["rm.recursive"]],
	"rm --rec": [["rm --rec ./build"], "ask", ["rm.recursive"]],
	"rm -rf skills": [["rm -rf /skills-root/x"], "deny", ["path.write_outside_workspace", "rm.recursive"]],
	"sed print": [["sed -n 1,5p ./a"], "allow", []],
	"sed s": [[["sed", "s/a/b/g", "./a"]], "allow", []],
	"sed e flag": [[["sed", "s/a/b/e", "./x"]], "deny", ["sed.execute"]],
	"sed e command": [[["sed", "-e", "1e date", "./x"]], "deny", ["sed.execute"]],
	"sed --expression=": [[["sed", "--expression=1e id", "./x"]], "deny", ["sed.execute"]],
	"sed -e attached": [[["sed", "-e1e id", "./x"]], "deny", ["sed.execute"]],
	"sed other delimiter e": [[["sed", "s|a|b|e", "./x"]], "deny", ["sed.execute"]],
	"sed sandbox": [[["sed", "--sandbox", "1e date", "./x"]], "allow", []],
	"sed append text": [[["sed", "/x/a hello world", "./x"]], "allow", []],
	"sed labels": [[["sed", ":end;s/x/y/;tend", "./x"]], "allow", []],
	"sed y": [[["sed", "y/abc/xyz/", "./x"]], "allow", []],
	"sed w flag": [[["sed", "s/x/y/w out", "./x"]], "deny", ["sed.file"]],
	"sed r command": [[["sed", "1r /etc/passwd", "./x"]], "deny", ["sed.file"]],
	"sed W command": [[["sed", "/x/W ./out", "./x"]], "deny", ["sed.file"]],
	"sed -i workspace": [[["sed", "-i", "s/a/b/", "./x"]], "allow", []],
	"sed -i.bak": [[["sed", "-i.bak", "s/a/b/", "./x"]], "allow", []],
	"sed -i skills": [[["sed", "-i", "s/a/b/", "/skills-root/x"]], "deny", ["path.write_outside_workspace"]],
	"sed -ni skills": [[["sed", "-ni", "s/a/b/p", "/skills-root/x"]], "deny", ["path.write_outside_workspace"]],
	"sed -f script": [["sed -f ./s.sed ./x"], "allow", []],
	"awk print": [[["awk", "'{print $1}'", "./a"]], "allow", []],
	"awk regex alternation": [[["awk", "-v", "x=1", "'$1 ~ /a|b/ || $2 {n++} END {print n}'"]], "allow", []],
	"awk split pipe string": [[["awk", "'{split($0, a, \"|\"); print a[1]}'"]], "allow", []],
	"awk system": [[["awk", "BEGIN{system(\"id\")}"]], "deny", ["awk.system"]],
	"awk system spaced": [[["awk", "BEGIN{system (\"id\")}"]], "deny", ["awk.system"]],
	"awk print pipe": [[["awk", "{print | \"sh\"}"]], "deny", ["awk.system"]],
	"awk getline pipe": [[["awk", "BEGIN{\"id\" | getline x}"]], "deny", ["awk.system"]],
	"awk pipe after string": [[["awk", "{x = \"(/\"; print 1 | \"sh\"}"]], "deny", ["awk.system"]],
	"awk pipe after division": [[["awk", "{print 1/1 | \"sh\"; x=1/1}"]], "deny", ["awk.system"]],
	"awk pipe in regex then code": [[["awk", "/\"/ {print | \"sh\"}"]], "deny", ["awk.system"]],
	"awk @load": [[["gawk", "@load \"x\"; BEGIN{}"]], "deny", ["awk.system"]],
	"awk -l": [["gawk -l ./ext.so BEGIN{}"], "deny", ["exec.option"]],
	"awk --source": [[["gawk", "--source=BEGIN{system(\"id\")}"]], "deny", ["awk.system"]],
	"awk inet": [[["gawk", "BEGIN{ s=\"/inet/tcp/0/x/80\"; print \"x\" > s}"]], "deny", ["network.awk_inet"]],
	"awk -f file": [["awk -f /skills-root/text-tools/scripts/count.awk ./a"], "allow", []],
	"sort compress": [["sort --compress-program=sh ./a"], "deny", ["exec.option"]],
	"rg pre": [["rg --pre ./x.sh foo"], "deny", ["exec.option"]],
	"rg -z": [["rg -z foo"], "deny", ["exec.option"]],
	"tar extract": [["tar xzf ./a.tgz"], "allow", []],
	"tar list": [["tar -tzf /skills-root/text-tools/a.tgz"], "allow", []],
	"tar extract -C skills": [["tar -xf ./a.tar -C /skills-root/x"], "deny", ["path.write_outside_workspace"]],
	"tar create into skills": [["tar -cf /skills-root/a.tar ./x"], "deny", ["path.write_outside_workspace"]],
	"tar old style create into skills": [["tar cf /skills-root/a.tar ./x"], "deny", ["path.write_outside_workspace"]],
	"tar old style -I": [["tar xIf sh ./a.tar"], "deny", ["exec.option"]],
	"tar --to-command": [["tar --to-command=sh -xf ./a.tar"], "deny", ["exec.option"]],
	"tar --to-com abbreviated": [["tar --to-com=sh -xf ./a.tar"], "deny", ["exec.option"]],
	"tar checkpoint action": [["tar --checkpoint=1 --checkpoint-action=exec=sh -cf ./a.tar ./x"], "deny", ["exec.option"]],
	"tar remote": [["tar -tf host:/a.tar"], "deny", ["tar.remote_archive"]],
	"tar force local": [["tar --force-local -tf ./a:b.tar"], "allow", []],
	"zip": [["zip -r ./o.zip ./d"], "allow", []],
	"zip into skills": [["zip -r /skills-root/o.zip ./d"], "deny", ["path.write_outside_workspace"]],
	"zip -TT": [["zip -T -TT sh ./o.zip ./d"], "deny", ["exec.option"]],
	"zip --unzip-command": [["zip -T --unzip-command=sh ./o.zip ./d"], "deny", ["exec.option"]],
	"unzip": [["unzip ./o.zip"], "allow", []],
	"unzip -l": [["unzip -l /skills-root/o.zip"], "allow", []],
	"unzip -d skills": [["unzip ./o.zip -d /skills-root/x"], "deny", ["path.write_outside_workspace"]],
	"git status": [["git status"], "allow", []],
	"git log -C": [["git -C ./repo log -p"], "allow", []],
	"git version": [["git --version"], "allow", []],
	"git -c": [["git -c core.pager=sh log"], "deny", ["git.config_injection"]],
	"git --config-env": [["git --config-env=core.pager=X log"], "deny", ["git.config_injection"]],
	"git clone --template": [["git clone --template=./t /ws/a ./b"], "deny", ["git.config_injection"]],
	"git config write": [["git config core.fsmonitor ./x"], "deny", ["git.config_injection"]],
	"git config --add": [["git config --add alias.x !sh"], "deny", ["git.config_injection"]],
	"git config get": [["git config --get user.name"], "allow", []],
	"git config name": [["git config user.name"], "allow", []],
	"git exec-path": [["git --exec-path=/ws/x status"], "deny", ["git.exec_path"]],
	"git push": [["git push"], "deny", ["git.network"]],
	"git fetch": [["git -C ./r fetch origin"], "deny", ["git.network"]],
	"git remote -v": [["git remote -v"], "allow", []],
	"git remote add": [["git remote add o https://x"], "deny", ["git.network"]],
	"git clone url": [["git clone https://x/y"], "deny", ["git.network"]],
	"git clone scp": [["git clone git@host:x/y"], "deny", ["git.network"]],
	"git clone local": [["git clone /skills-root/a ./a"], "allow", []],
	"git archive remote": [["git archive --remote=x HEAD"], "deny", ["git.network"]],
	"git alias": [["git foo"], "deny", ["git.subcommand"]],
	"git help": [["git help log"], "deny", ["git.subcommand"]],
	"git rebase exec": [["git rebase -x sh main"], "deny", ["git.exec"]],
	"git rebase --exec=": [["git rebase --exec=sh main"], "deny", ["git.exec"]],
	"git bisect run": [["git bisect run ./t.sh"], "deny", ["git.exec"]],
	"git grep -O": [["git grep -Ovi foo"], "deny", ["git.exec"]],
	"git paginate": [["git -p log"], "deny", ["git.exec"]],
	"git --help": [["git log --help"], "deny", ["git.exec"]],
	"git upload-pack": [["git clone --upload-pack=sh /ws/a ./b"], "deny", ["git.exec"]],
	"git ext remote": [["git clone ext::sh ./x"], "deny", ["git.exec", "git.network"]],
	"git outside workspace": [["git -C /skills-root/a log"], "deny", ["git.outside_workspace"]],
	"git reset hard": [["git reset --hard"], "ask", ["git.destructive"]],
	"git clean": [["git clean -fd"], "ask", ["git.destructive"]],
	"git clean -n": [["git clean -n"], "allow", []],
	"git checkout --": [["git checkout -- ./a"], "ask", ["git.destructive"]],
	"git restore": [["git restore ./a"], "ask", ["git.destructive"]],
	"git branch -D": [["git branch -D x"], "ask", ["git.destructive"]],
	"git stash drop": [["git stash drop"], "ask", ["git.destructive"]],
	"hook write": [["echo x > .git/hooks/pre-commit"], "deny", ["git.metadata_write"]],
	"git config file write": [["cp ./c ./repo/.git/config"], "deny", ["git.metadata_write"]],
	"python script skills": [["python3 /skills-root/csv-summary/scripts/s.py ./a.csv"], "allow", []],
	"python script args": [["python3 ./s.py -c x"], "allow", []],
	"python -c": [["python3 -c print(1)"], "deny", ["interpreter.inline_code"]],
	"python -Sc": [["python3 -Sc print(1)"], "deny", ["interpreter.inline_code"]],
	"python stdin": [["python3"], "deny", ["interpreter.stdin"]],
	"python dash": [["python3 - ./a"], "deny", ["interpreter.stdin"]],
	"python version": [["python3 --version"], "allow", []],
	"python -m bad": [["python3 -m http.server"], "deny", ["interpreter.module"]],
	"python -m ok": [["python3 -m json.tool ./a.json"], "allow", []],
	"python outside": [["python3 /etc/x.py"], "deny", ["path.outside_roots"]],
	"node -e": [["node -e 1"], "deny", ["interpreter.inline_code"]],
	"node --eval=": [["node --eval=1"], "deny", ["interpreter.inline_code"]],
	"node --inspect": [["node --inspect ./a.js"], "deny", ["exec.option"]],
	"perl -e": [["perl -e 1"], "deny", ["interpreter.inline_code"]],
	"perl script": [["perl ./a.pl"], "allow", []],
	"bash script": [["bash ./x.sh"], "allow", []],
	"bash -s": [["bash -s"], "deny", ["interpreter.stdin"]],
	"bash -c hidden": [[["bash", "-c", "ls"]], "deny", ["interpreter.inline_code"]],
	"env alone": [["env"], "allow", []],
	"env -C": [["env -C /etc cat passwd"], "deny", ["exec.option", "path.outside_roots"]],
	"env -S": [[["env", "-S", "sh -c id"]], "deny", ["exec.option"]],
	"xargs": [["xargs -0 -n 1 wc -l", "wc -l"], "allow", []],
	"timeout": [["timeout 5 cat ./a", "cat ./a"], "allow", []],
}

test_escapes[note] if {
	some note, tc in cases
	d := fx.doc(tc[0])
	x := decide(fx.doc(tc[0]))
	x.decision == tc[1]
	{r.code | some r in x.reasons} == {c | some c in tc[2]}
	d
}

_nested_in(d, i, parent, wrapper) := fx.with_cmd(d, i, {"wrapper": {"name": wrapper, "parent": parent}})

test_find_exec_nested_is_judged if {
	d := _nested_in(fx.doc(["find . -exec curl x ;", "curl x"]), 1, 0, "find")
	{r.code | some r in decide(d).reasons} == {"network.program"}
}

test_find_exec_unwrapped if {
	d := _nested_in(fx.doc(["find . -name *.txt -exec cat {} ;", "cat {}"]), 1, 0, "find")
	decide(d).decision == "allow"
}

test_bash_c_unwrapped if {
	d := _nested_in(_nested_in(fx.doc([["bash", "-c", "ls | wc -l"], "ls", "wc -l"]), 1, 0, "bash"), 2, 0, "bash")
	decide(d).decision == "allow"
}

test_bash_c_nested_is_judged if {
	d := _nested_in(fx.doc([["bash", "-c", "cat /etc/passwd"], "cat /etc/passwd"]), 1, 0, "bash")
	{r.code | some r in decide(d).reasons} == {"path.outside_roots"}
}

test_inline_code_switch if {
	x := data.skillsh.main.decision with input as fx.doc(["python3 -c print(1)"])
		with data.skillsh.config.allow_inline_code as true
	x.decision == "allow"
}

test_ask_switch_off if {
	x := data.skillsh.main.decision with input as fx.doc(["rm -rf ./build"])
		with data.skillsh.config.ask.recursive_delete as false
	x.decision == "allow"
}

test_program_ask if {
	x := data.skillsh.main.decision with input as fx.doc(["date"])
		with data.skillsh.config.ask.programs as {"date": "date shows the clock"}
	x.decision == "ask"
	x.reasons[0].code == "program.ask"
}

test_extract_in_skills_cwd if {
	d := object.union(fx.doc(["tar xf ./a.tar"]), {"cwd": "/skills-root/text-tools"})
	{r.code | some r in decide(d).reasons} == {"archive.extract_outside_workspace"}
}

test_git_in_skills_cwd if {
	d := object.union(fx.doc(["git status"]), {"cwd": "/skills-root/text-tools"})
	{r.code | some r in decide(d).reasons} == {"git.outside_workspace"}
}
