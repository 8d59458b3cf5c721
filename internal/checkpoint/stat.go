package checkpoint

// fileStat is the stat data the snapshot code needs.
type fileStat struct {
	mode  uint32 // S_IFMT bits and permissions, as in st_mode
	size  int64
	mtime int64 // ns since the epoch
	ctime int64 // ns since the epoch; 0 where unknown
	ino   uint64
	dev   uint64
}

// Portable file type bits of st_mode.
const (
	sIFMT  = 0o170000
	sIFREG = 0o100000
	sIFDIR = 0o040000
	sIFLNK = 0o120000
)

func (st *fileStat) isRegular() bool { return st.mode&sIFMT == sIFREG }
func (st *fileStat) isDir() bool     { return st.mode&sIFMT == sIFDIR }
func (st *fileStat) isLink() bool    { return st.mode&sIFMT == sIFLNK }
func (st *fileStat) isExec() bool    { return st.mode&0o100 != 0 }

// fileSig identifies one version of a file by its stat data.
type fileSig struct {
	size, mtime, ctime int64
	ino                uint64
}

func (st *fileStat) sig() fileSig {
	return fileSig{size: st.size, mtime: st.mtime, ctime: st.ctime, ino: st.ino}
}
