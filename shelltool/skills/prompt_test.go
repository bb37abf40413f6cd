package skills

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAvailableSkills(t *testing.T) {
	t.Parallel()
	catalog := []Skill{
		{Name: "pdf-tools", Description: `Reads <PDF> files & "forms" that aren't encrypted.`, Location: "/skills/pdf-tools/SKILL.md"},
		{Name: "a&b", Description: "x > y", Dir: "/skills/it's here"},
	}
	want := `<available_skills>
<skill>
<name>
pdf-tools
</name>
<description>
Reads &lt;PDF&gt; files &amp; &quot;forms&quot; that aren&#x27;t encrypted.
</description>
<location>
/skills/pdf-tools/SKILL.md
</location>
</skill>
<skill>
<name>
a&amp;b
</name>
<description>
x &gt; y
</description>
<location>
/skills/it&#x27;s here/SKILL.md
</location>
</skill>
</available_skills>`
	if diff := cmp.Diff(want, AvailableSkills(catalog)); diff != "" {
		t.Errorf("AvailableSkills (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("<available_skills>\n</available_skills>", AvailableSkills(nil)); diff != "" {
		t.Errorf("AvailableSkills(nil) (-want +got):\n%s", diff)
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	catalog := []Skill{{Name: "x", Description: "<y>", Location: "/s/x/SKILL.md"}}
	got := Prompt(catalog)
	if want := Instructions + "\n" + AvailableSkills(catalog); got != want {
		t.Errorf("Prompt = %q, want %q", got, want)
	}
	for _, want := range []string{"`shell`", "cat <location>", "`cd`", "workspace", "refused", "&lt;y&gt;"} {
		if !strings.Contains(got, want) {
			t.Errorf("Prompt lacks %q:\n%s", want, got)
		}
	}
}
