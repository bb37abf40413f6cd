package policy

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxSymlinks bounds how many symlinks one resolution follows, as the
// kernel's ELOOP does.
const maxSymlinks = 40

// deviceNames are the harmless devices in /dev every command may use.
var deviceNames = map[string]bool{
	"null": true, "zero": true, "urandom": true, "random": true, "full": true,
	"stdin": true, "stdout": true, "stderr": true,
}

// DevicePath returns the device an absolute path names, such as
// "/dev/null" or "/dev/fd/1", or "" when it names none. The directory part
// is resolved as the kernel would, so that ws/link/../dev/null, which the
// kernel may well resolve to a file in the workspace, is no device.
func DevicePath(abs string) string { return DevicePathWith(abs, resolveSymlinks) }

// DevicePathWith is DevicePath resolving the directory part with resolve
// (such as one that does not look outside the roots, see ResolvePathIn).
func DevicePathWith(abs string, resolve func(string) string) string {
	i := strings.LastIndexByte(abs, '/')
	if i < 0 {
		return ""
	}
	parent, base := abs[:i], abs[i+1:]
	if !deviceNames[base] && !isDigits(base) {
		return "" // no device has this name: no need to resolve
	}
	if parent == "" {
		parent = "/"
	}
	switch dir := resolve(parent); {
	case dir == "/dev" && deviceNames[base]:
		return "/dev/" + base
	case (dir == "/dev/fd" || dir == resolve("/dev/fd")) && isDigits(base):
		return "/dev/fd/" + base
	}
	return ""
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// argPaths finds the path-like arguments of a command: after argv[0], each
// literal non-option word that contains "/", starts with "~" or ".", or
// names something that exists in the working directory; and the value of
// an --opt=value option, of a short option given in the same word
// (-o/tmp/x), or of a NAME=value word (dd's if=FILE) when it contains "/". Dynamic words, which may be paths, are listed as dynamic
// paths.
func (b *builder) argPaths(cmd *Command) []Path {
	paths := []Path{}
	options := true
	for i := 1; i < len(cmd.Argv); i++ {
		w := cmd.Argv[i]
		if w.Dynamic {
			paths = append(paths, Path{Arg: i, Dynamic: true})
			continue
		}
		v, ok := pathCandidate(w.Value, options, b.cwd)
		if w.Value == "--" {
			options = false
		}
		if !ok {
			continue
		}
		p := b.resolve(v)
		p.Arg = i
		paths = append(paths, p)
	}
	return paths
}

// pathCandidate returns the part of an argument that may be a path.
func pathCandidate(arg string, options bool, cwd string) (string, bool) {
	if arg == "" || arg == "-" || arg == "--" {
		return "", false
	}
	if options && strings.HasPrefix(arg, "--") {
		_, val, ok := strings.Cut(arg, "=")
		return val, ok && strings.Contains(val, "/")
	}
	if options && strings.HasPrefix(arg, "-") {
		// A cluster whose last option takes the rest of the word (-o/tmp/x,
		// -xvf./a.tar): the value from its first "/", "~" or "." on, when it
		// holds a "/". The policy knows which option it belongs to.
		if i := strings.IndexAny(arg[1:], "/~."); i >= 0 && strings.Contains(arg, "/") {
			return arg[1+i:], true
		}
		return "", false
	}
	if name, val, ok := strings.Cut(arg, "="); ok && isName(name) {
		return val, strings.Contains(val, "/") // NAME=value, as dd's if=FILE
	}
	if strings.ContainsRune(arg, '/') || arg[0] == '~' || arg[0] == '.' {
		return arg, true
	}
	_, err := os.Lstat(filepath.Join(cwd, arg))
	return arg, err == nil
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && (i == 0 || !(r >= '0' && r <= '9')) {
			return false
		}
	}
	return s != ""
}

// isPipe reports whether abs is one of the interpreter's own named pipes
// (process substitution) in Facts.Pipes, which no program can create: a
// named pipe that exists there now, under the interpreter's prefix.
// real is the path resolved (see resolve), so that "L/../.." through a link
// cannot name one file for the check and another for the open.
func (b *builder) isPipe(real string) bool {
	if b.facts.Pipes == "" {
		return false
	}
	dir, name := filepath.Split(real)
	if filepath.Clean(dir) != b.facts.Pipes || !strings.HasPrefix(name, PipePrefix) {
		return false
	}
	fi, err := os.Lstat(real)
	return err == nil && fi.Mode()&fs.ModeNamedPipe != 0
}

// PipePrefix starts the names of the interpreter's named pipes.
const PipePrefix = "sh-interp-"

// pathOf resolves a redirection target or other single word.
func (b *builder) pathOf(w Word) Path {
	if w.Dynamic {
		return Path{Dynamic: true}
	}
	return b.resolve(w.Value)
}

// resolve makes a path absolute against the working directory, follows the
// symlinks of its existing part component by component (so "link/.." is
// the parent of the link's target, as the kernel sees it), and tags it with
// the root that contains it.
func (b *builder) resolve(value string) Path {
	p := Path{Value: value}
	abs := value
	if !filepath.IsAbs(abs) {
		abs = b.cwd + "/" + abs
	}
	if dev := DevicePathWith(abs, b.resolveVisible); dev != "" {
		p.Resolved, p.Root, p.Exists = dev, "device", true
		return p
	}
	p.Resolved = b.resolveVisible(abs)
	if b.isPipe(p.Resolved) {
		p.Root, p.Exists = "device", true
		return p
	}
	p.Root, p.RootDir = b.facts.Roots.contain(p.Resolved)
	if !b.visible(p.Resolved) {
		return p // not looked at: neither exists nor dir
	}
	if fi, err := os.Stat(p.Resolved); err == nil {
		p.Exists, p.Dir = true, fi.IsDir()
	}
	return p
}

// contain names the root that holds path by whole path components.
func (r Roots) contain(path string) (name, dir string) {
	if r.Workspace != "" && within(path, r.Workspace) {
		return "workspace", r.Workspace
	}
	for _, s := range r.Skills {
		if within(path, s) {
			return "skills", s
		}
	}
	return "", ""
}

// within reports whether path is dir or lies beneath it. Both are clean
// absolute paths; only "/" separates components.
func within(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// visible reports whether the builder may look at path on the file system
// (whether it exists, is a link, where the link points): inside the roots,
// on the way to them, in /dev, or the interpreter's pipes directory.
// Elsewhere the builder runs as root and would reveal what the command
// cannot see: a name that exists or not would change the decision.
func (b *builder) visible(path string) bool { return b.facts.Roots.visible(path, b.facts.Pipes) }

func (b *builder) resolveVisible(abs string) string { return resolveSymlinksIn(abs, b.visible) }

// visible reports whether path lies inside the roots, /dev or the pipes
// directory, or on the way to one of them.
func (r Roots) visible(path, pipes string) bool {
	for _, d := range append([]string{r.Workspace, "/dev", pipes}, r.Skills...) {
		if d != "" && (within(d, path) || within(path, d)) {
			return true
		}
	}
	return false
}

// ResolvePathIn resolves an absolute path as ResolvePath does, looking at
// the file system only inside roots, /dev and pipes (the interpreter's
// pipes directory, or ""), and on the way to them: elsewhere every name
// is taken as a plain directory, so that what lies outside the roots
// changes nothing in the answer. The caller must still open what it finds
// through an os.Root of the root that holds it.
func ResolvePathIn(abs string, roots Roots, pipes string) string {
	return resolveSymlinksIn(abs, func(p string) bool { return roots.visible(p, pipes) })
}

// resolveSymlinks resolves an absolute path as the kernel would: component
// by component, following each symlink it meets. The part that does not
// exist is appended lexically. The result is clean and absolute. Paths in
// /proc stay lexical: its links (/proc/self, fd/N) name whatever process
// reads them, not this one.
func resolveSymlinks(abs string) string { return resolveSymlinksIn(abs, nil) }

// resolveSymlinksIn is resolveSymlinks looking only at the components
// for which visible holds (all when visible is nil): any other is taken as
// a directory that exists and is no link, so that its ".." is lexical.
func resolveSymlinksIn(abs string, visible func(string) bool) string {
	if clean := filepath.Clean(abs); within(clean, "/proc") {
		return clean
	}
	done := "/"
	rest := strings.Split(abs, "/")
	followed := 0
	for len(rest) > 0 {
		comp := rest[0]
		rest = rest[1:]
		switch comp {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, comp)
		if visible != nil && !visible(next) {
			done = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			done = next
			continue
		}
		target, err := os.Readlink(next)
		if followed++; err != nil || followed > maxSymlinks {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return done
}

// lookPath resolves a program name as the interpreter would: a name with
// a slash against the working directory, any other through the search
// path. It returns "" when nothing executable is found.
func (b *builder) lookPath(name string) string {
	if strings.ContainsRune(name, '/') {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(b.cwd, p)
		}
		return filepath.Clean(p)
	}
	search := b.facts.Path
	if search == "" {
		search = DefaultPath
	}
	for _, dir := range filepath.SplitList(search) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// ResolvePath resolves an absolute path's symlinks as the kernel would (see
// resolveSymlinks); the part that does not exist is kept lexically.
func ResolvePath(abs string) string { return resolveSymlinks(abs) }
