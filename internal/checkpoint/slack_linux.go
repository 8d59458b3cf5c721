//go:build linux

package checkpoint

import (
	"syscall"
	"time"
)

// timestampSlack is fineSlack on a file system known to keep nanosecond
// timestamps, else racySlack.
func timestampSlack(dir string) time.Duration {
	var fs syscall.Statfs_t
	if syscall.Statfs(dir, &fs) != nil {
		return racySlack
	}
	switch uint32(fs.Type) {
	case 0xEF53, // ext2/3/4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0x01021994, // tmpfs
		0x794C7630, // overlayfs
		0xF2F52010, // f2fs
		0x2FC12FC1: // zfs
		return fineSlack
	}
	return racySlack
}
