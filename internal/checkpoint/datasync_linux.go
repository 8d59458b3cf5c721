package checkpoint

import (
	"os"

	"golang.org/x/sys/unix"
)

// fdatasync makes f's data (and the size needed to read it back) durable,
// without the inode times a full fsync also writes.
func fdatasync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}
