//go:build unix

package skills

import (
	"os"
	"syscall"
)

// followSymlinks is true where directories can be identified by device and
// inode, so that symlink loops are detected.
const followSymlinks = true

// fileID identifies a directory independently of the path that reached it.
type fileID struct{ dev, ino uint64 }

// identify returns the device and inode of info's file.
func identify(info os.FileInfo) (fileID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}
