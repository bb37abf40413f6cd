// Package testenv helps tests set up directories and skills that the jail's
// unprivileged uid can use.
package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns a new directory, removed when the test ends, that every user
// can traverse: programs in the jail run as an unprivileged uid, and
// t.TempDir's directories are private to the test's user.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "skillsh-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Workspace returns a new directory every user can write to.
func Workspace(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(Dir(t), "workspace")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	return dir
}

// Skills copies the repository's demo skills (testdata/skills) into a new
// directory every user can read, and returns it.
func Skills(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(Dir(t), "skills")
	if err := CopyTree(dst, filepath.Join(RepoRoot(), "testdata", "skills")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// CopyTree copies src to dst, keeping executable bits, with directories
// every user can traverse.
func CopyTree(dst, src string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	return filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Chmod(p, 0o755)
		}
		return err
	})
}

// RepoRoot returns the repository's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
