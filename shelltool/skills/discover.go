package skills

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// skipDirs are directory names never searched for skills.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// Discover finds and loads every skill under roots, leniently, as agent
// clients do: it returns the usable skills sorted by name and every problem
// found, all of them with SeverityWarning.
//
// A folder is a skill when it holds a regular file named SKILL.md (a symlink
// to one counts); Discover does not look for skills inside a skill's folder,
// nor more than MaxDepth directories below a root, nor in directories named
// .git or node_modules. Directories are searched in name order. Symlinked
// directories are followed after the real directories of their root, and no
// directory is searched twice: directories are identified by device and
// inode, so a symlink loop ends, a skill reachable by two paths is loaded once
// (by its real path when that is under the root), and a root inside an
// earlier root adds nothing. On systems without inode numbers symlinked
// directories are not followed.
//
// A skill is skipped, with a warning, when its SKILL.md cannot be read, has
// no parseable frontmatter, or lacks a name or a non-empty description that
// are strings. Everything else Parse reports (a name that does not match its
// folder, an unknown key, a description too long) is a warning and the skill
// is loaded. When two skills share a name the first one found (roots in the
// order given) is kept and the later ones are skipped with a warning.
//
// The error is non-nil only when a root cannot be used: it does not exist, is
// not a directory or cannot be read; it names the root. Discover is safe for
// concurrent use; it only reads the file system.
func Discover(roots ...string) (skills []Skill, problems []Problem, err error) {
	w, err := walk(roots)
	if err != nil {
		return nil, nil, err
	}
	problems = w.problems
	var usable []loaded
	for _, f := range w.found {
		s, ps := f.load()
		for _, p := range ps {
			p.Severity = SeverityWarning
			problems = append(problems, p)
		}
		if why := unusable(s); why != "" {
			problems = append(problems, problemf(SeverityWarning, f.path, 0, "", "skill not loaded: %s", why))
			continue
		}
		usable = append(usable, loaded{s, f.path})
	}
	skills, dups := dedupe(usable)
	slices.SortStableFunc(skills, func(a, b Skill) int { return cmp.Compare(a.Name, b.Name) })
	return skills, append(problems, dups...), nil
}

// unusable says why a leniently parsed skill cannot be loaded, or returns "".
func unusable(s Skill) string {
	switch {
	case s.Name == "" && s.Description == "":
		return "no usable name and description"
	case s.Name == "":
		return "no usable name"
	case s.Description == "":
		return "no usable description"
	}
	return ""
}

// Validate checks every skill under roots strictly against the Agent Skills
// specification. It returns every problem of every skill, in the order the
// skills are found: what Parse reports (errors), an unreadable SKILL.md (an
// error), and warnings for duplicate names, unreadable directories and roots
// without any skill. It searches the same folders as Discover. HasErrors
// tells whether the skills are valid.
//
// The error is non-nil only when a root cannot be used, as for Discover.
// Validate is safe for concurrent use.
func Validate(roots ...string) ([]Problem, error) {
	w, err := walk(roots)
	if err != nil {
		return nil, err
	}
	problems := w.problems
	var named []loaded
	for _, f := range w.found {
		s, ps := f.load()
		problems = append(problems, ps...)
		if s.Name != "" {
			named = append(named, loaded{s, f.path})
		}
	}
	_, dups := dedupe(named)
	return append(problems, dups...), nil
}

// dedupe keeps the first skill of each name and reports the others.
func dedupe(all []loaded) (kept []Skill, problems []Problem) {
	first := map[string]string{} // name to file
	for _, l := range all {
		if f, dup := first[l.Name]; dup {
			problems = append(problems, problemf(SeverityWarning, l.file, 0, "name",
				"duplicate skill name %q: skipped; %s is used", l.Name, f))
			continue
		}
		first[l.Name] = l.file
		kept = append(kept, l.Skill)
	}
	return kept, problems
}

// loaded is a parsed skill with its SKILL.md as reached from the root given.
type loaded struct {
	Skill
	file string
}

// found is a SKILL.md found by a walk.
type found struct {
	root string // absolute root
	path string // path of the SKILL.md as reached from the root given
}

// load reads and parses the SKILL.md; an unreadable file is an error.
func (f found) load() (Skill, []Problem) {
	data, err := os.ReadFile(f.path)
	if err != nil {
		return Skill{}, []Problem{problemf(SeverityError, f.path, 0, "", "cannot read: %v", err)}
	}
	s, ps := Parse(f.path, data)
	s.Root = f.root
	return s, ps
}

// walker searches skills roots; it is used by one goroutine.
type walker struct {
	visited  map[fileID]bool
	links    []link // symlinked directories not yet followed
	found    []found
	problems []Problem
}

// link is a symlinked directory to search once the real tree under its root
// has been searched, so that a skill is found by its real path first.
type link struct {
	root, path string
	depth      int
}

// walk searches every root in order.
func walk(roots []string) (*walker, error) {
	w := &walker{visited: map[fileID]bool{}}
	for _, root := range roots {
		if err := w.root(root); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// root checks that root is a readable directory and searches it.
func (w *walker) root(root string) error {
	info, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("skills root: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("skills root %s: not a directory", root)
	}
	if _, err := os.ReadDir(root); err != nil {
		return fmt.Errorf("skills root: %w", err)
	}
	if w.seen(info) {
		return nil
	}
	before := len(w.found)
	w.dir(absClean(root), filepath.Clean(root), 0)
	w.followLinks()
	if len(w.found) == before {
		w.problems = append(w.problems, problemf(SeverityWarning, root, 0, "", "no SKILL.md found"))
	}
	return nil
}

// dir searches one directory, depth levels below its root, whose own
// identity has already been recorded.
func (w *walker) dir(root, dir string, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.problems = append(w.problems, problemf(SeverityWarning, dir, 0, "", "cannot read directory: %v", err))
		return
	}
	if hasSkill(dir, entries) {
		w.found = append(w.found, found{root: root, path: filepath.Join(dir, "SKILL.md")})
		return
	}
	if depth >= MaxDepth {
		return
	}
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		switch {
		case skipDirs[e.Name()]:
		case e.Type()&os.ModeSymlink != 0 && followSymlinks:
			w.links = append(w.links, link{root: root, path: sub, depth: depth + 1})
		case e.IsDir() && w.enter(sub):
			w.dir(root, sub, depth+1)
		}
	}
}

// followLinks searches the symlinked directories found so far, and those
// found under them, each directory at most once.
func (w *walker) followLinks() {
	for len(w.links) > 0 {
		l := w.links[0]
		w.links = w.links[1:]
		if w.enter(l.path) {
			w.dir(l.root, l.path, l.depth)
		}
	}
}

// enter reports whether path is a directory not searched yet, following a
// symlink, and records it.
func (w *walker) enter(path string) bool {
	info, err := os.Stat(path)
	if err != nil || !info.IsDir() {
		return false
	}
	return !w.seen(info)
}

// seen reports whether the directory described by info was recorded
// before, and records it.
func (w *walker) seen(info os.FileInfo) bool {
	id, ok := identify(info)
	if !ok {
		return false
	}
	if w.visited[id] {
		return true
	}
	w.visited[id] = true
	return false
}

// hasSkill reports whether dir holds a SKILL.md that is, or links to, a
// regular file.
func hasSkill(dir string, entries []os.DirEntry) bool {
	for _, e := range entries {
		if e.Name() != "SKILL.md" {
			continue
		}
		info, err := os.Stat(filepath.Join(dir, e.Name()))
		return err == nil && info.Mode().IsRegular()
	}
	return false
}
