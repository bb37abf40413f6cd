package skills_test

import (
	"fmt"
	"log"

	"github.com/skillsh/skillsh/shelltool/skills"
)

// Discover loads the skills under a root for the model, Validate checks them
// for their author, and Prompt tells the model about them.
func Example() {
	catalog, problems, err := skills.Discover("../../testdata/skills")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range catalog {
		fmt.Println(s.Name, s.AllowedTools)
	}
	fmt.Println(len(problems), "problems")

	problems, err = skills.Validate("../../testdata/invalid-skills/mismatched-name")
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range problems {
		fmt.Println(p.Severity, p)
	}

	prompt := skills.Prompt(catalog)
	_ = prompt // the shell tool's description, for the model
	// Output:
	// csv-summary [shell]
	// json-tools []
	// text-tools []
	// 0 problems
	// error ../../testdata/invalid-skills/mismatched-name/SKILL.md:2: name: "other-name" does not match its folder name "mismatched-name"
}

func ExampleAvailableSkills() {
	fmt.Println(skills.AvailableSkills([]skills.Skill{{
		Name:        "csv-summary",
		Description: "Summarize a CSV file & write a <report>.",
		Location:    "/skills/csv-summary/SKILL.md",
	}}))
	// Output:
	// <available_skills>
	// <skill>
	// <name>
	// csv-summary
	// </name>
	// <description>
	// Summarize a CSV file &amp; write a &lt;report&gt;.
	// </description>
	// <location>
	// /skills/csv-summary/SKILL.md
	// </location>
	// </skill>
	// </available_skills>
}

func ExampleParse() {
	_, problems := skills.Parse("/skills/demo/SKILL.md", []byte("---\nname: Demo\ndescription: 5\nversion: 1\n---\n"))
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// /skills/demo/SKILL.md:2: name: may contain only lowercase letters a-z, digits 0-9 and hyphens, not 'D'
	// /skills/demo/SKILL.md:2: name: "Demo" does not match its folder name "demo"
	// /skills/demo/SKILL.md:3: description: must be a string, not an integer
	// /skills/demo/SKILL.md:4: version: unknown field; the specification allows only name, description, license, compatibility, metadata, allowed-tools
}
