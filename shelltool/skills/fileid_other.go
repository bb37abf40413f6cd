//go:build !unix

package skills

import "os"

// followSymlinks is false where directories cannot be identified by device
// and inode: without that a symlink loop could not be detected.
const followSymlinks = false

// fileID identifies a directory independently of the path that reached it.
type fileID struct{}

// identify reports that directories cannot be identified here.
func identify(os.FileInfo) (fileID, bool) { return fileID{}, false }
